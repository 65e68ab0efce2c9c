"""The leave-one-setup-out table tells the sets a model saw from those it never saw."""
import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("vision_accuracy",
                                                  ROOT / "bench" / "vision_accuracy.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class _Meta:
    def __init__(self, meta):
        self.custom_metadata_map = meta


class _Session:
    def __init__(self, meta):
        self._meta = meta

    def get_modelmeta(self):
        return _Meta(self._meta)


def test_a_face_reader_saw_the_real_sets_of_its_samples(bench):
    s = _Session({"samples": json.dumps({"byler_d6_train": [1], "synth": [2], "render": [3],
                                         "epanemu_own": [4]})})
    assert bench.trained_on(s) == {"byler_d6_train", "epanemu_own"}


def test_a_detector_saw_its_sets_or_those_of_its_card(bench):
    assert (bench.trained_on(_Session({"sets": json.dumps(["byler_d6_train"])}))
            == {"byler_d6_train"})
    assert bench.trained_on(_Session({})) == {"byler_d6_train", "matteop65"}


def test_a_vote_of_face_readers_saw_what_any_of_them_saw(bench):
    from vision.read import Vote

    class _Input:
        shape = ["n", 3, 32, 32]

    class _Voter(_Session):
        def get_inputs(self):
            return [_Input()]

    one = _Voter({"samples": json.dumps({"byler_d6_train": [1]})})
    two = _Voter({"samples": json.dumps({"matteop65": [1], "render": [2]})})
    assert bench.trained_on(Vote((one, two))) == {"byler_d6_train", "matteop65"}


def test_the_shipped_models_never_saw_the_newer_sets(bench):
    from vision.detect import load_detector
    from vision.read import load_settled_session
    seen = bench.trained_on(load_settled_session()) | bench.trained_on(load_detector())
    assert "epanemu_own" not in seen and "tomitomi3_crops" not in seen
    assert "matteop65" in seen


def test_without_takes_a_set_and_one_or_two_models(bench):
    assert bench._without("matteop65=a.onnx") == ("matteop65", (Path("a.onnx"), None))
    assert bench._without("matteop65=a.onnx,b.onnx") == ("matteop65",
                                                         (Path("a.onnx"), Path("b.onnx")))
    with pytest.raises(Exception, match="SET=FACE"):
        bench._without("matteop65")


def test_several_face_readers_are_benched_as_one_vote(bench):
    from vision.read import DEFAULT_MODEL, Vote
    if not Path(DEFAULT_MODEL).is_file():
        pytest.skip(f"no shipped face reader at {DEFAULT_MODEL}")
    one = bench.face_session(str(DEFAULT_MODEL))
    vote = bench.face_session(f"{DEFAULT_MODEL},{DEFAULT_MODEL}")
    assert not isinstance(one, Vote)
    assert isinstance(vote, Vote) and len(vote.sessions) == 2


def test_where_picks_the_photos_of_one_kind(bench, tmp_path):
    """``--where augmented=no`` reads a set's photos as their camera made them, apart from the
    noisy copies an export made of them; a column or file that is not there is a clear error."""
    (tmp_path / "images.csv").write_text("filename,augmented\na.jpg,no\nb.jpg,yes\nc.jpg,no\n")
    assert bench.photos_where(tmp_path, "augmented", "no") == {"a.jpg", "c.jpg"}
    with pytest.raises(ValueError, match="no column 'kind'"):
        bench.photos_where(tmp_path, "kind", "x")
    with pytest.raises(ValueError, match="no such file"):
        bench.photos_where(tmp_path / "elsewhere", "augmented", "no")
