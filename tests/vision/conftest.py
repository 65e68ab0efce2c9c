"""Fixtures for the vision tests: a fake ONNX session, the shipped model, the real data folder."""
from __future__ import annotations

import importlib
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data" / "dice"
MODEL = ROOT / "models" / "dice_face.onnx"


class FakeInput:
    def __init__(self, name="crops", shape=("n", 3, 32, 32)):
        self.name = name
        self.shape = list(shape)


class FakeSession:
    """Stands in for onnxruntime.InferenceSession: returns fixed logits, records its inputs."""

    def __init__(self, logits_for=None, size=32, name="crops"):
        self.calls = []
        self._inputs = [FakeInput(name, ("n", 3, size, size))]
        self.logits_for = (logits_for
                           or (lambda x: np.tile(np.array([0, 5, 0, 0, 0, 0, 0], np.float32),
                                                 (len(x), 1))))

    def get_inputs(self):
        return self._inputs

    def run(self, outputs, feeds):
        (x,) = feeds.values()
        self.calls.append(x)
        return [self.logits_for(x)]


@pytest.fixture
def fake_session():
    return FakeSession()


@pytest.fixture
def make_fake_session():
    return FakeSession


@pytest.fixture(scope="session")
def model_session():
    if not MODEL.is_file():
        pytest.fail(f"the shipped model is missing: {MODEL}")
    from vision.read import load_session
    return load_session(MODEL, threads=1)


@pytest.fixture(scope="session")
def dice_reader(model_session):
    from vision.pipeline import DiceReader
    return DiceReader(model_session)


@pytest.fixture(scope="session")
def data_root():
    if not DATA.is_dir():
        pytest.skip(f"real dice photos not available: {DATA} is absent (they live in the shared "
                    "data folder)")
    return DATA


@pytest.fixture(scope="session")
def bench_module():
    """``bench_module(name)``: the script ``bench/<name>.py`` as a module (the scripts import each
    other by name, so ``bench/`` is on the path while it loads)."""
    def load(name: str):
        sys.path.insert(0, str(ROOT / "bench"))
        try:
            return importlib.import_module(name)
        finally:
            sys.path.remove(str(ROOT / "bench"))
    return load
