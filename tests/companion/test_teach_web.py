"""User story: at the table, a player teaches the companion their own dice from the phone (one
photo per die, a tap for its face), switches the table to the taught dice, and the camera reads
them; bad uploads change nothing, and what was taught survives a restart."""

from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.app import create_app
from vision.dice_set import DiceSet
from vision.training.special_dice import SEEN_DESIGNS, render_special_scene
from vision.embedding import default_embedder

KV = SEEN_DESIGNS[0]        # kv-plastic-pips-head: Kuh Vadis dice, a cow for the 6
CHOICE = SEEN_DESIGNS[4]    # tc-plastic-numeral-face: The Choice, numerals on coloured faces


def teach(client, code, face, photo, colour=None, keep=False):
    data = {"face": str(face), "photo": (__import__("io").BytesIO(photo), "die.jpg")}
    if colour:
        data["colour"] = colour
    if keep:
        data["keep"] = "1"
    return client.post(f"/api/tables/{code}/teach", data=data, content_type="multipart/form-data")


@pytest.fixture
def app(database):
    app = create_app({"TESTING": True, "DATABASE": database,
                      "MAX_CONTENT_LENGTH": 2 * 1024 * 1024})
    yield app
    app.extensions["database"].close()


def teach_every_kuh_vadis_face(client, code, close_up, per_face=3, offsets=(0, 1, 2, 3, 4, 5)):
    """3 close-ups of each face; `offsets`: the photos' seeds per face (a player's photos)."""
    for face, offset in zip((1, 2, 3, 4, 5, "cow"), offsets):
        for k in range(per_face):
            r = teach(client, code, face, close_up(KV, face, seed=100 + 10 * k + offset))
            assert r.status_code == 201, r.json
    return r.json


def read_roll(client, code, values, seed=7):
    """A rendered roll of Kuh Vadis dice fed as camera frames until it settles: the faces read."""
    rng = np.random.default_rng(seed)
    scene = render_special_scene(rng, KV, n_dice=len(values), size=(480, 640), values=values,
                                 side_range=(60, 80))
    frame = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, 92])[1].tobytes()
    for _ in range(5):
        r = client.post(f"/api/tables/{code}/frame", data=frame, content_type="image/jpeg")
        assert r.status_code == 200, r.json
        if r.json["settled"]:
            break
    assert r.json["settled"]
    return r.json


@pytest.mark.both_stores          # the teaching log on SQLite, then on PostgreSQL
def test_a_player_teaches_kuh_vadis_dice_and_the_camera_reads_them(app, make_table, photo):
    client = app.test_client()
    close_up = photo
    code = make_table(client, game="kuh_vadis", players=("Ann", "Bob"))
    start = client.get(f"/api/tables/{code}/teach").json
    assert start["faces"] == [1, 2, 3, 4, 5, "cow"] and start["colours"] is None
    assert not start["ready"] and start["missing"][0] == "3 more of face 1"

    first = teach(client, code, "cow", close_up(KV, "cow", seed=1))
    assert first.status_code == 201
    taught = first.json["taught"]
    assert taught["face"] == "cow" and taught["thumbnail"].startswith("data:image/jpeg;base64,")
    x0, y0, x1, y1 = taught["box"]
    assert 0 <= x0 < x1 <= taught["width"] and 0 <= y0 < y1 <= taught["height"]
    assert (first.json["faces"] == [1, 2, 3, 4, 5, "cow"]
            and first.json["examples"][0]["face"] == "cow")

    done = teach_every_kuh_vadis_face(client, code, close_up)
    assert done["ready"] and done["missing"] == []
    assert done["counts"] == {"1": 3, "2": 3, "3": 3, "4": 3, "5": 3, "cow": 4}
    assert done["per_face"] == 3 and done["examples"] and len(done["examples"]) == 19

    use = client.post(f"/api/tables/{code}/teach/use", json={"use": True})
    assert use.status_code == 200 and use.json["in_use"]

    # a roll on the table: five dice, one of them a cow
    values = [3, "cow", 1, 5, 2]
    seen = read_roll(client, code, values)
    assert sorted(str(d["face"]) for d in seen["dice"]) == sorted(str(v) for v in values)
    assert seen["problem"] is None
    # two tiers, as for the shipped reader: each frame one embedding a die, the frame the roll
    # settled on read once more with the unsure dice's quarter turns and ink contrast
    table = app.extensions["readers"].get(code)
    assert (table.reader.turns, table.reader.contrast) == (False, False)
    assert (table.settled_reader.turns, table.settled_reader.contrast) == (True, True)
    assert table.reader.embedder is table.settled_reader.embedder
    assert table.reader.finder.session is table.settled_reader.finder.session

    # the taught dice travel: the dice-set file reads with the shipped embedding
    f = client.get(f"/api/tables/{code}/dice-set.npz")
    assert f.status_code == 200
    path = app.instance_path + "/dice.npz"
    with open(path, "wb") as out:
        out.write(f.data)
    ds = DiceSet.load(path, default_embedder().model_id)
    assert set(ds.labels) == {1, 2, 3, 4, 5, "cow"}

    stop = client.post(f"/api/tables/{code}/teach/use", json={"use": False})
    assert stop.status_code == 200 and not stop.json["in_use"]


def test_a_pip_read_as_a_face_does_not_take_its_dies_place(app, make_table, photo):
    """With these teaching photos the embedding reads a pip's box inside the 5 nearly as surely as
    the die (0.86 against 0.88); the inner of two boxes around one die stays (a die's own box
    inside a box with table around it), so the pip took the die's place and was then dropped as
    too small: the 5 was missing from the roll. Only a die-sized inner box may replace."""
    client = app.test_client()
    code = make_table(client, game="kuh_vadis", players=("Ann", "Bob"))
    teach_every_kuh_vadis_face(client, code, photo, offsets=(3, 3, 5, 6, 0, 1))
    assert client.post(f"/api/tables/{code}/teach/use", json={"use": True}).json["in_use"]
    values = [3, "cow", 1, 5, 2]
    assert (sorted(str(d["face"]) for d in read_roll(client, code, values)["dice"])
            == sorted(str(v) for v in values))


@pytest.mark.both_stores          # the teaching log on SQLite, then on PostgreSQL
def test_bad_teaching_requests_are_refused_and_change_nothing(app, make_table, photo):
    client = app.test_client()
    close_up = photo
    code = make_table(client, game="kuh_vadis", players=("Ann", "Bob"))
    photo = close_up(KV, 2, seed=3)
    cases = [
        (teach(client, code, 2, b"\xff\xd8\xff\xe0 truncated"), 400, "the photo is corrupt"),
        (teach(client, code, 2, b""), 400, "empty"),
        (teach(client, code, 6, photo), 400, "not a face of these dice"),
        (teach(client, code, "", photo), 400, "which face"),
        (teach(client, code, 2, photo, colour="red"), 400, "from the body"),
        (client.post(f"/api/tables/{code}/teach/use", json={"use": True}), 409,
         "teach every face first"),
        (client.post(f"/api/tables/{code}/teach/use", json={"use": "yes"}), 400, "use"),
        (client.post(f"/api/tables/{code}/teach/withdraw", json={}), 409,
         "nothing has been taught"),
        (client.get(f"/api/tables/{code}/dice-set.npz"), 409, "teach every face first"),
    ]
    for r, status, words in cases:
        assert r.status_code == status, (words, r.json)
        assert words in r.json["error"]
    stranger = app.test_client()   # not at the table
    # the page says so first
    assert stranger.get(f"/api/tables/{code}/teach").json["may_teach"] is False
    assert client.get(f"/api/tables/{code}/teach").json["may_teach"] is True
    r = teach(stranger, code, 2, photo)
    assert r.status_code == 403 and "join the table" in r.json["error"]
    assert client.get(f"/api/tables/{code}/teach").json["examples"] == []
    assert client.get("/api/tables/NOPE1/teach").status_code == 404


@pytest.mark.both_stores          # the teaching log on SQLite, then on PostgreSQL
def test_a_mistaken_photo_is_withdrawn_and_teaching_survives_a_restart(app, make_table, photo,
                                                                       tmp_path):
    client = app.test_client()
    close_up = photo
    code = make_table(client, game="kuh_vadis", players=("Ann", "Bob"))
    a = teach(client, code, 4, close_up(KV, 4, seed=11)).json["taught"]["seq"]
    # tapped 5 by mistake: the built-in reader sees a 4 and the page says so, even on the
    # first photo of a face; kept anyway ("keep it"), it is withdrawn
    refused = teach(client, code, 5, close_up(KV, 4, seed=12))
    assert refused.status_code == 422 and refused.json["keep"] is True
    assert refused.json["error"] == ("this photo looks like 4, not 5: check the face you "
                                     "chose, or take the photo again")
    b = teach(client, code, 5, close_up(KV, 4, seed=12), keep=True).json["taught"]["seq"]
    thumb = client.get(f"/api/tables/{code}/teach/{b}.jpg")
    assert thumb.status_code == 200 and thumb.mimetype == "image/jpeg"
    assert cv2.imdecode(np.frombuffer(thumb.data, np.uint8), cv2.IMREAD_COLOR).shape == (96, 96, 3)
    r = client.post(f"/api/tables/{code}/teach/withdraw", json={})
    assert r.status_code == 200 and r.json["withdrawn"] == b
    assert client.get(f"/api/tables/{code}/teach/{b}.jpg").status_code == 404
    assert ([e["seq"] for e in r.json["examples"]] == [a]
            and r.json["faces"] == [1, 2, 3, 4, 5, "cow"])
    assert client.post(f"/api/tables/{code}/teach/withdraw", json={"seq": b}).status_code == 400
    # true is no example's number (Python's True == 1 withdrew the first photo)
    r = client.post(f"/api/tables/{code}/teach/withdraw", json={"seq": True})
    assert r.status_code == 400 and r.json["error"] == "there is no taught example True to withdraw"

    again = create_app({"TESTING": True, "DATABASE": app.config["DATABASE"]}).test_client()
    state = again.get(f"/api/tables/{code}/teach").json
    assert [(e["seq"], e["face"]) for e in state["examples"]] == [(a, 4)]
    assert state["missing"][:1] == ["3 more of face 1"]


@pytest.mark.both_stores          # the teaching log on SQLite, then on PostgreSQL
def test_the_choice_teaches_each_face_with_its_colour(app, make_table, photo):
    client = app.test_client()
    close_up = photo
    code = make_table(client, game="the_choice", players=("Ann", "Bob"))
    start = client.get(f"/api/tables/{code}/teach").json
    assert start["colours"] == ["blue", "green", "grey", "purple", "red", "yellow"]
    photo = close_up(CHOICE, 3, seed=5, colour="green")
    r = teach(client, code, 3, photo)
    assert r.status_code == 400 and "which colour" in r.json["error"]
    r = teach(client, code, 3, photo, colour="orange")
    assert r.status_code == 400 and "not a colour of these dice" in r.json["error"]
    r = teach(client, code, 3, photo, colour="green")
    assert (r.status_code == 201 and r.json["colour_counts"]["green"] == 1
            and r.json["counts"]["3"] == 1)
    assert start["faces_taught"] == 0 and r.json["faces_taught"] == 1
    # a 3 in purple is another face (another die); a second green 3 is not
    r = teach(client, code, 3, close_up(CHOICE, 3, seed=6, colour="purple"), colour="purple")
    assert r.status_code == 201 and r.json["faces_taught"] == 2
    r = teach(client, code, 3, close_up(CHOICE, 3, seed=7, colour="green"), colour="green")
    assert r.status_code == 201 and r.json["faces_taught"] == 2


@pytest.mark.parametrize("game, faces, colours", [
    # the colour is the body's: named by the palette
    ("qwinto", [1, 2, 3, 4, 5, 6], None),
    ("twenty_one", [1, 2, 3, 4, 5, 6], None),
    ("knister", [1, 2, 3, 4, 5, 6], None),
    ("kuh_vadis", [1, 2, 3, 4, 5, "cow"], None),
    ("the_choice", [1, 2, 3, 4, 5, 6], ["blue", "green", "grey", "purple", "red", "yellow"]),
])
@pytest.mark.both_stores          # the teaching log on SQLite, then on PostgreSQL
def test_each_game_teaches_its_own_faces(client, make_table, game, faces, colours):
    players = ("Ann", "Bob")
    code = make_table(client, game=game, players=players)
    state = client.get(f"/api/tables/{code}/teach").json
    assert state["faces"] == faces and state["colours"] == colours
    assert not state["ready"] and not state["in_use"] and state["examples"] == []


@pytest.mark.both_stores          # the teaching log on SQLite, then on PostgreSQL
def test_a_photo_that_is_no_close_up_of_a_die_is_refused_with_the_reason(app, make_table, photo):
    """A distant photo of the table labelled "6", a blurred one, a die a few pixels wide: each is
    refused (422) saying why, and nothing is taught; a close-up is taken."""
    client = app.test_client()
    code = make_table(client, game="kuh_vadis")
    table = render_special_scene(np.random.default_rng(1001), KV, n_dice=2, size=(1200, 1600),
                                 side_range=(50, 90))
    distant = cv2.imencode(".jpg", table.image)[1].tobytes()
    sharp = cv2.imdecode(np.frombuffer(photo(KV, 5, seed=7), np.uint8), cv2.IMREAD_COLOR)
    blurred = cv2.imencode(".jpg", cv2.GaussianBlur(sharp, (0, 0), 4.0))[1].tobytes()
    small = cv2.resize(sharp, (36, 36), interpolation=cv2.INTER_AREA)
    tiny = cv2.imencode(".jpg", small)[1].tobytes()
    # the demo's picture of a Kuh Vadis roll: five dice on a table, none in its middle, some big
    # enough to be close-ups if that were all the photo held
    roll = (Path(__file__).resolve().parents[2] / "sample_images" / "kuh_vadis_1.jpg").read_bytes()
    for picture, words in ((distant, "no die in the middle of the photo"),
                           (roll, "no die in the middle of the photo"),
                           (blurred, "the photo is blurred"), (tiny, "come closer")):
        r = teach(client, code, "cow", picture)
        assert r.status_code == 422 and words in r.json["error"], (words, r.json)
    assert client.get(f"/api/tables/{code}/teach").json["examples"] == []
    r = teach(client, code, 5, photo(KV, 5, seed=7))
    assert r.status_code == 201
    de = client.post(f"/api/tables/{code}/teach?lang=de",
                     data={"face": "5", "photo": (__import__("io").BytesIO(blurred), "d.jpg")},
                     content_type="multipart/form-data")
    assert de.json["error"].startswith("das Foto ist unscharf")


def test_a_photo_the_taught_photos_read_as_another_face_is_refused(app, make_table, photo):
    """A cow photo tapped as a 3, once threes have been taught: refused with the face it shows,
    and nothing is written (the table keeps what it had)."""
    client = app.test_client()
    code = make_table(client, game="kuh_vadis", players=("Ann", "Bob"))
    taught = teach_every_kuh_vadis_face(client, code, photo, per_face=2)
    r = teach(client, code, 3, photo(KV, "cow", seed=177))
    assert r.status_code == 422 and "looks like cow, not 3" in r.json["error"], r.json
    state = client.get(f"/api/tables/{code}/teach").json
    assert [e["seq"] for e in state["examples"]] == [e["seq"] for e in taught["examples"]]
    assert teach(client, code, "cow", photo(KV, "cow", seed=177)).status_code == 201


def test_a_player_sure_of_the_face_keeps_a_refused_photo(app, make_table, photo):
    """The refusal of a photo read as another face is a question: the answer says it may be kept
    (`keep`), and the same photo sent with keep=1 is taught with the face the player chose; the
    refusals of photos that are no close-up of a die cannot be overruled so."""
    client = app.test_client()
    code = make_table(client, game="kuh_vadis", players=("Ann", "Bob"))
    taught = teach_every_kuh_vadis_face(client, code, photo, per_face=2)
    picture = photo(KV, "cow", seed=177)
    r = teach(client, code, 3, picture)
    assert r.status_code == 422 and r.json["keep"] is True
    r = teach(client, code, 3, picture, keep=True)
    assert r.status_code == 201 and r.json["taught"]["face"] == 3
    assert len(r.json["examples"]) == len(taught["examples"]) + 1
    sharp = cv2.imdecode(np.frombuffer(picture, np.uint8), cv2.IMREAD_COLOR)
    blurred = cv2.imencode(".jpg", cv2.GaussianBlur(sharp, (0, 0), 4.0))[1].tobytes()
    r = teach(client, code, "cow", blurred, keep=True)
    assert r.status_code == 422 and "blurred" in r.json["error"] and "keep" not in r.json


def test_the_set_taught_to_judge_a_photo_is_kept_not_taught_again(app, make_table, photo,
                                                                   monkeypatch):
    """Judging a new photo teaches the set with it (1-2 s); once the photo is stored, that set is
    the table's taught set: switching to the taught dice teaches nothing more."""
    from companion import teaching
    client = app.test_client()
    code = make_table(client, game="kuh_vadis", players=("Ann", "Bob"))
    teach_every_kuh_vadis_face(client, code, photo)
    built = []
    real = teaching.build_reader
    monkeypatch.setattr(teaching, "build_reader", lambda *a: built.append(1) or real(*a))
    assert teach(client, code, 4, photo(KV, 4, seed=199)).status_code == 201
    assert built == [1]
    r = client.post(f"/api/tables/{code}/teach/use", json={"use": True})
    assert r.status_code == 200 and r.json["in_use"] and built == [1]


def test_teaching_that_reads_worse_than_the_shipped_reader_is_not_used(app, make_table, photo,
                                                                         monkeypatch):
    """Teaching must not make a table read worse than it reads untaught: when the taught set reads
    its own photos, each left out, clearly worse than the shipped reader reads them (photoreal
    dice taught from a few photos, docs/vision-special.md), switching to it is refused (409,
    saying so), and the table keeps the shipped reader."""
    client = app.test_client()
    code = make_table(client, game="kuh_vadis", players=("Ann", "Bob"))
    teach_every_kuh_vadis_face(client, code, photo)
    real = DiceSet.read_by_the_others

    def misread_half(self):   # a set whose photos do not carry to one another
        reads = real(self)
        return {g: (v if g % 2 else ("cow" if str(v) != "cow" else 1)) for g, v in reads.items()}

    monkeypatch.setattr(DiceSet, "read_by_the_others", misread_half)
    r = client.post(f"/api/tables/{code}/teach/use", json={"use": True})
    assert r.status_code == 409 and "built-in reader reads your photos better" in r.json["error"]
    from companion.reasons import translate
    assert translate(r.json["error"], "de").startswith("der eingebaute Leser liest deine Fotos")
    assert not client.get(f"/api/tables/{code}/teach").json["in_use"]
    # judged once per set of photos: asking again reads no photo again
    from companion import teaching
    checks = []
    real_check = teaching.shipped_check
    monkeypatch.setattr(teaching, "shipped_check", lambda *a: checks.append(1) or real_check(*a))
    assert client.post(f"/api/tables/{code}/teach/use", json={"use": True}).status_code == 409
    assert checks == []
    # another photo makes another set, judged again: this one reads its photos as they are
    monkeypatch.setattr(DiceSet, "read_by_the_others", real)
    assert teach(client, code, "cow", photo(KV, "cow", seed=187)).status_code == 201
    r = client.post(f"/api/tables/{code}/teach/use", json={"use": True})
    assert r.status_code == 200 and r.json["in_use"] and checks == [1]
