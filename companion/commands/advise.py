"""`dice-companion advise`: the advisor's ranking of every legal placement for a roll.

Each placement with the expected final score it leads to and a one-line reason; a
roller who may still roll (`--attempt` below the game's attempts) also gets the dice
choices. Qwinto without `--roll`: which colours to roll. The budget is CPU time of this
process (`time.process_time`).
"""
from __future__ import annotations

import time

from engine.advice import DEFAULT_BUDGET_MS, advise, colour_choices, evaluator_for
from engine.errors import InvalidInput
from engine.game import ROLES, ROLLER

from ..cli import BadInput
from ._common import add_game_arguments, game_and_sheet, parse_roll, print_json

# what the figures are (`Advice.figure`, engine.advice.types.FIGURES), said before the list:
# a bare 0.62 or 127.39 does not say whether it is points or a chance
FIGURE_WORDS = {"points": "expected final score",
                "chance": "chance to win (1 = sure)",
                "relative": "expected final score less a cost for each turn still needed "
                            "(only their order counts)"}


def register(sub) -> None:
    p = sub.add_parser("advise", help="rank the legal placements for a roll (the advisor)")
    add_game_arguments(p)
    p.add_argument("--sheet", metavar="SHEET.json", help="the sheet (default: a new one)")
    p.add_argument("--roll", help='the dice, e.g. "orange:3 purple:5" (Qwinto without it: '
                                  'which colours to roll)')
    p.add_argument("--role", choices=ROLES, default=ROLLER,
                   help="the roller or another player (default: roller)")
    p.add_argument("--attempt", type=int, default=1, metavar="N",
                   help="which attempt this roll is (default 1: a roller may roll again)")
    p.add_argument("--players", type=int, metavar="N",
                   help="players at the table (default: the fewest the game allows, at "
                        "least 2 for another player; twenty one is valued differently alone "
                        "and at a table)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="seed (default 0)")
    p.add_argument("--budget-ms", type=float, default=DEFAULT_BUDGET_MS, metavar="N",
                   help=f"CPU time for the advice (default {DEFAULT_BUDGET_MS})")
    p.add_argument("--top", type=int, default=0, metavar="K",
                   help="show only the K best placements, or colours to roll (default: all)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def run(args) -> int:
    if args.budget_ms <= 0:
        raise BadInput(f"--budget-ms must be more than 0, not {args.budget_ms:g}")
    if args.top < 0:
        raise BadInput(f"--top must be 0 (all) or more, not {args.top}")
    if args.players is not None and args.players < 1:    # 0 is not "the default"
        raise BadInput(f"--players must be 1 or more, not {args.players}")
    game, sheet = game_and_sheet(args, args.sheet)
    players = args.players or max(game.min_players, 1 if args.role == ROLLER else 2)
    try:
        game.check_player_count(players)
    except InvalidInput as exc:
        raise BadInput(str(exc)) from None
    if not 1 <= args.attempt <= game.max_attempts:
        raise BadInput(_attempt_problem(game, args.attempt))
    if args.roll is None:
        return _colours(game, sheet, args)
    roll = parse_roll(game, args.roll)
    left = game.max_attempts - args.attempt if args.role == ROLLER else 0
    advice = advise(game, sheet, roll, args.role, attempts_left=left, players=players,
                    seed=args.seed,
                    budget_ms=args.budget_ms, clock=time.process_time)
    options = advice.options[:args.top] if args.top else advice.options
    if args.json:
        data = advice.to_json()
        data.update(roll=str(roll), options=[o.to_json() for o in options])
        print_json(data)
        return 0
    if not options:
        print(f"nothing to write: in {game.title} the {args.role} does not answer this roll")
        return 0
    dice = [choice_text(d, roll) for d in advice.dice]
    width = max(len(x) for x in [str(o.placement) for o in options] + dice)
    print(f"figures: {FIGURE_WORDS.get(advice.figure, advice.figure)}")
    for i, o in enumerate(options, 1):
        print(f"{i:>3}. {str(o.placement):<{width}}  {o.expected:7.2f}  {o.reason}")
    if advice.dice:
        print("dice:")
        for i, (d, text) in enumerate(zip(advice.dice, dice), 1):
            print(f"{i:>3}. {text:<{width}}  {d.expected:7.2f}  {d.reason}")
    return 0


def _attempt_problem(game, attempt: int) -> str:
    """Why `--attempt` is refused, in words for a game of one attempt too."""
    if game.max_attempts == 1:
        return f"{game.title} has one attempt per turn: --attempt must be 1, not {attempt}"
    return f"--attempt must be 1-{game.max_attempts} in {game.title}, not {attempt}"


def choice_text(choice, roll) -> str:
    """A dice choice as the player sees the roll: the dice to roll again named by colour and
    face ("roll again: red 3, blue 4"; colourless dice by their faces: "roll again: 1, 3")
    rather than by their positions in the roll (`DiceChoice.dice`, 1-based), which the JSON
    keeps."""
    if choice.action != "reroll":
        return str(choice)
    dice = [roll.dice[k - 1] for k in choice.dice]
    return "roll again: " + ", ".join(f"{d.colour} {d.face}" if d.colour else str(d.face)
                                      for d in dice)


def _colours(game, sheet, args) -> int:
    """The dice to roll, as the advisor ranks them for games whose roller chooses them before
    the roll (`engine.advice.colour_choices`: Qwinto's colours); `--roll` is needed otherwise."""
    choices = colour_choices(game, sheet)
    if not choices:
        raise BadInput(f"--roll is required for {game.title}: its roller chooses no dice before "
                       f"the roll")
    choices = choices[:args.top] if args.top else choices     # --top as for placements
    if args.json:
        print_json({"game": game.name, "dice": [c.to_json() for c in choices]})
        return 0
    print(f"figures: {FIGURE_WORDS.get(evaluator_for(game).figure, 'expected final score')}")
    for i, c in enumerate(choices, 1):
        print(f"{i:>3}. {str(c):<26}  {c.expected:7.2f}  {c.reason}")
    return 0
