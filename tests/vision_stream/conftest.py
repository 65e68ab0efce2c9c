"""Fixtures for the stream, teaching and special-dice tests (no ONNX model, no torch needed)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data" / "dice"


@pytest.fixture(scope="session")
def real_dice_root():
    if not DATA.is_dir():
        pytest.skip(f"real dice photos not available: {DATA} is absent (they live in the shared "
                    "data folder)")
    return DATA


@pytest.fixture(scope="session")
def bench_special():
    """bench/vision_special.py as a module (its teaching/test-scene helpers)."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import vision_special
    finally:
        sys.path.remove(str(ROOT / "bench"))
    return vision_special
