"""What a tester found the command line doing wrong: bad input that ended in a traceback, or
was taken silently (folders made at the filesystem's root, an input photo overwritten, a
dice-set file that reads nothing), and words that were not English. The README's promise:
bad input is ONE line on stderr and exit code 2."""
import json
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from companion.cli import main

ROOT = Path(__file__).resolve().parents[2]
PHOTO = ROOT / "sample_images" / "knister_1.jpg"     # two white dice


def run(capsys, *argv):
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:          # argparse refuses bad arguments this way
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def default_ctrl_c() -> None:
    """In a child before it starts: Ctrl-C (SIGINT) handled by default, whatever the parent."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def one_line(err: str) -> bool:
    return len(err.strip().splitlines()) == 1 and "Traceback" not in err


def play(typed: str, *argv) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "companion", "play", *argv], input=typed,
                          capture_output=True, text=True, timeout=120, cwd=ROOT)


@pytest.fixture
def no_serving(monkeypatch):
    """`serve` returns where it would start serving: a check that lets bad input through
    fails its test rather than serving for ever."""
    monkeypatch.setattr("companion.server.serve", lambda front, sockets: None)


@pytest.fixture
def photo(tmp_path):
    """A copy of a sample photo (a test that goes wrong overwrites no file of the project)."""
    copy = tmp_path / "table.jpg"
    shutil.copy(PHOTO, copy)
    return copy


class TestReadModel:
    """1. `read --model FILE`: a file that is not a face reader is one line, exit 2."""

    @pytest.mark.parametrize("kind", ["text", "empty", "detector"])
    def test_a_file_that_is_no_face_reader(self, capsys, tmp_path, photo, kind):
        model = {"text": tmp_path / "model.txt", "empty": tmp_path / "empty.onnx",
                 "detector": ROOT / "models" / "dice_detect.onnx"}[kind]
        if kind == "text":
            model.write_text("not a model\n")
        elif kind == "empty":
            model.write_bytes(b"")
        code, out, err = run(capsys, "read", "--model", model, photo)
        assert code == 2 and out == "" and one_line(err), err
        assert f"{model}: cannot use this model: " in err


class TestReadDraw:
    """2. `read --draw OUT`: what OpenCV cannot write, and an input photo, are refused before
    any photo is read."""

    @pytest.mark.parametrize("name", ["out.txt", "out", "folder"])
    def test_a_drawing_opencv_cannot_write(self, capsys, tmp_path, photo, name):
        (tmp_path / "folder").mkdir()
        code, out, err = run(capsys, "read", photo, "--draw", tmp_path / name)
        assert code == 2 and out == "" and one_line(err), err
        assert str(tmp_path / name) in err

    def test_the_drawing_may_not_overwrite_a_photo(self, capsys, photo):
        before = photo.read_bytes()
        code, out, err = run(capsys, "read", photo, "--draw", photo)
        assert code == 2 and one_line(err) and "is one of the photos" in err
        assert photo.read_bytes() == before


@pytest.mark.usefixtures("no_serving")
class TestServeArguments:
    """3. and 4. `serve`: ports, threads and databases it cannot use are refused."""

    @pytest.mark.parametrize("argv, message", [
        (["--port", "99999"], "argument --port: must be 1-65535, not 99999"),
        (["--port", "0"], "argument --port: must be 1-65535, not 0"),
        (["--https-port", "70000"], "argument --https-port: must be 1-65535"),
        (["--threads", "0"], "argument --threads: must be 1 or more, not 0"),
        (["--port", "65535"], "no port after 65535 for HTTPS"),
    ])
    def test_ports_and_threads_out_of_range(self, capsys, tmp_path, argv, message):
        code, out, err = run(capsys, "serve", "--no-qr", "--host", "127.0.0.1",
                             "--instance", tmp_path / "i", *argv)
        assert code == 2 and message in err and one_line(err), err

    def test_a_file_that_is_not_sqlite(self, capsys, tmp_path):
        db = tmp_path / "notes.txt"
        db.write_text("shopping list\n")
        code, out, err = run(capsys, "serve", "--no-qr", "--instance", tmp_path / "i",
                             "--db", db)
        assert code == 2 and one_line(err), err
        assert f"{db}: cannot use this SQLite database" in err
        assert db.read_text() == "shopping list\n"

    def test_a_url_of_a_store_it_does_not_know(self, capsys, tmp_path, monkeypatch):
        monkeypatch.chdir(tmp_path)
        code, out, err = run(capsys, "serve", "--no-qr", "--instance", tmp_path / "i",
                             "--db", "mysql://user:secret@host/x")
        assert code == 2 and one_line(err), err
        assert "a mysql:// URL is not a store" in err and "secret" not in err
        assert not (tmp_path / "mysql:").exists()


class TestOutputFolders:
    """6. An output whose folder does not exist is refused and the folder not made; the
    calibration's fault is not laid at the photo's door."""

    def test_read_calibrate_names_the_calibration(self, capsys, tmp_path, photo):
        cal = tmp_path / "missing" / "cal.json"
        code, out, err = run(capsys, "read", "--calibrate", cal, photo)
        assert code == 2 and one_line(err), err
        assert f"{cal}: cannot write the calibration" in err and "table.jpg" not in err
        assert not cal.parent.exists()

    def test_teach_makes_no_folder(self, capsys, tmp_path, photo):
        (tmp_path / "crops" / "3").mkdir(parents=True)
        shutil.copy(photo, tmp_path / "crops" / "3" / "a.jpg")
        out_file = tmp_path / "missing" / "dice.npz"
        code, out, err = run(capsys, "teach", out_file, tmp_path / "crops")
        assert code == 2 and one_line(err) and "cannot write the dice-set file" in err, err
        assert not out_file.parent.exists()

    @pytest.mark.usefixtures("no_serving")
    def test_serve_makes_no_folder_for_its_database(self, capsys, tmp_path):
        db = tmp_path / "missing" / "x.sqlite"
        code, out, err = run(capsys, "serve", "--no-qr", "--instance", tmp_path / "i",
                             "--db", db)
        assert code == 2 and one_line(err) and "cannot write the database" in err, err
        assert not db.parent.exists()


class TestTeachLabels:
    """7. A label that is no face of the dice writes nothing."""

    def test_the_faces_are_those_the_games_dice_show(self):
        from companion.commands.teach import known_faces
        assert known_faces() == (1, 2, 3, 4, 5, 6, "cow")

    def test_a_folder_named_for_no_face(self, capsys, tmp_path, photo):
        for label in ("3", "7"):
            (tmp_path / "crops" / label).mkdir(parents=True)
            shutil.copy(photo, tmp_path / "crops" / label / "a.jpg")
        code, out, err = run(capsys, "teach", tmp_path / "dice.npz", tmp_path / "crops")
        assert code == 2 and one_line(err), err
        assert "'7' is not a face the dice show (faces: 1, 2, 3, 4, 5, 6, cow)" in err
        assert not (tmp_path / "dice.npz").exists()

    def test_a_csv_line_with_no_face(self, capsys, tmp_path, photo):
        labels = tmp_path / "labels.csv"
        labels.write_text("filename,value\ntable.jpg,4\ntable.jpg,banana\n")
        code, out, err = run(capsys, "teach", tmp_path / "dice.npz", "--csv", labels)
        assert code == 2 and one_line(err), err
        assert f"{labels}:3: 'banana' is not a face" in err
        assert not (tmp_path / "dice.npz").exists()


class TestAdvise:
    """8., 9. and 10.: `--top` and `--players`, what the figures are, the dice by name."""

    def test_top_limits_the_colours_to_roll(self, capsys):
        code, out, _ = run(capsys, "advise", "--game", "qwinto", "--top", "2")
        assert code == 0 and len(out.strip().splitlines()) == 1 + 2      # the header + 2
        code, out, _ = run(capsys, "advise", "--game", "qwinto", "--top", "2", "--json")
        assert code == 0 and len(json.loads(out)["dice"]) == 2

    def test_no_players_is_refused(self, capsys):
        code, out, err = run(capsys, "advise", "--game", "knister", "--roll", "3 5",
                             "--players", "0")
        assert code == 2 and out == "" and one_line(err)
        assert "--players must be 1 or more, not 0" in err

    @pytest.mark.parametrize("argv, header", [
        (["--game", "qwinto"], "figures: expected final score"),
        (["--game", "knister", "--roll", "3 5"], "figures: expected final score"),
        (["--game", "kuh_vadis", "--roll", "cow cow 3 3 1"], "figures: chance to win"),
        (["--game", "twenty_one", "--players", "2", "--roll",
          "yellow:6 red:2 green:2 blue:2 white:2 black:2"],
         "figures: expected final score less a cost for each turn"),
    ])
    def test_a_header_says_what_the_figures_are(self, capsys, argv, header):
        code, out, _ = run(capsys, "advise", *argv)
        assert code == 0 and out.splitlines()[0].startswith(header), out

    def test_dice_to_roll_again_are_named_as_the_roll_shows_them(self, capsys):
        roll = "yellow:6 red:2 green:2 blue:2 white:2 black:2"
        code, out, _ = run(capsys, "advise", "--game", "twenty_one", "--roll", roll)
        assert code == 0 and "die 1" not in out
        assert "roll again: yellow 6, red 2, green 2, blue 2, white 2, black 2 " in out
        code, out, _ = run(capsys, "advise", "--game", "kuh_vadis", "--roll", "cow cow 3 3 1")
        assert code == 0 and "roll again: 3, 3, 1 " in out and "die " not in out
        code, out, _ = run(capsys, "advise", "--game", "kuh_vadis", "--roll", "cow cow 3 3 1",
                           "--json")
        rerolls = [d for d in json.loads(out)["dice"] if d["action"] == "reroll"]
        assert [3, 4, 5] in [d["dice"] for d in rerolls]      # the JSON keeps the positions


class TestLegalOrder:
    """11. Columns in numeric order, the specials last."""

    def test_columns_as_numbers(self, capsys):
        order = ["O3@2", "O3@3", "O3@4", "O3@6", "O3@7", "O3@8", "O3@9", "O3@10", "O3@11",
                 "fail"]
        code, out, _ = run(capsys, "legal", "--game", "qwinto", "--roll", "orange:3")
        assert code == 0 and out.split() == order
        code, out, _ = run(capsys, "legal", "--game", "qwinto", "--roll", "orange:3", "--json")
        assert json.loads(out)["legal"] == order


class TestWords:
    """12. English: singulars, "no dice", Knister's one attempt, "1 point"."""

    def test_one_problem(self, capsys, tmp_path):
        sheet = tmp_path / "sheet.json"
        sheet.write_text(json.dumps({"rows": {"orange": [5, 4] + [None] * 7}}))
        code, out, _ = run(capsys, "check", "--game", "qwinto", sheet)
        assert code == 1 and "1 problem:" in out and "problem(s)" not in out

    def test_one_example(self, capsys, tmp_path, photo):
        (tmp_path / "crops" / "cow").mkdir(parents=True)
        shutil.copy(photo, tmp_path / "crops" / "cow" / "a.jpg")
        code, out, _ = run(capsys, "teach", tmp_path / "dice.npz", tmp_path / "crops")
        assert code == 0 and ": 1 example (cow: 1);" in out

    def test_a_photo_with_no_dice(self, capsys, tmp_path):
        import cv2
        import numpy as np
        blank = tmp_path / "blank.png"
        cv2.imwrite(str(blank), np.full((240, 320, 3), 90, np.uint8))
        code, out, _ = run(capsys, "read", blank)
        assert code == 0 and out.startswith(f"{blank}: no dice (") and "0 dice" not in out

    def test_knister_has_one_attempt(self, capsys):
        code, _, err = run(capsys, "advise", "--game", "knister", "--roll", "3 5",
                           "--attempt", "2")
        assert code == 2 and one_line(err)
        assert "Knister has one attempt per turn: --attempt must be 1" in err

    def test_one_point(self):
        # Qwinto: one number written in a row scores 1
        proc = play("orange:3 yellow:4\n\n1\n", "--game", "qwinto", "--players", "1")
        assert proc.returncode == 0, proc.stderr
        assert "Player 1: 1 point\n" in proc.stdout


class TestPlayLeaving:
    """5. and 15. Leaving a game, and the prompt of a later attempt."""

    @pytest.mark.parametrize("word", ["quit", "q", "QUIT"])
    def test_quit_at_a_prompt(self, word):
        proc = play(f"3 5\n{word}\n", "--game", "knister", "--players", "2")
        assert proc.returncode == 0 and proc.stderr == "", proc.stderr
        assert "(type quit or q at any prompt to leave the game)" in proc.stdout
        assert proc.stdout.endswith("game left unfinished\n")
        assert "refused" not in proc.stdout

    def test_ctrl_c_is_one_line_and_exit_130(self):
        # The game is started as a terminal starts it, with Ctrl-C's default handling: a suite
        # run as a background job of a shell inherits SIGINT ignored, and Python then rightly
        # never raises KeyboardInterrupt (the game would end at the end of input instead).
        proc = subprocess.Popen([sys.executable, "-m", "companion", "play", "--game", "knister",
                                 "--players", "1"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                cwd=ROOT, preexec_fn=default_ctrl_c)
        seen = ""
        while "dice (Enter" not in seen:       # waiting at the first prompt
            char = proc.stdout.read(1)
            assert char, seen
            seen += char
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 130 and err == "", err
        assert out.strip().splitlines()[-1] == "interrupted: game left unfinished"

    def test_a_later_attempt_says_which_and_that_the_whole_roll_is_typed(self):
        proc = play("orange:3 yellow:4\n", "--game", "qwinto", "--players", "1")
        assert ("Player 1, attempt 2 of 2: type the whole roll again, or Enter to keep: "
                in proc.stdout), proc.stdout


class TestDiceSetAndSheetFiles:
    """13. and 14. A file that is no dice set; sheets with a byte order mark, and empty."""

    def test_a_photo_given_as_the_dice_set(self, capsys, tmp_path, photo):
        not_a_set = tmp_path / "text.jpg"
        not_a_set.write_text("hello\n")
        code, out, err = run(capsys, "read", "--dice-set", not_a_set, photo)
        assert code == 2 and out == "" and one_line(err)
        assert err.startswith(f"dice-companion read: {not_a_set}: cannot use this dice set: "
                              "not a dice-set file")
        assert err.count(str(not_a_set)) == 1 and "allow_pickle" not in err

    def test_a_sheet_saved_with_a_byte_order_mark(self, capsys, tmp_path):
        sheet = tmp_path / "notepad.json"
        sheet.write_bytes(b"\xef\xbb\xbf" + json.dumps({"grid": [[2, 3, 4, 5, 6]]
                                                                + [[None] * 5] * 4}).encode())
        code, out, err = run(capsys, "score", "--game", "knister", sheet)
        assert code == 0, err

    def test_an_empty_sheet(self, capsys, tmp_path):
        sheet = tmp_path / "empty.json"
        sheet.write_text("\n")
        code, out, err = run(capsys, "check", "--game", "knister", sheet)
        assert code == 2 and one_line(err) and f"{sheet}: empty file" in err
        assert "Expecting value" not in err
