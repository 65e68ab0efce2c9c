"""User story: a German-speaking player whose teaching photo is refused reads why in German."""
from companion.reasons import translate
from tests.vision_stream.test_teaching_refusals import _set
from vision.dice_set import teaching_problem


def test_both_teaching_refusals_are_said_in_german():
    twos = [(1, (1, 0, 0)), (1, (1, 0.01, 0)), (2, (0, 1, 0)), (2, (0, 0.5, 0.866))]
    spoils = teaching_problem(_set(twos), _set(twos + [(1, (0.8, 0.6, 0))]), 4)
    looks = teaching_problem(_set(twos), _set(twos + [(1, (0, 1, 0.02))]), 4)
    assert "looks like 2, not 1" in looks and "would be read as 1" in spoils
    assert translate(looks, "de").startswith("neben den bisher gezeigten Fotos sieht dieses Foto nach 2 aus")
    assert translate(spoils, "de").startswith("mit diesem Foto würden 1 zuvor gezeigte Fotos von 2 als 1")
