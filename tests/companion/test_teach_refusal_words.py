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


def test_the_built_in_readers_refusal_is_said_in_german():
    # the API's words for a photo the built-in reader reads as another face (test_teach_web)
    assert translate("this photo looks like 4, not 5: check the face you chose, or take the "
                     "photo again", "de") == ("dieses Foto sieht nach 4 aus, nicht nach 5: die "
                                              "gewählte Seite prüfen oder das Foto neu aufnehmen")
