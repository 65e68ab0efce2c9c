"""`dice-companion score`: a sheet's score with its line-by-line breakdown."""
from __future__ import annotations

import sys

from ..cli import count
from ._common import add_game_arguments, game_and_sheet, print_json


def register(sub) -> None:
    p = sub.add_parser("score", help="score a sheet (JSON) with its breakdown")
    add_game_arguments(p)
    p.add_argument("sheet", metavar="SHEET.json")
    p.add_argument("--final", action="store_true",
                   help="score as at the end of the game (twenty one: the current row counts)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def run(args) -> int:
    game, sheet = game_and_sheet(args, args.sheet)
    score = game.score(sheet, final=args.final)
    problems = game.problems(sheet)
    if args.json:
        print_json({"game": game.name, "layout": game.layout.info.name,
                    **score.to_json(), "problems": problems})
    else:
        print(score)
    if problems:
        print(f"note: this sheet breaks {count(len(problems), 'rule')}; "
              f"`dice-companion check` lists them", file=sys.stderr)
    return 0
