"""A game's module is imported when the game is asked for: a Knister score loads Knister
alone (`engine.registry`)."""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

LOADED = 'print(sorted(m for m in sys.modules if m.startswith("engine.games.")))'


def _run(code: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1].replace("'", '"'))


def test_a_knister_score_imports_knister_only(tmp_path):
    sheet = tmp_path / "sheet.json"
    sheet.write_text(json.dumps({"grid": [[2, 3, 4, 5, 6]] + [[None] * 5] * 4}))
    code = (f"import sys\nfrom companion.cli import main\n"
            f"try:\n    main(['score', '--game', 'knister', {str(sheet)!r}])\n"
            f"except SystemExit as e:\n    assert not e.code, e.code\n{LOADED}")
    assert _run(code) == ["engine.games.knister"]


def test_the_names_of_all_games_import_none():
    code = ("import sys\nfrom engine.registry import GAMES, game_class\n"
            "assert sorted(GAMES) == ['knister', 'kuh_vadis', 'qwinto', 'the_choice', "
            "'twenty_one']\n"
            f"{LOADED}")
    assert _run(code) == []


def test_asking_for_a_game_imports_that_game():
    code = f"import sys\nfrom engine.registry import load_game\nload_game('kuh_vadis')\n{LOADED}"
    assert _run(code) == ["engine.games.kuh_vadis"]
