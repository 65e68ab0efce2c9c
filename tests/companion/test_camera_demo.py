"""The table camera as a new group meets it: the demo shows a table the sample pictures of its
game, keeps a picture until the next is asked for, and the page never shows a colour the reader
was not sure of."""
import pytest

from companion.reader import SURE_COLOUR, sure_colours
from vision.dice import Die

np = pytest.importorskip("numpy")


@pytest.fixture
def demo_app(tmp_path):
    from pathlib import Path

    from companion.app import create_app
    from companion.frames import DirectorySource
    samples = Path(__file__).resolve().parents[2] / "sample_images"
    return create_app({"TESTING": True, "DATABASE": str(tmp_path / "d.sqlite"),
                       "FRAME_SOURCE": DirectorySource(samples)})


class TestDemoPictures:
    def test_a_table_is_shown_the_pictures_of_its_game(self, demo_app, make_table):
        client = demo_app.test_client()
        source = demo_app.config["FRAME_SOURCE"]
        for game in ("qwinto", "knister", "twenty_one", "kuh_vadis", "the_choice"):
            code = make_table(client, game=game)
            info = client.get(f"/api/camera?table={code}").json
            own = [p for p in source.files if p.stem.startswith(game + "_")]
            assert info["demo"] is True and info["pictures"] == len(own) >= 1
            assert info["picture"] == 1 and info["source"].endswith(f"of {game}")
            seen = set()
            for _ in range(len(own)):
                seen.add(source.latest(game, code))
                assert client.post(f"/api/tables/{code}/camera/next").status_code == 200
            assert seen == {source.latest(game, "another table") if len(own) == 1 else d
                            for d in seen}
            assert len(seen) == len(own)
            others = {p.read_bytes() for p in source.files if p not in own}
            assert not seen & others

    @pytest.mark.parametrize("game, dice", [
        ("kuh_vadis", [(None, "1"), (None, "2"), (None, "3"), (None, "5"), (None, "cow")]),
        ("the_choice", [("blue", "2"), ("red", "4"), ("yellow", "6")]),
    ])
    def test_the_special_games_demo_pictures_are_read(self, demo_app, make_table, game, dice):
        """Kuh Vadis and The Choice have demo pictures too (renders of vision.training.special_dice,
        sample_images/render_special.py), read by the shipped reader like any table camera."""
        client = demo_app.test_client()
        code = make_table(client, game=game)
        for _ in range(6):
            r = client.post(f"/api/tables/{code}/camera")
            if r.status_code == 503:
                pytest.skip("no face-reader model")
            if r.json["settled"]:
                break
        assert r.json["settled"]
        assert (sorted((d["colour"], str(d["face"])) for d in r.json["dice"])
                == sorted(dice, key=str))

    def test_a_picture_stays_until_the_next_is_asked_for(self, demo_app, make_table):
        client = demo_app.test_client()
        code = make_table(client, game="qwinto")
        first = client.get(f"/api/camera.mjpg?table={code}&limit=0.5").data
        again = client.get(f"/api/camera.mjpg?table={code}&limit=0.5").data
        assert first == again
        r = client.post(f"/api/tables/{code}/camera/next")
        assert r.json["picture"] == 2
        assert client.get(f"/api/camera.mjpg?table={code}&limit=0.5").data != first

    def test_a_camera_has_no_next_picture(self, tmp_path, make_table):
        from companion.app import create_app
        from companion.frames import FrameSource

        class Webcam(FrameSource):
            name = "camera 0"

            def latest(self, game=None, table=None):
                return b"\xff\xd8\xff"

        app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "w.sqlite"),
                          "FRAME_SOURCE": Webcam()})
        client = app.test_client()
        code = make_table(client)
        assert client.get(f"/api/camera?table={code}").json == {"source": "camera 0", "demo": False}
        r = client.post(f"/api/tables/{code}/camera/next")
        assert r.status_code == 409 and "no next picture" in r.json["error"]


def rendered(colours):
    """A synthetic photo of dice of these body colours (vision's renderer) and their boxes."""
    from vision.training.synth import render_scene
    scene = render_scene(np.random.default_rng(8), size=(480, 640), colours=list(colours),
                         n_dice=len(colours), distinct=True, side_range=(60, 80))
    return scene.image, scene.dice


class TestSureColours:
    def test_a_die_of_a_colour_the_game_lacks_is_shown_without_one(self):
        """A white die read on a Qwinto table is named one of orange, yellow, purple at a high
        share (the share is among those three): its body, named against vision's general
        palette, is white, so no colour is shown."""
        pytest.importorskip("vision.colour")
        image, dice = rendered(["white", "orange"])
        seen = [Die(d.box, d.value, 1.0, "purple" if d.colour == "white" else d.colour, 1.0)
                for d in dice]
        shown = sure_colours(image, seen, [1.0, 1.0], body=True)
        by_truth = {d.colour: s.colour for d, s in zip(dice, shown)}
        assert by_truth == {"white": None, "orange": "orange"}

    def test_a_colour_under_the_sure_share_is_not_shown(self):
        image, dice = rendered(["orange", "yellow"])
        seen = [Die(d.box, d.value, 0.8, d.colour, 0.8) for d in dice]
        shown = sure_colours(image, seen, [SURE_COLOUR - 0.01, SURE_COLOUR], body=False)
        assert [s.colour for s in shown] == [None, dice[1].colour]
        assert [s.value for s in shown] == [d.value for d in dice]   # the faces stay
