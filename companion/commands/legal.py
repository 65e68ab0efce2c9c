"""`dice-companion legal`: every placement a player may make for a roll."""
from __future__ import annotations

from engine.game import ROLES, ROLLER

from ._common import add_game_arguments, game_and_sheet, parse_roll, print_json


def register(sub) -> None:
    p = sub.add_parser("legal", help="list the legal placements for a roll")
    add_game_arguments(p)
    p.add_argument("--sheet", metavar="SHEET.json", help="the sheet (default: a new one)")
    p.add_argument("--roll", required=True, help='the dice, e.g. "orange:3 purple:5"')
    p.add_argument("--role", choices=ROLES, default=ROLLER,
                   help="the roller or another player (default: roller)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


AGAIN = "quad: mark, then roll again"    # after a placement that gives another turn


def placement_key(placement) -> tuple:
    """The order placements are listed in: by their marks' rows, then columns as numbers
    (O3@2 before O3@10, which their text puts after it), then values (numbers before words
    such as "cow"); the specials without marks (pass, fail, cross, misthrow) last."""
    marks = tuple((m.row, m.col, isinstance(m.value, str),
                   m.value if isinstance(m.value, int) else 0, str(m.value), m.dice)
                  for m in placement.marks)
    return (not placement.marks, marks, str(placement))


def run(args) -> int:
    game, sheet = game_and_sheet(args, args.sheet)
    roll = parse_roll(game, args.roll)
    placements = sorted(game.legal(sheet, roll, args.role), key=placement_key)
    legal = [str(p) for p in placements]
    # Kuh Vadis: a square marked with a quad gives the roller another turn
    again = [str(p) for p in placements if game.gives_another_turn(roll, p)]
    if args.json:
        print_json({"game": game.name, "roll": str(roll), "role": args.role, "legal": legal,
                    "another_turn": again})
    else:
        for text in legal:
            print(f"{text}  ({AGAIN})" if text in again else text)
    return 0
