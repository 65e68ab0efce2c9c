"""User story: a German-speaking player whose teaching photo is refused reads why in German."""
from companion.reasons import translate
from tests.vision_stream.test_teaching_refusals import _set
from vision.dice_set import teaching_problem


def test_the_teaching_refusal_is_said_in_german():
    twos = [(1, (1, 0, 0)), (1, (1, 0.01, 0)), (2, (0, 1, 0)), (2, (0, 0.5, 0.866))]
    looks = teaching_problem(_set(twos + [(1, (0, 1, 0.02))]), 4)
    assert "looks like 2, not 1" in looks
    assert translate(looks, "de").startswith(
        "neben den bisher gezeigten Fotos sieht dieses Foto nach 2 aus, nicht nach 1")
