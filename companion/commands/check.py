"""`dice-companion check`: check a sheet typed in from paper; list every problem."""
from __future__ import annotations

from ..cli import EXIT_OK, EXIT_RULE, count
from ._common import add_game_arguments, game_and_sheet, print_json


def register(sub) -> None:
    p = sub.add_parser("check", help="check a paper sheet: every rule problem and the score")
    add_game_arguments(p)
    p.add_argument("sheet", metavar="SHEET.json")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def run(args) -> int:
    game, sheet = game_and_sheet(args, args.sheet)
    problems = game.problems(sheet)
    score = game.score(sheet)
    if args.json:
        print_json({"game": game.name, "ok": not problems, "problems": problems,
                    **score.to_json()})
    else:
        if problems:
            print(f"{count(len(problems), 'problem')}:")
            for problem in problems:
                print(f"- {problem}")
        else:
            print("no problems: the sheet follows every rule")
        print(f"score: {score.total}")
    return EXIT_RULE if problems else EXIT_OK
