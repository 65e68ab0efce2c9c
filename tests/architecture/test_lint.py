"""The linter: its settings in pyproject.toml, the whole repository clean under them, and CI
running it before the tests (docs/architecture.md, "Conventions: the linter")."""
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_lines_are_held_to_100_columns_by_pycodestyle_and_pyflakes():
    ruff = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["ruff"]
    assert ruff["line-length"] == 100
    assert {"E", "W", "F"} <= set(ruff["lint"]["select"])
    assert not ruff["lint"].get("ignore")


def test_the_repository_is_clean_under_its_ruff_settings():
    r = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache",
                        "--output-format", "concise", "."],
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]


def test_ci_runs_the_linter_before_the_tests():
    run = (ROOT / ".ci" / "run").read_text()
    assert "python3 -m ruff check ." in run
    assert run.index("python3 -m ruff check .") < run.index("python3 -m pytest")
