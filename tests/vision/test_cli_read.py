import json

import cv2
import numpy as np
import pytest

from companion import cli
from companion.commands import read as read_cmd
from vision.training.synth import render_scene


def _run(argv, capsys):
    parser = cli._Parser(prog="dice-companion")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=cli._Parser)
    read_cmd.register(sub)
    args = parser.parse_args(argv)
    code = args.func(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_registered_in_cli():
    assert "read" in cli.COMMANDS


@pytest.fixture
def photos(tmp_path):
    sc = render_scene(np.random.default_rng(31), size=(480, 640), n_dice=4)
    good = tmp_path / "table.jpg"
    cv2.imwrite(str(good), sc.image)
    bad = tmp_path / "broken.jpg"
    bad.write_bytes(b"not a jpeg at all")
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    return good, bad, empty, sc


def test_json_lines(photos, capsys):
    good, _, _, sc = photos
    code, out, _ = _run(["read", str(good), str(good), "--json", "--game", "twenty_one"], capsys)
    assert code == 0
    lines = [json.loads(line) for line in out.splitlines()]
    assert len(lines) == 2
    d = lines[0]
    assert d["image"] == str(good) and d["width"] == 640 and d["height"] == 480
    assert isinstance(d["elapsed_ms"], float)
    for die in d["dice"]:
        assert set(die) >= {"box", "value", "colour", "value_confidence", "colour_confidence"}
        assert die["colour"] in ("white", "black", "red", "blue", "yellow", "green")
        assert 1 <= die["value"] <= 6 and len(die["box"]) == 4


def test_unreadable_images_error_and_others_still_read(photos, capsys):
    good, bad, empty, _ = photos
    code, out, err = _run(["read", str(bad), str(good), str(empty),
                           str(good.with_name("missing.jpg"))], capsys)
    assert code == 2
    assert out.count("table.jpg") == 1
    lines = err.strip().splitlines()
    assert len(lines) == 3
    assert "broken.jpg" in lines[0] and "empty.png" in lines[1] and "missing.jpg" in lines[2]


def test_draw(photos, tmp_path, capsys):
    good, *_ = photos
    out_png = tmp_path / "out.png"
    code, out, _ = _run(["read", str(good), "--draw", str(out_png)], capsys)
    assert code == 0 and "dice" in out
    img = cv2.imread(str(out_png))
    assert img is not None and img.shape == (480, 640, 3)


def test_calibrate_then_reuse(photos, tmp_path, capsys):
    good, *_ = photos
    cal = tmp_path / "cal.json"
    assert _run(["read", str(good), "--calibrate", str(cal)], capsys)[0] == 0
    assert "gains" in json.loads(cal.read_text())
    assert _run(["read", str(good), "--calibration", str(cal), "--json"], capsys)[0] == 0


def test_missing_model_is_bad_input(photos, tmp_path, capsys):
    good, *_ = photos
    with pytest.raises(cli.BadInput, match="not found"):
        _run(["read", str(good), "--model", str(tmp_path / "none.onnx")], capsys)


@pytest.mark.parametrize("find", ["detector", "opencv"])
def test_either_finder_reads_the_photo(photos, capsys, find):
    """``--find`` picks the learned detector (the default) or the OpenCV finder; both read the
    dice."""
    good, _, _, sc = photos
    code, out, _ = _run(["read", str(good), "--json", "--find", find], capsys)
    assert code == 0
    dice = json.loads(out)["dice"]
    assert abs(len(dice) - len(sc.dice)) <= 1


def test_unknown_finder_is_refused(photos, capsys):
    good, *_ = photos
    with pytest.raises(SystemExit) as exc:
        _run(["read", str(good), "--find", "magic"], capsys)
    assert exc.value.code == 2
    assert "magic" in capsys.readouterr().err


def _declared_colours(game: str) -> set:
    from companion.games import dice_spec
    return {c["colour"] for c in dice_spec(game)["colours"]}


@pytest.mark.parametrize("game", ["qwinto", "twenty_one", "knister", "kuh_vadis", "the_choice"])
def test_game_names_colours_by_its_declared_dice(photos, capsys, game):
    """``--game G`` names colours with the colours G's dice are declared with (`dice_spec`), as
    a table of G does; a game with uncoloured dice (Knister, Kuh Vadis) gets everyday names."""
    from vision.colour import GENERAL
    good, *_ = photos
    code, out, _ = _run(["read", str(good), "--json", "--game", game], capsys)
    assert code == 0
    declared = _declared_colours(game) - {None} or set(GENERAL.names)
    colours = {d["colour"] for d in json.loads(out)["dice"]}
    assert colours and colours <= declared, (game, colours)


def test_a_registered_game_is_read_by_its_declaration(photos, capsys):
    """A game added to the registry (engine module and layouts only) is a `--game` of `read` and
    `watch`, its colours named by its declared dice."""
    from companion.commands import watch as watch_cmd
    from engine import registry
    from engine.dice import DiceSpec, DieKind
    from tests.companion.test_toy_game import LAYOUT, Tally

    class Duo(Tally):
        name, title = "duo", "Duo"

        def dice_spec(self) -> DiceSpec:
            return DiceSpec((DieKind("red", (1, 2, 3, 4, 5, 6)),
                             DieKind("blue", (1, 2, 3, 4, 5, 6))), 1, 2, repeat_colours=False)

    registry.register(Duo, {"four": LAYOUT})
    try:
        good, *_ = photos
        code, out, _ = _run(["read", str(good), "--json", "--game", "duo"], capsys)
        assert code == 0
        assert {d["colour"] for d in json.loads(out)["dice"]} <= {"red", "blue"}
        parser = cli._Parser(prog="dice-companion")
        watch_cmd.register(parser.add_subparsers(dest="command", parser_class=cli._Parser))
        args = parser.parse_args(["watch", str(good), "--game", "duo"])
        assert watch_cmd.palette_for(args.game).names == ("blue", "red")
    finally:
        registry.unregister("duo")


def test_kuh_vadis_cow_is_printed_as_the_cow(capsys):
    """`read --game kuh_vadis` names the faces as a Kuh Vadis table does: the sixth face, which
    the pip reader reads as 6, is the cow (the shipped sample picture holds one)."""
    from pathlib import Path
    photo = Path(__file__).resolve().parents[2] / "sample_images" / "kuh_vadis_1.jpg"
    code, out, _ = _run(["read", str(photo), "--json", "--game", "kuh_vadis"], capsys)
    assert code == 0
    values = [d["value"] for d in json.loads(out)["dice"]]
    assert "cow" in values and 6 not in values
    code, out, _ = _run(["read", str(photo), "--json"], capsys)
    assert 6 in [d["value"] for d in json.loads(out)["dice"]]   # no game: the pip reader's face
    code, out, _ = _run(["read", str(photo), "--game", "kuh_vadis"], capsys)
    assert "cow " in out


def test_a_settled_rolls_faces_and_votes_are_named_as_the_game_names_them():
    """`watch --game kuh_vadis` prints the cow in the values and in the frames' votes."""
    from vision.dice import Die, Roll
    roll = Roll(100, 100, (Die((0, 0, 9, 9), 6, 0.9, None, 1.0, frames=3,
                               value_votes=((6, 2), (5, 1))),
                           Die((20, 0, 29, 9), 2, 0.9, None, 1.0)))
    named = read_cmd.as_game_faces(roll, read_cmd.symbol_sides("kuh_vadis"))
    assert named.values == ("cow", 2)
    assert named.dice[0].value_votes == (("cow", 2), (5, 1))
    assert read_cmd.as_game_faces(roll, read_cmd.symbol_sides("knister")) is roll
    assert read_cmd.symbol_sides(None) == {}


def test_a_black_and_white_photo_is_said_to_show_no_colours(photos, tmp_path, capsys):
    """The dice of a black-and-white photo are read, and the colours named for them are said
    to be guesses; a colour photo says nothing of the kind."""
    good, _, _, sc = photos
    grey = tmp_path / "grey.jpg"
    cv2.imwrite(str(grey), cv2.cvtColor(sc.image, cv2.COLOR_BGR2GRAY))
    code, out, err = _run(["read", str(grey), "--json"], capsys)
    assert code == 0 and json.loads(out)["dice"]
    assert all(d["colour_confidence"] == 0 for d in json.loads(out)["dice"])
    code, out, err = _run(["read", str(grey)], capsys)
    assert code == 0 and "the picture shows no colours" in err
    code, out, err = _run(["read", str(good)], capsys)
    assert code == 0 and "no colours" not in err


def test_a_small_picture_is_said_to_be_small(photos, tmp_path, capsys):
    good, _, _, sc = photos
    small = tmp_path / "small.jpg"
    cv2.imwrite(str(small), cv2.resize(sc.image, (64, 48), interpolation=cv2.INTER_AREA))
    code, out, err = _run(["read", str(small)], capsys)
    assert code == 0 and "the picture is small (64x48 pixels)" in err
    code, out, err = _run(["read", str(good)], capsys)
    assert code == 0 and "small" not in err
