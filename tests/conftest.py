"""Shared test helpers: where the shared data lives, and skipping when it is absent."""
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


def shared_or_skip(*parts: str) -> Path:
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is absent: the shared data lies beside the project only in "
                    f"development and CI, not on a user's machine")
    return path
