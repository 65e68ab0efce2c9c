"""User story: a table teaches its pip dice (to name their colours, or because the camera doubts
them). Teaching must not read a die worse than the shipped reader did untaught: where the shipped
pip reader is sure of a value the table taught, that value stands; the taught set reads the dice
the pip reader doubts."""
from dataclasses import dataclass, replace

import numpy as np
import pytest

from vision.dice_set import DiceSetReader
from vision.teach import teach
from vision.training.special_dice import SEEN_DESIGNS
from vision_helpers import CountingEmbedder

pytest.importorskip("onnxruntime")

PIPS = next(d for d in SEEN_DESIGNS if d.game == "the_choice" and d.symbols == "pips")


@dataclass
class PipReader:
    """Stands for the shipped FaceReader: the same probabilities (not a die, 1..6) for every box."""
    row: tuple

    def __call__(self, bgr, boxes):
        return type("Read", (), {"probs": np.array([self.row] * len(boxes), np.float32)})()


def sure_of(value: int, p: float) -> tuple:
    rest = (1.0 - p) / 5
    return (0.0,) + tuple(p if v == value else rest for v in range(1, 7))


@pytest.fixture(scope="module")
def taught(bench_special):
    """Pip dice taught with 3 photos a face (their colour left to the body), and one more photo
    of a 2 to read."""
    examples = [(img, box, value, None)
                for img, box, value, _ in bench_special.teaching_examples(PIPS, 3, seed=71)]
    two = next(e for e in bench_special.teaching_examples(PIPS, 1, seed=72) if e[2] == 2)
    return examples, two


def read_value(reader, die):
    img, box, *_ = die
    return reader.read_boxes(img, [box])[0][0]


def test_a_value_the_pip_reader_is_sure_of_stands(taught):
    examples, two = taught
    reader = DiceSetReader(teach(examples))
    assert read_value(reader, two) == 2
    assert read_value(replace(reader, pip_reader=PipReader(sure_of(5, 0.9))), two) == 5


def test_a_die_the_pip_reader_doubts_is_read_by_the_taught_set(taught):
    examples, two = taught
    reader = DiceSetReader(teach(examples), pip_reader=PipReader(sure_of(5, 0.3)))
    assert reader.pip_sure > 0.3 and read_value(reader, two) == 2


def test_a_value_the_table_did_not_teach_is_not_taken(taught):
    examples, two = taught
    no_fives = [e for e in examples if e[2] != 5]
    reader = DiceSetReader(teach(no_fives), pip_reader=PipReader(sure_of(5, 0.95)))
    assert read_value(reader, two) == 2


def test_a_die_the_pip_reader_decided_costs_no_further_views(taught):
    """The taught set's further views of a die (its turns, ink view and top face: up to fifteen
    embeddings) would not change a value the pip reader decided, so they are not made."""
    examples, two = taught
    every_die_unsure = replace(DiceSetReader(teach(examples)), turn_below=1.01)
    counting = CountingEmbedder(every_die_unsure.embedder)   # first readings and further views
    assert read_value(replace(every_die_unsure, embedder=counting, views=counting), two) == 2
    assert counting.embedded > 1
    counting = CountingEmbedder(every_die_unsure.embedder)
    sure = replace(every_die_unsure, embedder=counting, views=counting,
                   pip_reader=PipReader(sure_of(5, 0.9)))
    assert read_value(sure, two) == 5 and counting.embedded == 1
