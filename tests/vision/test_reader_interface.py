"""The readers of dice share one declared interface (`vision.dice.DiceReading`) and hand on one
kind of die and roll (`vision.dice.Die`, `vision.dice.Roll`)."""
import numpy as np

from vision import dice, dice_set, pipeline
from vision.dice import DiceReading, Die, Roll


class TestTheInterface:
    def test_the_pip_reader_declares_it(self):
        assert issubclass(pipeline.DiceReader, DiceReading)

    def test_the_taught_reader_declares_it(self):
        assert issubclass(dice_set.DiceSetReader, DiceReading)

    def test_a_reader_without_calibration_does_not(self):
        class ReadsOnly:
            def __call__(self, image):
                return Roll(1, 1, (), 0.0, 0.0, 0.0, 0.0)

        assert not isinstance(ReadsOnly(), DiceReading)

    def test_a_shipped_pip_reader_is_one_and_returns_a_roll(self):
        reader = pipeline.DiceReader()
        assert isinstance(reader, DiceReading)
        assert isinstance(reader.with_calibration(None), DiceReading)
        roll = reader(np.full((120, 160, 3), 90, np.uint8))
        assert isinstance(roll, Roll) and all(isinstance(d, Die) for d in roll.dice)


class TestOneKindOfDie:
    def test_both_readers_build_vision_dice(self):
        assert pipeline.Die is dice.Die and dice_set.Die is dice.Die
        assert pipeline.Roll is dice.Roll and dice_set.Roll is dice.Roll

    def test_a_taught_face_may_be_a_word(self):
        cow = Die((0, 0, 10, 10), "cow", 0.9, "white", 1.0, (250, 250, 250), 0.95)
        assert Roll(10, 10, (cow,), 0, 0, 0, 0).values == ("cow",)
        assert cow.to_dict()["value"] == "cow"
