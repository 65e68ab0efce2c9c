"""Kuh Vadis: two players share a 7x7 pad and race to connect their three starting marks.

Rule text: shared/rules/kuh_vadis.txt. The roller has up to three attempts with five dice
(faces 1-5 and a cow), keeping or re-rolling any dice freely. The final dice give a
result: at least two cows, or exactly three of a number, lets the roller mark one free
square showing that symbol; four or five of a kind (a quad) marks one and gives another
turn, and every square marked in such a chain must touch (8 ways) the square marked just
before. The first player whose starting marks are joined by their own marks (8-connected)
wins; a player whose starts can no longer be joined is cut off, and when both are cut
off the game is a tie at once.

The pad is one sheet shared by both seats (`shared_sheet`). Seat 0 plays the crosses
(X), seat 1 the circles (O); the winner of the coin toss begins (`begin_with`), else the
crosses.
The sheet knows whose turn it is and the square a quad chain continues from, so the
table's next roller follows from it (`roller_after`).
"""
from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Iterable, Sequence

from ..dice import DiceSpec, Die, DieKind, Roll, Symbol
from ..errors import InvalidInput, InvalidLayout
from ..game import ROLLER, Game, as_list, require, known_keys
from ..layouts import LayoutInfo, read_info
from ..placement import ENTER, PASS, Mark, Placement, Score, ScoreLine
from ..reasons import Reason, declare

declare({
    "kuh_vadis.ended_cut": "both are cut off",
    "kuh_vadis.coin_toss": "coin toss",
    "kuh_vadis.roller": "in Kuh Vadis only the player whose turn it is marks the pad",
    "kuh_vadis.over": "the game is over: {s}",
    "kuh_vadis.no_kind": "Kuh Vadis has no '{kind}': mark one square or pass",
    "kuh_vadis.one_square": "a result marks exactly one square",
    "kuh_vadis.no_square": "there is no square {sq}: rows A-G, columns 0-6",
    "kuh_vadis.p_start": "{la} is a printed starting {pm}: nothing can be written there",
    "kuh_vadis.start": "{sq} is a printed starting {pm}",
    "kuh_vadis.shows": "{sq} shows {sym}, not {symk}",
    "kuh_vadis.marked": "{sq} is already marked by the {pd}",
    "kuh_vadis.no_result": "the dice {kf} give no result: two cows, exactly three of a "
                           "number or four of a kind are needed to mark a square",
    "kuh_vadis.gives": "the dice give {res}: {sq} shows {sym}",
    "kuh_vadis.chain": "after the quad on {sq} the next square must touch {sq}; {sq2} does "
                       "not",
    "kuh_vadis.p_both": "both players have connected their starts, but the game ends as soon "
                        "as the first one does",
    "kuh_vadis.p_chain": "the quad chain continues from {sq}, which must be a square the {pl} "
                         "marked",
    "kuh_vadis.dice_count": "Kuh Vadis is rolled with {n} dice, not {m}",
    "kuh_vadis.colour": "'{die}' names a colour: Kuh Vadis dice have none, write the faces "
                        "alone (1-5 or cow)",
    "kuh_vadis.face": "'{die}' is not a Kuh Vadis face: the dice show 1-5 and a cow",
    "kuh_vadis.connected": "{pl} have connected {starts}",
    "kuh_vadis.cut": "{pl} are cut off: no free path joins {la} to {lb}",
    "kuh_vadis.open": "{pl} are still open: a path of own or free squares joins {starts}",
    "kuh_vadis.win": "{pl} win",
    "kuh_vadis.tie": "both are cut off: the game ends in a tie",
    "kuh_vadis.beaten": "{pl} did not join their starts: the others joined theirs first",
    "kuh_vadis.to_move_chain": "{pl} to move, continuing a quad chain from {sq}",
    "kuh_vadis.to_move": "{pl} to move",
    "kuh_vadis.seat_mark": "{pl} ({m})",
    "kuh_vadis.caption": "{pl} ({who}) to move",      # a drawn pad's caption
    "kuh_vadis.l_player": "{pl}",
    "app.to_move_ask": "whose move is it? say it with 'to_move': X (crosses) or O (circles)",
    "app.to_move": "'to_move' is X (crosses) or O (circles), not '{v}'",
    # an uploaded pad's checks, a pad typed as JSON or in the grid
    "kuh_vadis.layout": "Kuh Vadis pad '{name}'",
    "kuh_vadis.layout_rows": "{where}: 'rows' must be a list of {n} rows",
    "kuh_vadis.layout_row": "{where}: row {r} must hold {n} squares (1-5, C for a cow, X or O), "
                            "e.g. \"O 4 C X 5 3 O\"",
    "kuh_vadis.layout_square": "{where}: square {sq} holds '{tok}': use 1-5, C (cow), X or O",
    "kuh_vadis.layout_starts": "{where}: needs exactly 3 starting {pl} ({p}), not {n}",
    "kuh_vadis.sheet_object": "a Kuh Vadis sheet must be a JSON object with 'pad'",
    "kuh_vadis.pad_text": "row {r} of the pad must be text like \". x . X . o .\"",
    "kuh_vadis.pad_length": "row {r} of the pad must have {n} squares ('.', 'x' or 'o'), not {m}",
    "kuh_vadis.pad_square": "square {sq} holds '{ch}': write '.' (free), 'x' (crosses) or 'o' "
                            "(circles)",
    "kuh_vadis.sheet_to_move": "'to_move' must be \"X\" (crosses) or \"O\" (circles)",
    "kuh_vadis.sheet_chain": "'chain' must name a square such as \"C2\" (row A-G, column 0-6), "
                             "not '{v}'",
    "kuh_vadis.grid_square": "square {sq}: write x (crosses) or o (circles)",
})

SIZE = 7
ROW_LABELS = "ABCDEFG"
COW = "cow"
CROSSES, CIRCLES = "X", "O"
PLAYERS = (CROSSES, CIRCLES)           # seat 0, seat 1
PLAYER_NAMES = {CROSSES: "crosses", CIRCLES: "circles"}
PLAYER_MARK = {CROSSES: "cross", CIRCLES: "circle"}   # one of them
FACES = (1, 2, 3, 4, 5, COW)
DICE = 5
# pad cell tokens in a layout file -> symbol
_TOKENS = {"1": 1, "2": 2, "3": 3, "4": 4, "5": 5, "C": COW, "COW": COW,
           "X": CROSSES, "O": CIRCLES}


def other(player: str) -> str:
    return CIRCLES if player == CROSSES else CROSSES


def square_name(index: int) -> str:
    """`C2` = row C (the third from the top), column 2 (0-based from the left)."""
    return f"{ROW_LABELS[index // SIZE]}{index % SIZE}"


def symbol_name(symbol: Any, plural: bool = False) -> str:
    if symbol == COW:
        return "cows" if plural else "a cow"
    return f"{symbol}s" if plural else f"a {symbol}"


def _neighbours() -> tuple[tuple[int, ...], ...]:
    out = []
    for i in range(SIZE * SIZE):
        r, c = divmod(i, SIZE)
        out.append(tuple((r + dr) * SIZE + c + dc
                         for dr in (-1, 0, 1) for dc in (-1, 0, 1)
                         if (dr or dc) and 0 <= r + dr < SIZE and 0 <= c + dc < SIZE))
    return tuple(out)


NEIGHBOURS = _neighbours()

_FULL = (1 << SIZE * SIZE) - 1
_NOT_COL0 = sum(1 << (r * SIZE + c) for r in range(SIZE) for c in range(1, SIZE))
_NOT_COL6 = sum(1 << (r * SIZE + c) for r in range(SIZE) for c in range(SIZE - 1))


@lru_cache(maxsize=8192)
def _owner_masks(owner: tuple) -> dict:
    masks = {CROSSES: 0, CIRCLES: 0, None: 0}
    for i, o in enumerate(owner):
        masks[o] |= 1 << i
    return masks


@lru_cache(maxsize=8192)
def _reach_mask(owner: tuple, player: str, start: int, through_free: bool) -> int:
    """Flood fill on bit masks: grow by the 8 neighbours within the allowed squares."""
    masks = _owner_masks(owner)
    allowed = masks[player] | (masks[None] if through_free else 0)
    reach = (1 << start) & allowed
    while True:
        h = reach | ((reach << 1) & _NOT_COL0) | ((reach >> 1) & _NOT_COL6)
        grown = (h | (h << SIZE) | (h >> SIZE)) & allowed
        if grown == reach:
            return reach
        reach = grown


@dataclass(frozen=True)
class KuhVadisLayout:
    info: LayoutInfo
    cells: tuple[Any, ...]                  # 49 symbols, row by row: 1-5, "cow", "X", "O"
    starts: dict                            # "X"/"O" -> three square indices

    @classmethod
    def parse(cls, data: Any) -> "KuhVadisLayout":
        info = read_info(data, "kuh_vadis")
        name = Reason("kuh_vadis.layout", name=info.name)
        rows = data.get("rows")
        if not isinstance(rows, list) or len(rows) != SIZE:
            raise InvalidLayout(Reason("kuh_vadis.layout_rows", where=name, n=SIZE))
        cells: list[Any] = []
        for r, row in enumerate(rows):
            tokens = row.split() if isinstance(row, str) else row
            if not isinstance(tokens, list) or len(tokens) != SIZE:
                raise InvalidLayout(Reason("kuh_vadis.layout_row", where=name, r=ROW_LABELS[r],
                                           n=SIZE))
            for c, tok in enumerate(tokens):
                sym = _TOKENS.get(str(tok).strip().upper())
                if sym is None:
                    raise InvalidLayout(Reason("kuh_vadis.layout_square", where=name,
                                               sq=f"{ROW_LABELS[r]}{c}", tok=tok))
                cells.append(sym)
        starts = {p: tuple(i for i, s in enumerate(cells) if s == p) for p in PLAYERS}
        for p in PLAYERS:
            if len(starts[p]) != 3:
                raise InvalidLayout(Reason("kuh_vadis.layout_starts", where=name,
                                           pl=PLAYER_NAMES[p], p=p, n=len(starts[p])))
        return cls(info, tuple(cells), starts)

    def rows_text(self) -> list[str]:
        def tok(s):
            return "C" if s == COW else str(s)
        return [" ".join(tok(s) for s in self.cells[r * SIZE:(r + 1) * SIZE])
                for r in range(SIZE)]


@dataclass(frozen=True)
class KuhVadisSheet:
    """The shared pad: `owner[i]` is "X", "O" or None for each square (starts included,
    as printed), `to_move` whose turn it is, `chain` the square a quad chain continues
    from (the next mark must touch it) or None."""

    owner: tuple[str | None, ...]
    to_move: str = CROSSES
    chain: int | None = None


@dataclass(frozen=True, order=True)
class Result:
    """What a roll allows: mark a square with `symbol`; `quad` gives another turn."""

    symbol: Any
    quad: bool

    def __str__(self) -> str:
        if self.symbol == COW:
            what = "four or five cows" if self.quad else "two or more cows"
        else:
            what = (f"four or five {self.symbol}s" if self.quad
                    else f"exactly three {self.symbol}s")
        return what + (" (a quad: mark and roll again)" if self.quad else "")


def results(roll: Roll) -> tuple[Result, ...]:
    """Every result the final dice offer (the player picks one).

    Two or more cows, or exactly three of a number: a normal result. Four or five of a
    kind: a quad. Exactly two cows with exactly three of a number offer both.
    """
    counts = Counter(roll.faces)
    out = []
    cows = counts.get(COW, 0)
    if cows >= 4:
        out.append(Result(COW, True))
    elif cows >= 2:
        out.append(Result(COW, False))
    for n in range(1, 6):
        k = counts.get(n, 0)
        if k >= 4:
            out.append(Result(n, True))
        elif k == 3:
            out.append(Result(n, False))
    return tuple(out)


class KuhVadis(Game):
    name = "kuh_vadis"
    title = "Kuh Vadis"
    min_players, max_players = 2, 2
    max_attempts = 3
    rerolls = "any"
    notation = "B1@5: mark the square in row B, column 5 with the 1s rolled"
    shared_sheet = True
    first_drawn = Reason("kuh_vadis.coin_toss")     # the rules: a coin toss decides who begins
    parse_layout = staticmethod(KuhVadisLayout.parse)

    def __init__(self, layout: KuhVadisLayout) -> None:
        super().__init__(layout)
        self._by_symbol: dict[Any, tuple[int, ...]] = {
            s: tuple(i for i, x in enumerate(layout.cells) if x == s) for s in FACES}

    # -- sheets --------------------------------------------------------------------
    def new_sheet(self) -> KuhVadisSheet:
        owner = tuple(s if s in PLAYERS else None for s in self.layout.cells)
        return KuhVadisSheet(owner)

    def sheet_to_json(self, sheet: KuhVadisSheet) -> dict:
        rows = []
        for r in range(SIZE):
            chars = []
            for i in range(r * SIZE, (r + 1) * SIZE):
                o = sheet.owner[i]
                if o is None:
                    chars.append(".")
                elif self.layout.cells[i] in PLAYERS:
                    chars.append(o)             # printed start: upper case
                else:
                    chars.append(o.lower())     # written during play: lower case
            rows.append(" ".join(chars))
        return {"layout": self.layout.info.name, "pad": rows, "to_move": sheet.to_move,
                "chain": None if sheet.chain is None else square_name(sheet.chain)}

    def sheet_from_json(self, data: Any) -> KuhVadisSheet:
        require(isinstance(data, dict), Reason("kuh_vadis.sheet_object"))
        known_keys(self, data)
        rows = as_list(data.get("pad"), SIZE, "'pad'")
        owner: list[str | None] = []
        for r, row in enumerate(rows):
            if not isinstance(row, str):
                raise InvalidInput(Reason("kuh_vadis.pad_text", r=ROW_LABELS[r]))
            chars = row.replace(" ", "")
            if len(chars) != SIZE:
                raise InvalidInput(Reason("kuh_vadis.pad_length", r=ROW_LABELS[r], n=SIZE,
                                          m=len(chars)))
            for c, ch in enumerate(chars):
                if ch not in ".xXoO":
                    raise InvalidInput(Reason("kuh_vadis.pad_square", sq=f"{ROW_LABELS[r]}{c}",
                                              ch=ch))
                owner.append(None if ch == "." else ch.upper())
        # a printed start may be left as '.' when typing: it is printed on the pad anyway
        for p in PLAYERS:
            for i in self.layout.starts[p]:
                if owner[i] is None:
                    owner[i] = p
        to_move = str(data.get("to_move", CROSSES)).upper()
        require(to_move in PLAYERS, Reason("kuh_vadis.sheet_to_move"))
        chain = data.get("chain")
        if chain is not None:
            chain = self._square_index(chain)
            if chain is None:
                raise InvalidInput(Reason("kuh_vadis.sheet_chain", v=data.get("chain")))
        return KuhVadisSheet(tuple(owner), to_move, chain)

    def _square_index(self, text: Any) -> int | None:
        text = str(text).strip().upper()
        if len(text) == 2 and text[0] in ROW_LABELS and text[1].isdigit() \
                and int(text[1]) < SIZE:
            return ROW_LABELS.index(text[0]) * SIZE + int(text[1])
        return None

    def problems(self, sheet: KuhVadisSheet) -> list[str]:
        out = []
        cells = self.layout.cells
        for i, o in enumerate(sheet.owner):
            if cells[i] in PLAYERS and o != cells[i]:
                out.append(Reason("kuh_vadis.p_start", la=square_name(i),
                                  pm=PLAYER_MARK[cells[i]]))
        done = [p for p in PLAYERS if self.connected(sheet, p)]
        if len(done) == 2:
            out.append(Reason("kuh_vadis.p_both"))
        if sheet.chain is not None:
            if sheet.owner[sheet.chain] != sheet.to_move or cells[sheet.chain] in PLAYERS:
                out.append(Reason("kuh_vadis.p_chain", sq=square_name(sheet.chain),
                                  pl=PLAYER_NAMES[sheet.to_move]))
        return out

    # -- dice ----------------------------------------------------------------------
    def dice_spec(self) -> DiceSpec:
        """Five plain dice whose sixth face is a cow."""
        return DiceSpec((DieKind(None, tuple(FACES)),), DICE, DICE, repeat_colours=True,
                        symbols=(Symbol(COW, 6),))

    def roll_problem(self, roll: Roll) -> str | None:
        if len(roll) != DICE:
            return Reason("kuh_vadis.dice_count", n=DICE, m=len(roll))
        for die in roll:
            if die.colour is not None:
                return Reason("kuh_vadis.colour", die=die)
            if die.face not in FACES:
                return Reason("kuh_vadis.face", die=die)
        return None

    def reroll_problem(self, first: Roll, second: Roll) -> str | None:
        # Any die may be kept or thrown again, even dice set aside earlier, so any five
        # valid dice can follow any roll: only the dice themselves are checked.
        return self.roll_problem(second)

    def random_roll(self, rng: random.Random, previous: Roll | None = None) -> Roll:
        if previous is None:
            return Roll(Die(None, rng.choice(FACES)) for _ in range(DICE))
        counts = Counter(previous.faces)
        best = max(counts.values())
        keep = rng.choice(sorted((f for f, k in counts.items() if k == best), key=str))
        return Roll(d if d.face == keep else Die(None, rng.choice(FACES)) for d in previous)

    def seat_mark(self, seat: int) -> Reason | None:
        return Reason("kuh_vadis.seat_mark", pl=PLAYER_NAMES[PLAYERS[seat]], m=PLAYERS[seat])

    def roll_gives_nothing(self, roll: Roll) -> Reason | None:
        return None if results(roll) else Reason("kuh_vadis.no_result", kf=roll)

    def results(self, roll: Roll) -> tuple[Result, ...]:
        return results(roll)

    # -- the pad as a graph ----------------------------------------------------------
    def _reach(self, sheet: KuhVadisSheet, player: str, through_free: bool) -> int:
        """Bit mask of the squares reachable from the player's first start through own
        squares (and, if `through_free`, free squares); 8-connected."""
        return _reach_mask(sheet.owner, player, self.layout.starts[player][0], through_free)

    def connected(self, sheet: KuhVadisSheet, player: str) -> bool:
        """The player's three starts are joined by the player's own squares."""
        reach = self._reach(sheet, player, False)
        return all(reach >> s & 1 for s in self.layout.starts[player])

    def cut_off(self, sheet: KuhVadisSheet, player: str) -> tuple[int, int] | None:
        """Two starts of `player` that no path of own or free squares can join any
        more, whatever the dice bring (the player is blocked); None while open."""
        reach = self._reach(sheet, player, True)
        first, *rest = self.layout.starts[player]
        for s in rest:
            if not reach >> s & 1:
                return first, s
        return None

    def winner(self, sheet: KuhVadisSheet) -> str | None:
        for p in PLAYERS:
            if self.connected(sheet, p):
                return p
        return None

    def state(self, sheet: KuhVadisSheet, player: str) -> str:
        """One sentence on where `player` stands: connected, cut off or still open."""
        name = PLAYER_NAMES[player]
        starts = ", ".join(square_name(s) for s in self.layout.starts[player])
        if self.connected(sheet, player):
            return Reason("kuh_vadis.connected", pl=name, starts=starts)
        cut = self.cut_off(sheet, player)
        if cut:
            a, b = cut
            return Reason("kuh_vadis.cut", pl=name, la=square_name(a), lb=square_name(b))
        if self.winner(sheet) is not None:      # the other player joined theirs first
            return Reason("kuh_vadis.beaten", pl=name)
        return Reason("kuh_vadis.open", pl=name, starts=starts)

    def explain(self, sheet: KuhVadisSheet) -> str:
        """Where the game stands, for a person: who won, who is cut off, a tie."""
        return "\n".join(self.standing(sheet))

    def standing(self, sheet: KuhVadisSheet) -> list[Reason]:
        """`explain` line by line: each player's state, then the outcome or whose move."""
        lines = [self.state(sheet, p) for p in PLAYERS]
        win = self.winner(sheet)
        if win:
            lines.append(Reason("kuh_vadis.win", pl=PLAYER_NAMES[win]))
        elif all(self.cut_off(sheet, p) for p in PLAYERS):
            lines.append(Reason("kuh_vadis.tie"))
        elif sheet.chain is not None:
            lines.append(Reason("kuh_vadis.to_move_chain", pl=PLAYER_NAMES[sheet.to_move],
                                sq=square_name(sheet.chain)))
        else:
            lines.append(Reason("kuh_vadis.to_move", pl=PLAYER_NAMES[sheet.to_move]))
        return lines

    # -- placements ----------------------------------------------------------------
    def _targets(self, sheet: KuhVadisSheet, symbol: Any) -> Iterable[int]:
        owner = sheet.owner
        squares = self._by_symbol[symbol]
        if sheet.chain is not None:
            near = NEIGHBOURS[sheet.chain]
            squares = [i for i in squares if i in near]
        return (i for i in squares if owner[i] is None)

    def _legal(self, sheet: KuhVadisSheet, roll: Roll, role: str) -> Iterable[Placement]:
        if role != ROLLER or self.is_finished(sheet):
            return
        for res in results(roll):
            for i in self._targets(sheet, res.symbol):
                yield Placement(ENTER, (Mark(ROW_LABELS[i // SIZE], i % SIZE, res.symbol),))
        yield Placement.special(PASS)

    def apply(self, sheet: KuhVadisSheet, placement: Placement,
              again: bool = False) -> KuhVadisSheet:
        """Unchecked. `again`: the mark came from a quad, so the same player goes on
        and the next mark must touch this one (`apply_result` works it out)."""
        if placement.kind == PASS:
            return KuhVadisSheet(sheet.owner, other(sheet.to_move), None)
        (mark,) = placement.marks
        i = ROW_LABELS.index(mark.row) * SIZE + mark.col
        owner = list(sheet.owner)
        owner[i] = sheet.to_move
        if again:
            return KuhVadisSheet(tuple(owner), sheet.to_move, i)
        return KuhVadisSheet(tuple(owner), other(sheet.to_move), None)

    def gives_another_turn(self, roll: Roll, placement: Placement) -> bool:
        """A square marked with a quad's symbol: mark, then roll again."""
        return placement.kind == ENTER and any(
            r.quad and r.symbol == placement.marks[0].value for r in results(roll))

    def apply_result(self, sheet: KuhVadisSheet, roll: Roll, role: str,
                     placement: Placement) -> KuhVadisSheet:
        return self.apply(sheet, placement, self.gives_another_turn(roll, placement))

    def why_illegal(self, sheet: KuhVadisSheet, roll: Roll, role: str,
                    placement: Placement) -> str | None:
        if role != ROLLER:
            return Reason("kuh_vadis.roller")
        win = self.winner(sheet)
        if win or all(self.cut_off(sheet, p) for p in PLAYERS):
            return Reason("kuh_vadis.over", s=self.standing(sheet)[-1])
        if placement.kind == PASS:
            return None
        if placement.kind != ENTER:
            return Reason("kuh_vadis.no_kind", kind=placement.kind)
        if len(placement.marks) != 1:
            return Reason("kuh_vadis.one_square")
        (mark,) = placement.marks
        if mark.row not in ROW_LABELS or not 0 <= mark.col < SIZE:
            return Reason("kuh_vadis.no_square", sq=f"{mark.row}{mark.col}")
        i = ROW_LABELS.index(mark.row) * SIZE + mark.col
        printed = self.layout.cells[i]
        where = square_name(i)
        if printed in PLAYERS:
            return Reason("kuh_vadis.start", sq=where, pm=PLAYER_MARK[printed])
        if mark.value != printed:
            return Reason("kuh_vadis.shows", sq=where, sym=symbol_name(printed),
                          symk=symbol_name(mark.value))
        if sheet.owner[i] is not None:
            return Reason("kuh_vadis.marked", sq=where, pd=PLAYER_NAMES[sheet.owner[i]])
        res = results(roll)
        if not res:
            return Reason("kuh_vadis.no_result", kf=roll)
        if all(r.symbol != printed for r in res):
            offered = " or ".join(str(r) for r in res)
            return Reason("kuh_vadis.gives", res=offered, sq=where, sym=symbol_name(printed))
        if sheet.chain is not None and i not in NEIGHBOURS[sheet.chain]:
            return Reason("kuh_vadis.chain", sq=square_name(sheet.chain), sq2=where)
        return None

    # -- turns -----------------------------------------------------------------------
    def must_answer(self, role: str) -> bool:
        return role == ROLLER

    def first_roller(self, sheets: Sequence[Any]) -> int:
        return PLAYERS.index(sheets[0].to_move)

    def begin_with(self, sheets: Sequence[Any], seat: int) -> tuple:
        """The coin toss: seat 0 plays the crosses, seat 1 the circles; whoever won it moves
        first."""
        pad = replace(sheets[0], to_move=PLAYERS[seat], chain=None)
        return (pad,) * len(sheets)

    def roller_after(self, roller: int, sheets: Sequence[Any], players: int) -> int:
        return PLAYERS.index(sheets[roller].to_move)

    # -- the pad drawn -----------------------------------------------------------------
    def grid(self, data: dict) -> dict:
        cells_printed = self.layout.cells
        rows = []
        for r, line in enumerate(data["pad"]):
            cells = []
            for c, ch in enumerate(line.split()):
                printed = cells_printed[r * SIZE + c]
                cells.append({"row": ROW_LABELS[r], "col": c,
                              "value": None if ch == "." else ch.upper(), "colour": None,
                              "printed": str(printed),
                              "shape": "square", "start": printed in PLAYERS})
            rows.append({"label": ROW_LABELS[r], "colour": None, "cells": cells})
        # whose move it is (asked when a pad is typed in: "options", one is chosen); once the
        # game is over, how it ended instead
        # `numbered`: its sentences name squares by column number ("A5"): numbers above it
        return {"columns": SIZE, "rows": rows, "value": "printed", "numbered": True,
                "caption": self._outcome(data) or Reason(
                    "kuh_vadis.caption", pl=PLAYER_NAMES.get(data.get("to_move"), ""),
                    who=data.get("to_move", "")),
                "extras": [{"key": "to_move", "label": "to move", "value": data.get("to_move"),
                            "options": list(PLAYERS)}]}

    def _outcome(self, data: dict) -> Reason | None:
        """Who won, or the tie, on a drawn pad whose game is over; None while it goes on (or
        for a pad typed in without whose move it is)."""
        try:
            sheet = self.sheet_from_json(data)
        except InvalidInput:
            return None
        if not self.is_finished(sheet):
            return None
        win = self.winner(sheet)
        return Reason("kuh_vadis.win", pl=PLAYER_NAMES[win]) if win else Reason("kuh_vadis.tie")

    def sheet_from_grid(self, data: dict, cells: dict, extras: dict) -> dict:
        """Typed x / o per square; printed starts may stay empty. Whose move it is cannot be
        told from the marks (a quad gives another turn; either player may begin), so it is
        asked: `extras["to_move"]`, "X" or "O"; a pad with marks needs it."""
        rows, marked = [], False
        for r, line in enumerate(data["pad"]):
            chars = []
            for c in range(len(line.split())):
                v = cells.get(f"{ROW_LABELS[r]}@{c}")
                v = "" if v is None else str(v).strip().lower()
                if v not in ("", "x", "o"):
                    raise InvalidInput(Reason("kuh_vadis.grid_square", sq=f"{ROW_LABELS[r]}{c}"))
                chars.append(v or ".")
                marked = marked or bool(v)
            rows.append(" ".join(chars))
        data["pad"] = rows
        to_move = extras.get("to_move")
        if to_move is None and marked:
            raise InvalidInput(Reason("app.to_move_ask"))
        if to_move is not None:
            if str(to_move).upper() not in PLAYERS:
                raise InvalidInput(Reason("app.to_move", v=to_move))
            data["to_move"] = str(to_move).upper()
        data["chain"] = None
        return data

    def cell_value(self, cell: dict, roll: Roll):
        """A square is marked with the symbol printed on it (a printed start: none)."""
        printed = cell.get("printed")
        if printed is None or printed in PLAYERS:
            return None
        return int(printed) if printed.isdigit() else COW

    # -- scoring and the end -------------------------------------------------------
    def _line(self, sheet: KuhVadisSheet, player: str) -> ScoreLine:
        win = self.winner(sheet)
        return ScoreLine(Reason("kuh_vadis.l_player", pl=PLAYER_NAMES[player]),
                         1 if win == player else 0,
                         self.state(sheet, player))

    def score(self, sheet: KuhVadisSheet, final: bool = False) -> Score:
        """1 point for the player who connected, 0 otherwise (a tie: 0 each)."""
        return Score(self._line(sheet, p) for p in PLAYERS)

    def seat_score(self, sheet: KuhVadisSheet, seat: int, final: bool = False) -> Score:
        return Score([self._line(sheet, PLAYERS[seat])])

    def end_reason(self, sheet: KuhVadisSheet) -> str | None:
        won = self.winner(sheet)
        if won is not None:
            return self.state(sheet, won)
        return Reason("kuh_vadis.ended_cut") if self.is_finished(sheet) else None

    def is_finished(self, sheet: KuhVadisSheet) -> bool:
        return self.winner(sheet) is not None or all(
            self.cut_off(sheet, p) for p in PLAYERS)

    def score_bounds(self) -> tuple[int, int]:
        return 0, 1
