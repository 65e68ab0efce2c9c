"""User stories for the rules commands: score, legal, check, play (exit codes 0/1/2)."""
import json
import subprocess
import sys

import pytest

from companion.cli import main

SARAH = {"rows": {"orange": [None, 5, None, None, None, 11, 14, 15, None],
                  "yellow": [1, 2, 3, 4, 6, 7, 10, 13, 16],
                  "purple": [1, 2, None, 4, None, 7, None, 9, 12]},
         "failed_attempts": 2}


@pytest.fixture
def sheet_file(tmp_path):
    def write(data, name="sheet.json"):
        path = tmp_path / name
        path.write_text(data if isinstance(data, str) else json.dumps(data))
        return str(path)
    return write


def run(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as exc:          # argparse refuses bad arguments this way
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


class TestScore:
    def test_score_with_breakdown(self, capsys, sheet_file):
        code, out, _ = run(capsys, "score", "--game", "qwinto", sheet_file(SARAH))
        assert code == 0
        assert "yellow row: 16" in out and out.strip().endswith("total: 43")

    def test_score_as_json(self, capsys, sheet_file):
        code, out, _ = run(capsys, "score", "--game", "qwinto", sheet_file(SARAH), "--json")
        data = json.loads(out)
        assert code == 0 and data["total"] == 43 and len(data["lines"]) == 7

    def test_twenty_one_sheet_names_its_layout(self, capsys, sheet_file):
        emma = {"layout": "B", "rows": [[5, "x", 4, 2, 2, 1]] + [[None] * 6] * 4}
        code, out, _ = run(capsys, "score", "--game", "twenty_one", sheet_file(emma), "--json")
        assert code == 0 and json.loads(out)["total"] == 20


class TestLegal:
    def test_legal_for_another_player(self, capsys, sheet_file):
        code, out, _ = run(capsys, "legal", "--game", "qwinto", "--sheet", sheet_file(SARAH),
                           "--roll", "orange:3 purple:5", "--role", "other")
        assert code == 0
        assert out.split() == ["O8@4", "O8@6", "O8@7", "P8@7", "pass"]

    def test_legal_on_a_new_sheet_as_json(self, capsys):
        code, out, _ = run(capsys, "legal", "--game", "knister", "--roll", "3 5", "--json")
        data = json.loads(out)
        assert code == 0 and len(data["legal"]) == 25 and data["role"] == "roller"


class TestGraphGames:
    def test_kuh_vadis_legal_marks_for_two_cows(self, capsys):
        code, out, _ = run(capsys, "legal", "--game", "kuh_vadis", "--roll", "cow cow 1 2 4")
        marks = out.split()
        assert code == 0 and "pass" in marks and "Acow@2" in marks
        assert all(m == "pass" or "cow" in m for m in marks)

    def test_kuh_vadis_legal_says_which_marks_are_quads(self, capsys):
        code, out, _ = run(capsys, "legal", "--game", "kuh_vadis", "--roll", "4 4 4 4 cow")
        lines = out.splitlines()
        assert code == 0 and "C4@5  (quad: mark, then roll again)" in lines and "pass" in lines
        code, out, _ = run(capsys, "legal", "--game", "kuh_vadis", "--roll", "4 4 4 4 cow",
                           "--json")
        data = json.loads(out)
        assert "C4@5" in data["another_turn"] and "pass" not in data["another_turn"]
        code, out, _ = run(capsys, "legal", "--game", "kuh_vadis", "--roll", "4 4 4 cow 1",
                           "--json")
        assert json.loads(out)["another_turn"] == []
        proc = subprocess.run([sys.executable, "-m", "companion", "play", "--game", "kuh_vadis",
                               "--players", "2"], input="4 4 4 4 cow\n\n",
                              capture_output=True, text=True, timeout=60)
        assert "3. C4@5  (quad: mark, then roll again)" in proc.stdout

    def test_the_choice_sheet_scores_and_checks(self, capsys, sheet_file):
        code, out, _ = run(capsys, "legal", "--game", "the_choice",
                           "--roll", "green:6 green:1 yellow:2", "--json")
        assert code == 0 and len(json.loads(out)["legal"]) > 10
        maria = {"layout": "default", "first_side": "front", "playing": "back",
                 "front": {"colours": list(range(2, 13)),
                           "numbers": [6, 8, 10, 12, 7, 3, 1, 2, 9, 4, 5], "misthrows": 3},
                 "back": {"colours": [0, 1, 2, 3, 4],
                          "numbers": [9, 11, 4, 13, 6, 5, 12, 2, 7, 1], "misthrows": 1}}
        code, out, _ = run(capsys, "score", "--game", "the_choice", sheet_file(maria),
                           "--json")
        assert code == 0 and json.loads(out)["total"] == 61
        code, out, _ = run(capsys, "check", "--game", "the_choice", sheet_file(maria))
        assert code == 0 and "no problems" in out


class TestCheck:
    def test_a_correct_sheet(self, capsys, sheet_file):
        code, out, _ = run(capsys, "check", "--game", "qwinto", sheet_file(SARAH))
        assert code == 0 and "no problems" in out and "score: 43" in out

    def test_every_problem_is_listed_with_exit_1(self, capsys, sheet_file):
        bad = {"rows": {"orange": [5, 4, None, None, None, None, None, None, None],
                        "yellow": [None, 5, None, None, None, None, None, None, None]}}
        code, out, _ = run(capsys, "check", "--game", "qwinto", sheet_file(bad))
        assert code == 1
        assert "2 problems:" in out
        assert "greater than the 5 to its left" in out and "5 stands twice" in out


class TestAdvise:
    """A player asks what to write: every legal placement ranked, with a reason."""

    def test_every_legal_placement_is_ranked_and_the_exact_hit_is_first(self, capsys,
                                                                      sheet_file):
        sheet = sheet_file({"layout": "A", "rows": [[None, 4, 3, 2, 1, 1]] + [[None] * 6] * 4})
        roll = "yellow:6 red:2 green:2 blue:2 white:2 black:2"
        code, out, _ = run(capsys, "advise", "--game", "twenty_one", "--sheet", sheet,
                           "--roll", roll, "--attempt", "2")
        assert code == 0
        figures, *lines = out.strip().splitlines()
        assert figures.startswith("figures: ")                  # what the figures are
        assert lines[0].split()[:2] == ["1.", "A6@0"] and "exact hit" in lines[0]
        _, legal, _ = run(capsys, "legal", "--game", "twenty_one", "--sheet", sheet,
                          "--roll", roll)
        assert len(lines) == len(legal.split())       # no dice: the last attempt

    def test_json_with_the_rollers_dice_choices(self, capsys, sheet_file):
        code, out, _ = run(capsys, "advise", "--game", "qwinto", "--sheet", sheet_file(SARAH),
                           "--roll", "orange:3 purple:5", "--json", "--seed", "3")
        data = json.loads(out)
        assert code == 0 and data["role"] == "roller"
        assert {o["placement"] for o in data["options"]} == {"O8@4", "O8@6", "O8@7", "P8@7",
                                                             "fail"}
        assert {d["action"] for d in data["dice"]} == {"keep", "reroll"}
        expected = [o["expected"] for o in data["options"]]
        assert expected == sorted(expected, reverse=True)

    def test_kuh_vadis_a_two_player_game_by_default_with_the_dice_to_keep(self, capsys):
        code, out, _ = run(capsys, "advise", "--game", "kuh_vadis", "--roll", "cow cow 3 3 1",
                           "--json")
        data = json.loads(out)
        assert code == 0 and data["options"][0]["expected"] <= 1
        assert any(d["action"] == "reroll" for d in data["dice"])

    def test_qwinto_before_the_roll_which_colours(self, capsys):
        code, out, _ = run(capsys, "advise", "--game", "qwinto", "--json")
        data = json.loads(out)
        assert code == 0 and len(data["dice"]) == 7
        assert all(d["action"] == "roll" for d in data["dice"])

    def test_before_the_roll_the_advisor_says_which_games_choose_dice(self, capsys,
                                                                      monkeypatch):
        """Without `--roll` the command asks the advisor for the dice to choose
        (`colour_choices`), whatever the game is called; a game with none needs `--roll`."""
        from companion.commands import advise as advise_cmd
        from engine.advice.types import DiceChoice
        monkeypatch.setattr(advise_cmd, "colour_choices", lambda game, sheet: (
            DiceChoice("roll", ("white", "black"), 7.5, "both dice"),))
        code, out, _ = run(capsys, "advise", "--game", "knister", "--json")
        assert code == 0 and json.loads(out)["dice"][0]["expected"] == 7.5
        monkeypatch.setattr(advise_cmd, "colour_choices", lambda game, sheet: ())
        code, out, err = run(capsys, "advise", "--game", "qwinto")
        assert code == 2 and "--roll is required for Qwinto" in err

    @pytest.mark.parametrize("argv, message", [
        (["--game", "knister"], "--roll is required for Knister"),
        (["--game", "knister", "--roll", "3 3 3"], "rolled with two dice"),
        (["--game", "knister", "--roll", "3 3", "--budget-ms", "0"], "--budget-ms must be"),
        (["--game", "kuh_vadis", "--roll", "1 1 1 2 2", "--attempt", "4"],
         "--attempt must be 1-3"),
    ])
    def test_bad_input_one_line_exit_2(self, capsys, argv, message):
        code, out, err = run(capsys, "advise", *argv)
        assert code == 2 and message in err and out == ""
        assert len(err.strip().splitlines()) == 1


class TestBadInput:
    @pytest.mark.parametrize("argv, message", [
        (["score", "--game", "chess", "SHEET"], "unknown game 'chess'"),
        (["score", "--game", "qwinto", "/no/such.json"], "no such file"),
        (["legal", "--game", "qwinto", "--roll", "orange:9"], "a die face must be 1-6"),
        (["legal", "--game", "qwinto", "--roll", "red:3"], "not a Qwinto die"),
        (["legal", "--game", "qwinto", "--roll", "orange:3", "--role", "boss"], "invalid choice"),
        (["check", "--game", "knister", "NOTJSON"], "not a JSON sheet"),
        (["check", "--game", "knister", "SHEET"], "'rows' is not part of a Knister sheet"),
        (["score", "--game", "qwinto", "--layout", "nope", "SHEET"], "no built-in layout"),
        (["play", "--game", "twenty_one", "--players", "2", "--layout", "A"],
         "in twenty one every player gets a different sheet"),
        (["play", "--game", "qwinto", "--players", "2", "--layout", "a.json,b.json,c.json"],
         "--layout names 3 layouts for 2 players"),
        (["score", "--game", "twenty_one", "UNKNOWN_LAYOUT"],
         'the sheet names the layout "Z", which twenty one does not have'),
        (["legal", "--game", "twenty_one", "--roll", "1 2 3 4 5 6"],
         "missing: white, black, red, blue, yellow, green (write each die as colour:face"),
        (["legal", "--game", "kuh_vadis", "--roll", "red:1 2 3 4 5"],
         "'red:1' names a colour: Kuh Vadis dice have none"),
    ])
    def test_one_line_on_stderr_and_exit_2(self, capsys, sheet_file, argv, message):
        argv = [sheet_file(SARAH) if a == "SHEET" else
                sheet_file("{not json", "bad.json") if a == "NOTJSON" else
                sheet_file({"layout": "Z", "rows": [[None] * 6] * 5}, "z.json")
                if a == "UNKNOWN_LAYOUT" else a for a in argv]
        code, out, err = run(capsys, *argv)
        assert code == 2
        assert message in err
        assert len(err.strip().splitlines()) == 1 or "usage:" in err

    @pytest.mark.parametrize("text, message", [
        ("[" * 5000 + "]" * 5000, "nested more than 20 deep"),
        ('{"rows": {"orange": [' + "9" * 5000 + "]}}", "is too large"),
        ('{"rows": {"orange": [1e999]}}', "is too large"),
        ('{"rows": {"orange": [NaN]}}', "NaN is not a JSON number"),
        ('{"rows": {"orange": ["\\ud800"]}}', "lone surrogate"),
    ], ids=["deep", "4300 digits", "1e999", "NaN", "surrogate"])
    def test_hostile_json_files_exit_2_with_one_line(self, capsys, sheet_file, text, message):
        for command in ("score", "check"):
            code, out, err = run(capsys, command, "--game", "qwinto", sheet_file(text))
            assert code == 2 and message in err and len(err.strip().splitlines()) == 1

    def test_a_layout_file_nested_too_deep_exits_2(self, capsys, sheet_file):
        layout = sheet_file("[" * 3000 + "]" * 3000, "deep.json")
        code, out, err = run(capsys, "play", "--game", "qwinto", "--players", "1",
                             "--layout", layout)
        assert code == 2 and "nested more than 20 deep" in err

    def test_an_endless_file_is_read_only_up_to_the_limit(self):
        # /dev/zero reports a size of 0: the limit must count what is read, not trust the size
        done = subprocess.run([sys.executable, "-m", "companion.cli", "score", "--game", "qwinto",
                               "/dev/zero"], capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and "larger than 1 MB" in done.stderr


class TestPlay:
    @pytest.mark.parametrize("game, players", [("qwinto", 3), ("knister", 3),
                                               ("twenty_one", 3), ("kuh_vadis", 2),
                                               ("the_choice", 3)])
    def test_a_random_game_runs_to_the_ranking(self, capsys, game, players):
        code, out, _ = run(capsys, "play", "--game", game, "--players", str(players),
                           "--seed", "4", "--random")
        assert code == 0 and "Game over. Ranking:" in out and "1. Player" in out

    def test_kuh_vadis_pad_shows_each_squares_need_under_its_column(self):
        # a player finds "C4@5" on the pad: row C, column 5 needs a 4, before it is marked
        proc = subprocess.run([sys.executable, "-m", "companion", "play", "--game", "kuh_vadis",
                               "--players", "2"], input="4 4 4 4 cow\n\n3\n1 2 3 5 cow\n\n",
                              capture_output=True, text=True, timeout=60)
        lines = proc.stdout.splitlines()
        header = next(i for i, line in enumerate(lines) if line.split() == list("0123456"))
        row_c = lines[header + 3].split()
        assert row_c[0] == "C" and row_c[1 + 5] == "4"
        assert lines[header + 1].split()[1:] == ["O", "4", "cow", "X", "5", "3", "O"]
        assert "B1@5: mark the square in row B, column 5" in proc.stdout
        # after C4@5 the square shows the roller's cross
        later = next(i for i, line in enumerate(lines) if i > header
                     and line.split() == list("0123456"))
        assert lines[later + 3].split()[1 + 5] == "X"

    def test_the_choice_sheet_shows_the_ring_the_numbers_and_what_is_written(self):
        # Player 1 crosses the number 5 at position 7 with dice 2 and 3 and a misthrow
        proc = subprocess.run([sys.executable, "-m", "companion", "play", "--game",
                               "the_choice", "--players", "2"],
                              input="\n\ngreen:6 red:2 purple:3\n\nMx@0 N5@7/23\nn\n",
                              capture_output=True, text=True, timeout=60)
        assert "colour ring (R): 0:green 1:red 2:purple 3:blue" in proc.stdout
        assert "numbers (N; x#k: drawn k-th): 0:6 1:7 2:3" in proc.stdout
        assert "misthrows: 0 of 3" in proc.stdout
        assert "N7@1/13: the number 7 at position 1 with dice 1 and 3" in proc.stdout
        after = proc.stdout.split("Player 2 (other), your sheet:")[1]
        assert "7:5 x#1" not in after     # Player 2's own sheet is still empty
        assert "misthrows: 0 of 3" in after

    def test_the_same_seed_plays_the_same_game(self, capsys):
        a = run(capsys, "play", "--game", "qwinto", "--players", "2", "--seed", "9", "--random")
        b = run(capsys, "play", "--game", "qwinto", "--players", "2", "--seed", "9", "--random")
        assert a == b

    def test_advisor_bots_beside_a_person(self):
        # Player 1 types 3 and 5 and writes the 8; Bot 1 writes it where the advisor says
        # and says why, then rolls on its own; input ends at Player 1's next choice.
        proc = subprocess.run([sys.executable, "-m", "companion", "play", "--game", "knister",
                               "--players", "2", "--bots", "1", "--seed", "1"],
                              input="3 5\nA8@4\n", capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        bot = [line for line in proc.stdout.splitlines() if line.startswith("  plays ")]
        assert bot and "holds" in bot[0] and "--- Bot 1 rolls ---" in proc.stdout
        assert "game left unfinished" in proc.stdout

    def test_bots_play_a_whole_game_the_same_way_on_the_same_seed(self, capsys):
        argv = ["play", "--game", "qwinto", "--players", "3", "--bots", "2", "--seed", "5",
                "--random"]
        a = run(capsys, *argv)
        assert a[0] == 0 and "1. Bot" in a[1]
        assert a == run(capsys, *argv)

    def test_more_bots_than_players(self, capsys):
        code, _, err = run(capsys, "play", "--game", "qwinto", "--players", "2", "--bots", "3")
        assert code == 2 and "--bots must be 0-2" in err

    def test_typed_dice_and_choices(self):
        # Player 1 types the dice 3 and 5, both write the 8; then input ends.
        typed = "3 5\n1\nA8@4\n"
        proc = subprocess.run([sys.executable, "-m", "companion", "play", "--game", "knister",
                               "--players", "2", "--seed", "1"], input=typed,
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0
        assert "rolled: 3 5" in proc.stdout
        assert "Player 1: 0 points" in proc.stdout
        assert "game left unfinished" in proc.stdout

    def test_an_illegal_typed_choice_is_refused_with_the_reason(self):
        typed = "3 5\nA9@0\nA8@0\n1\n"
        proc = subprocess.run([sys.executable, "-m", "companion", "play", "--game", "knister",
                               "--players", "2"], input=typed,
                              capture_output=True, text=True, timeout=60)
        assert "refused: the dice add up to 8, not 9" in proc.stdout

    def test_a_users_layout_file_and_one_sheet_per_player(self, capsys, tmp_path):
        from engine.layouts import builtin_layout_data
        mine = tmp_path / "my-pad.json"
        mine.write_text(json.dumps(builtin_layout_data("twenty_one", "B") | {"name": "my pad"}))
        code, out, _ = run(capsys, "play", "--game", "twenty_one", "--players", "2",
                           "--layout", f"{mine},E", "--seed", "2", "--random")
        assert code == 0 and "Player 1 (my pad, RECON), Player 2 (E, RECON)" in out
        code, out, _ = run(capsys, "play", "--game", "qwinto", "--players", "1", "--layout",
                           str(mine), "--random")
        assert code == 2

    def test_the_choice_players_pick_their_side_and_who_begins(self):
        typed = "back\nmiddle\n\nred:4 purple:3 purple:5\n\n"     # Player 1 back, Player 2 front
        proc = subprocess.run([sys.executable, "-m", "companion", "play", "--game", "the_choice",
                               "--players", "2", "--first", "2"], input=typed,
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        out = proc.stdout
        assert "Player 2 begins" in out and "--- Player 2 rolls ---" in out
        assert "refused: no side 'middle': the sides are front, back" in out
        assert "Player 1 (other), your sheet:\n  (playing the back side, the first of two)\n" \
            "  back side\n" in out

    @pytest.mark.parametrize("first", ["0", "3", "Bob"])
    def test_first_must_be_a_player_or_random(self, capsys, first):
        code, _, err = run(capsys, "play", "--game", "qwinto", "--players", "2",
                           "--first", first, "--random")
        assert code == 2 and "--first must be a player 1-2 or 'random'" in err

    @pytest.mark.parametrize("game, typed, row", [
        ("twenty_one", "white:1 black:2 red:3 blue:4 yellow:5 green:6\n\n",
         "  A: yellow6@0:. red5@1:. green4@2:. blue3@3:. white2@4:. black1@5:."),
        ("qwinto", "orange:3 yellow:4\n\n", "  O orange: 2:. 3:. 4:. 6:. 7:. 8:. 9:. 10:. 11:."),
    ])
    def test_the_terminal_sheet_names_fields_as_the_paper_does(self, game, typed, row):
        """twenty one's rows show their fields' colours, Qwinto's their column positions."""
        proc = subprocess.run([sys.executable, "-m", "companion", "play", "--game", game,
                               "--players", "1"], input=typed, capture_output=True, text=True,
                              timeout=60)
        assert row in proc.stdout.splitlines(), proc.stdout

    def test_a_solo_knister_game_ends_with_the_rule_books_rating(self, capsys):
        from companion.commands.play import print_ranking
        from engine.registry import load_game
        from engine.table import Table
        k = load_game("knister")
        rows = [[2] * 5, [3] * 5, [4] * 5, [5] * 5, [6] * 5]      # five of a kind everywhere
        print_ranking(Table.new(k, ["Player 1"], sheets=[k.sheet_from_json({"grid": rows})]))
        out = capsys.readouterr().out
        assert out.endswith("1. Player 1: 158 (amazing: 100 points or more)\n")
        duo = Table.new(k, ["a", "b"], sheets=[k.sheet_from_json({"grid": rows})] * 2)
        print_ranking(duo)
        assert "amazing" not in capsys.readouterr().out     # a rating for playing alone only

    def test_twenty_one_dice_typed_without_colours_are_refused(self):
        proc = subprocess.run([sys.executable, "-m", "companion", "play", "--game", "twenty_one",
                               "--players", "2"], input="1 2 3 4 5 6\n",
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
        assert "refused: twenty one is rolled with six dice" in proc.stdout
        assert "missing: white, black, red, blue, yellow, green" in proc.stdout

    def test_too_many_players(self, capsys):
        code, _, err = run(capsys, "play", "--game", "qwinto", "--players", "9")
        assert code == 2 and "1-6 players" in err
