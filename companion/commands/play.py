"""`dice-companion play`: a game at the terminal, with typed or random dice.

Each turn the roller types the dice (or presses Enter for a random roll), may make a
second attempt, then every player picks a placement from the numbered legal ones (or
types one). Running scores are shown after every turn and the ranking at the end.
`--random` plays every choice at random, which makes a quick demonstration.

A game is left unfinished, with one line, by typing `quit` (or `q`) at any prompt or by the
end of input (exit code 0: the player chose to stop), or by Ctrl-C (exit code 130, the
shell's code for a program interrupted by Ctrl-C: 128 + SIGINT; not 2, which says bad input).
"""
from __future__ import annotations

import random
import sys

from engine.advice import advise
from engine.advice.players import AdvisorPlayer
from engine.dice import Roll
from engine.errors import IllegalPlacement, InvalidInput
from engine.placement import Placement
from engine.registry import game_class, load_game
from engine.table import Begin, ChooseSide, EndSide, KeepRoll, Place, RollDice, Table

from ..cli import BadInput, count
from ..games import default_layouts, seat_layouts_problem
from ._common import layout_spec
from .legal import AGAIN, placement_key

QUIT = ("quit", "q")        # typed at any prompt: leave the game
EXIT_INTERRUPTED = 130      # Ctrl-C: 128 + SIGINT, as a shell reports an interrupted program


class LeaveGame(Exception):
    """The player typed `quit` (or `q`): the game ends unfinished, as at the end of input."""


def register(sub) -> None:
    p = sub.add_parser("play", help="play a game in the terminal")
    p.add_argument("--game", required=True)
    p.add_argument("--players", type=int, default=2, metavar="N",
                   help="players at the table (default 2)")
    p.add_argument("--seed", type=int, default=None, metavar="S",
                   help="seed for random dice and choices (the same seed, the same game)")
    p.add_argument("--layout", metavar="NAME|FILE[,...]",
                   help="a built-in layout name or a layout JSON file, for every player, or "
                        "one per player separated by commas (twenty one: different sheets, "
                        "by default A, B, ...)")
    p.add_argument("--first", metavar="N|random",
                   help="who rolls first: player N (1, 2, ...) or drawn at random (Kuh Vadis: "
                        "the coin toss); default player 1")
    p.add_argument("--random", action="store_true", help="every roll and choice at random")
    p.add_argument("--bots", type=int, default=0, metavar="N",
                   help="the last N players are advisor bots (they roll and choose as the "
                        "advisor says)")
    p.set_defaults(func=run)


def sheet_text(data: dict, indent: str = "  ") -> str:
    """A sheet's JSON shown as rows of fields ('.' empty), nested parts indented."""
    lines = []
    for key, value in data.items():
        if key == "layout":
            continue
        if isinstance(value, dict):
            lines.append(f"{indent}{key}:")
            lines.append(sheet_text(value, indent + "  "))
        elif isinstance(value, list) and value and isinstance(value[0], list):
            lines.append(f"{indent}{key}:")
            lines.extend(f"{indent}  " + " ".join(_cell(v) for v in row) for row in value)
        elif isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            lines.append(f"{indent}{key}:")
            lines.extend(f"{indent}  {row}" for row in value)
        elif isinstance(value, list):
            lines.append(f"{indent}{key}: " + " ".join(_cell(v) for v in value))
        else:
            lines.append(f"{indent}{key}: {value}")
    return "\n".join(line for line in lines if line)


def view_text(view: dict, indent: str = "  ") -> str:
    """A drawn sheet (`companion.games` view) as text, row by row, each field named as its
    placements name it: twenty one by its colour, printed number and position
    (`yellow6@0:3`, as in the mark `A3@0`), Qwinto and Knister by column position (`4:7`);
    '.' is empty, 'x' crossed out. A pad of printed squares (Kuh Vadis) and a ring with a
    number line (The Choice) have their own drawings (`pad_text`, `ring_text`)."""
    if view.get("value") == "printed":
        return pad_text(view, indent)
    if view.get("ring"):
        return ring_text(view, indent)
    lines = []
    for row in view["rows"]:
        fields = []
        for cell in row["cells"]:
            if cell is None:
                continue
            name = (f"{cell['colour']}{cell.get('printed') or ''}@{cell['col']}"
                    if cell.get("colour") and not row.get("colour") else str(cell["col"]))
            fields.append(f"{name}:{'.' if cell['value'] is None else cell['value']}")
        label = row["label"] + (f" {row['colour']}" if row.get("colour") else "")
        lines.append(f"{indent}{label}: " + " ".join(fields))
    lines += [f"{indent}{ex['label']}: {ex['value']}" for ex in view.get("extras", [])
              if "options" not in ex]
    return "\n".join(lines)


def pad_text(view: dict, indent: str = "  ") -> str:
    """Kuh Vadis' pad as a grid under its column numbers, a square showing its mark (X, O) or,
    while empty, what it needs (a number or cow), so that `B1@5` is found by row and column."""
    width = 5
    lines = [f"{indent}{view['caption']}",
             indent + "  " + "".join(f"{c:>{width}}" for c in range(view["columns"]))]
    for row in view["rows"]:
        squares = {c["col"]: c for c in row["cells"] if c}
        lines.append(indent + f"{row['label']:<2}" + "".join(
            f"{_square(squares.get(c)):>{width}}" for c in range(view["columns"])))
    lines.append(f"{indent}(X, O: marked; a number or cow: what an empty square needs)")
    return "\n".join(lines)


def _square(cell: dict | None) -> str:
    if cell is None:
        return ""
    return str(cell["value"] if cell["value"] is not None else cell["printed"])


def ring_text(view: dict, indent: str = "  ") -> str:
    """The Choice's side: the colour ring by position (x: crossed), the number line by
    position and printed number (x: written, with the order drawn), and the misthrows, so that
    `Rred@3/1` and `N7@1/13` can be read off it."""
    rows = view["rows"]
    ring = [c for r in rows if r["label"] == view["mark_rows"]["ring"] for c in r["cells"] if c]
    line = [c for r in rows if r["label"] != view["mark_rows"]["ring"]
            for c in r["cells"] if c]
    lines = [f"{indent}{view['caption']}",
             f"{indent}colour ring (R): " + " ".join(
                 f"{c['col']}:{c['colour']}{' x' if c['value'] else ''}" for c in ring),
             f"{indent}numbers (N; x#k: drawn k-th): " + " ".join(
                 f"{c['col']}:{c['printed']}"
                 + (f" x{'' if c.get('order') is None else '#' + str(c['order'])}"
                    if c['value'] else "") for c in line)]
    lines += [f"{indent}{ex['label']}: {ex['value']} of {ex['max']}" if ex.get("max")
              else f"{indent}{ex['label']}: {ex['value']}" for ex in view.get("extras", [])]
    return "\n".join(lines)


def _cell(v) -> str:
    return f"{'.' if v is None else v!s:>3}"


class Terminal:
    """Reads answers from stdin; end of input ends the game politely."""

    def __init__(self, rng: random.Random, auto: bool, bots: dict | None = None) -> None:
        self.rng, self.auto = rng, auto
        self.bots = bots or {}      # seat -> AdvisorPlayer

    def ask(self, prompt: str) -> str:
        """The line typed after `prompt`; EOFError at the end of input, LeaveGame on `quit`
        or `q` (no die, placement or side is written so)."""
        print(prompt, end="", flush=True)
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        if line.strip().lower() in QUIT:
            raise LeaveGame
        return line.strip()


def run(args) -> int:
    try:
        cls = game_class(args.game)
        cls.check_player_count(args.players)
        games = seat_games(cls.name, args.layout, args.players)
    except InvalidInput as exc:
        raise BadInput(str(exc)) from None
    if not 0 <= args.bots <= args.players:
        raise BadInput(f"--bots must be 0-{args.players} (of the {args.players} players), "
                       f"not {args.bots}")
    rng = random.Random(args.seed)
    people = args.players - args.bots
    bots = {seat: AdvisorPlayer(games[seat], seed=args.seed or 0, players=args.players)
            for seat in range(people, args.players)}
    term = Terminal(rng, args.random, bots)
    table = Table.new(games, [f"Player {i + 1}" for i in range(people)]
                      + [f"Bot {i + 1}" for i in range(args.bots)])
    print(f"{cls.title} for {args.players}: " + ", ".join(
        f"{p} ({g.layout.info.name}{', RECON' if g.layout.info.is_recon else ''})"
        for p, g in zip(table.players, games)))
    first = first_seat(args.first, args.players, rng)
    if first is not None:
        table = table.apply(Begin(first))
        print(f"{table.players[first]} begins")
    if cls.notation and people and not args.random:
        print(f"(placements: {cls.notation})")
    if people and not args.random:
        print("(type quit or q at any prompt to leave the game)")
    try:
        table = choose_sides(table, term)
        while not table.is_over:
            table = play_turn(table, term)
    except EOFError:
        print("\nend of input: game left unfinished")
        return 0
    except LeaveGame:
        print("game left unfinished")
        return 0
    except KeyboardInterrupt:   # Ctrl-C: one line, not a traceback (see the module's doc)
        print("\ninterrupted: game left unfinished")
        return EXIT_INTERRUPTED
    print_ranking(table)
    return 0


def seat_games(name: str, layout: str | None, players: int) -> list:
    """One game per seat from `--layout` (one layout for all, or one per player); without
    it the shipped defaults (twenty one deals the sheets A, B, ... in turn)."""
    specs = [s.strip() for s in layout.split(",")] if layout else \
        default_layouts(name, players)
    if len(specs) == 1:
        specs = specs * players
    if len(specs) != players:
        raise BadInput(f"--layout names {len(specs)} layouts for {players} players: one for "
                       f"every player, or one per player")
    games = [load_game(name, layout_spec(s)) for s in specs]
    problem = seat_layouts_problem(name, [g.layout.info.name for g in games])
    if problem:
        raise BadInput(problem)
    return games


def print_ranking(table: Table) -> None:
    print("\nGame over. Ranking:")
    for s in table.standings():
        # playing alone: the rule book's rating (Knister)
        rating = table.game.solo_rating(s.score.total) if len(table.players) == 1 else None
        print(f"{s.rank}. {s.player}: {s.score.total}" + (f" ({rating})" if rating else ""))


def first_seat(text: str | None, players: int, rng: random.Random) -> int | None:
    """`--first`: a player's number (1-based, as the players are named) or "random"."""
    if text is None:
        return None
    if text.strip().lower() == "random":
        return rng.randrange(players)
    if not text.strip().isdigit() or not 1 <= int(text) <= players:
        raise BadInput(f"--first must be a player 1-{players} or 'random', not '{text}'")
    return int(text) - 1


def choose_sides(table: Table, term: Terminal) -> Table:
    """The Choice: every player typing at the terminal picks the side to start on (Enter:
    the first); bots and --random players start on the first side."""
    for seat, player in enumerate(table.players):
        sides = table.start_sides(seat)
        if len(sides) < 2 or term.auto or seat in term.bots:
            continue
        while True:
            text = term.ask(f"{player}, start on which side? ({'/'.join(sides)}, "
                            f"Enter = {sides[0]}): ") or sides[0]
            try:
                table = table.apply(ChooseSide(seat, text))
                break
            except (InvalidInput, IllegalPlacement) as exc:
                print(f"  refused: {exc}")
    return table


def _roll(table: Table, term: Terminal, previous: Roll | None) -> Table:
    game = table.game
    while True:
        if term.auto:
            text = ""
        else:
            text = term.ask(roll_prompt(table, previous))
        if previous and not text:
            return table
        try:
            roll = game.parse_roll(text) if text else game.random_roll(term.rng)
            return table.apply(RollDice(roll))
        except (InvalidInput, IllegalPlacement) as exc:
            print(f"  refused: {exc}")
            if term.auto:
                raise


def roll_prompt(table: Table, previous: Roll | None) -> str:
    """What the roller is asked: the dice, or on a later attempt, which attempt of how many
    it is and that the whole new roll is typed (the dice kept too), not only the dice rolled
    again."""
    player = table.players[table.next_roller]
    if previous is None:
        return f"{player}, dice (Enter = random roll): "
    return (f"{player}, attempt {len(table.attempts) + 1} of {table.game.max_attempts}: type "
            f"the whole roll again, or Enter to keep: ")


def _bot_rolls(table: Table, term: Terminal, bot) -> Table:
    """An advisor bot rolls (Qwinto: the colours it chooses) and rolls again as advised."""
    seat = table.next_roller
    game = table.games[seat]
    sheet = table.sheets[seat]
    table = table.apply(RollDice(bot.first_roll(game, sheet, term.rng)))
    print(f"rolled: {table.roll}")
    while table.may_reroll():
        again = bot.reroll(game, sheet, table.roll, game.max_attempts - len(table.attempts),
                           term.rng, term.rng)
        if again is None:
            break
        table = table.apply(RollDice(again))
        print(f"attempt {len(table.attempts)}: {table.roll}")
    return table


def play_turn(table: Table, term: Terminal) -> Table:
    print(f"\n--- {table.players[table.next_roller]} rolls ---")
    bot = term.bots.get(table.next_roller)
    if bot is not None:
        table = _bot_rolls(table, term, bot)
    else:
        table = _roll(table, term, None)
        print(f"rolled: {table.roll}")
    while bot is None and table.may_reroll():
        if term.auto:
            if term.rng.random() < 0.3:
                table = table.apply(RollDice(table.game.random_roll(term.rng, table.roll)))
                print(f"second attempt: {table.roll}")
            break
        again = _roll(table, term, table.roll)
        if again is table:
            break
        table = again
        print(f"attempt {len(table.attempts)}: {table.roll}")
    if table.still_rolling:     # the roller keeps this roll: the others may answer it
        table = table.apply(KeepRoll())
    for seat in table.pending():
        table = _answer(table, seat, term)
    for seat, player in enumerate(table.players):
        total = table.score(seat).total
        print(f"  {player}: {count(total, 'point')}")
    return table


def _answer(table: Table, seat: int, term: Terminal) -> Table:
    game = table.games[seat]
    options = sorted(table.legal(seat), key=placement_key)   # as `legal` lists them
    print(f"\n{table.players[seat]} ({table.role(seat)}), your sheet:")
    data = game.sheet_to_json(table.sheets[seat])
    view = game.grid(data)              # as `games.sheet_view` draws it
    if "first_side" in data:    # The Choice: which of the two sides this is
        print(f"  (playing the {data['playing']} side, the "
              f"{'first' if data['playing'] == data['first_side'] else 'second'} of two)")
    print(view_text(view) if view else sheet_text(data))
    bot = term.bots.get(seat)
    if bot is not None:
        best = advise(game, table.sheets[seat], table.roll, table.role(seat),
                      evaluator=bot.evaluator, seed=bot.seed).best
        print(f"  plays {best.placement}: {best.reason}")
        return table.apply(Place(seat, best.placement))
    if term.auto:
        choice = term.rng.choice(options)
        print(f"  plays {choice}")
        return table.apply(Place(seat, choice))
    for i, p in enumerate(options, 1):
        # Kuh Vadis: a square marked with a quad gives the roller another turn
        print(f"  {i:>3}. {p}" + (f"  ({AGAIN})" if game.gives_another_turn(table.roll, p) else ""))
    while True:
        text = term.ask("choice (number or placement): ")
        try:
            placement = options[int(text) - 1] if text.isdigit() and \
                1 <= int(text) <= len(options) else Placement.parse(text)
            table = table.apply(Place(seat, placement))
            break
        except (InvalidInput, IllegalPlacement) as exc:
            print(f"  refused: {exc}")
    # The Choice: a first side may be ended by choice after a dice action
    if game.end_side_problem(table.sheets[seat]) is None and \
            term.ask("end this side of the sheet now? (y/N): ").lower().startswith("y"):
        table = table.apply(EndSide(seat))
    return table
