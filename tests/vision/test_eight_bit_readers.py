"""The shipped pip readers run as their 8-bit copies (``vision.read.load_session``): about twice
as fast on one core. A copy is used only where it was made from the very file beside it, and it
must read the dice as the float weights do."""
import shutil

import numpy as np
import pytest

from vision.pipeline import DiceReader
from vision.read import (BIG_MODEL, DEFAULT_MODEL, Vote, eight_bit_path, file_id, load_session)
from vision.training.synth import render_scene


def _path(session) -> str:
    return str(session._model_path)


@pytest.mark.parametrize("model", [DEFAULT_MODEL, BIG_MODEL], ids=["reader", "larger reader"])
def test_a_shipped_reader_runs_as_its_copy_made_from_it(model):
    copy = eight_bit_path(model)
    assert copy.is_file() and copy.stat().st_size < model.stat().st_size / 2
    session = load_session(model, threads=1)
    assert _path(session) == str(copy)
    meta = session.get_modelmeta().custom_metadata_map
    assert meta["quantized_from"] == file_id(model)
    # the float model's own metadata travels with the copy (classes, upright)
    float_meta = load_session(model, threads=1, eight_bit=False).get_modelmeta()
    for key in ("classes", "upright"):
        assert meta[key] == float_meta.custom_metadata_map[key]
    assert _path(load_session(model, threads=1, eight_bit=False)) == str(model)


def test_a_copy_made_from_another_file_is_not_used(tmp_path):
    """A fine-tuned reader saved over the float file, its old copy still beside it: the copy
    names other bytes, so the new weights are read as they are."""
    model = tmp_path / "dice_face.onnx"
    shutil.copy(BIG_MODEL, model)                                  # other weights...
    shutil.copy(eight_bit_path(DEFAULT_MODEL), eight_bit_path(model))   # ...beside an old copy
    assert _path(load_session(model, threads=1)) == str(model)
    shutil.copy(DEFAULT_MODEL, model)                              # the copy's own float file
    assert _path(load_session(model, threads=1)) == str(eight_bit_path(model))


def test_the_copies_read_dice_as_the_float_weights_do():
    """The settled tier on 2-D scenes it was not calibrated on: the same dice, and the same
    value for nearly every one (models/README.md, "8-bit copies", for the real photos)."""
    def settled(eight_bit):
        return DiceReader(session=Vote((load_session(DEFAULT_MODEL, 1, eight_bit=eight_bit),
                                        load_session(BIG_MODEL, 1, "larger face reader",
                                                     eight_bit=eight_bit))), threads=1)
    copies, floats = settled(True), settled(False)
    rng = np.random.default_rng(7)
    same_boxes = same_values = dice = 0
    for _ in range(30):
        image = render_scene(rng).image
        a = {d.box: d.value for d in copies(image).dice}
        b = {d.box: d.value for d in floats(image).dice}
        dice += len(b)
        same_boxes += len(a.keys() & b.keys())
        same_values += sum(a[k] == b[k] for k in a.keys() & b.keys())
    assert dice >= 150
    assert same_boxes >= 0.97 * dice and same_values >= 0.97 * dice
