"""The Choice: three two-way dice, a ring of colour spaces and a line through numbers.

Rule text: shared/rules/the_choice.txt. Every face of the three dice shows a number and a
colour; each player uses each die at most once, for its colour or for its number.
Colours cross spaces on the outer ring of 16 (the first anywhere, every later one
touching an earlier cross). Numbers - single dice or sums of several - mark spaces of the
inner hexagonal grid of 13, drawing one line: a start anywhere, then each space touching
the one marked just before, never entering a space twice. The roller must use all three
dice, every other player at least two, or mark a misthrow; the third misthrow ends a
side (the first side may also be ended voluntarily after a dice action), and the game
ends with a third misthrow on somebody's second side, or when somebody fills it.

Text form of a placement (see docs/sheets-graph-games.md):
- `Rred@3/1`: cross the red colour space at ring position 3 with die 1 (1-based, in the
  order the roll lists the dice);
- `N7@4/12`: mark the number space at grid position 4, which shows 7, with dice 1 and 2
  added together;
- `Mx@0`: mark the misthrow in box 0 (the next free one) when too few dice were used;
- `misthrow` alone: use no die at all and mark a misthrow.
When two or more number spaces are marked, the order of drawing matters and the marks
are written in that order, separated by " > ": `Rred@3/1 > N6@2/2 > N1@7/3`.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, replace
from itertools import combinations, permutations, product
from typing import Any, Iterable, Sequence

from ..dice import DiceSpec, Die, DieKind, Roll
from ..errors import InvalidInput, InvalidLayout
from ..game import ROLLER, Game, count_of, require, known_keys
from ..layouts import LayoutInfo, read_info
from ..layouts import points as layout_points
from ..placement import ENTER, MISTHROW, Mark, Placement, Score, ScoreLine
from ..reasons import Reason, declare

declare({
    "the_choice.ended_full": "the second side is full",
    "the_choice.ended_misthrows": "{n} misthrows on the second side",
    "the_choice.side_unknown": "no side '{side}': the sides are {sides}",
    "the_choice.side_marked": "the side to start on is chosen before the first mark: this sheet "
                              "already has marks",
    "the_choice.finished": "both sides of this sheet are finished",
    "the_choice.no_kind": "The Choice has no '{kind}': use dice for colour (R) or number (N) "
                          "spaces, or write 'misthrow'",
    "the_choice.no_row": "'{m}': there is no row '{r}': R (colour ring), N (number spaces), M "
                         "(misthrow)",
    "the_choice.no_die": "'{m}': there is no die {d}: the dice are 1-{n}",
    "the_choice.no_space": "there is no colour space {p}: the ring has 0-{n}",
    "the_choice.space_colour": "colour space {p} is {c}, not {c2}",
    "the_choice.crossed": "colour space {p} ({c}) is already crossed",
    "the_choice.once": "a colour space can be crossed only once",
    "the_choice.no_number": "there is no number space {p}: the grid has 0-{n}",
    "the_choice.number_shows": "number space {p} shows {n}, not {v}",
    "the_choice.at_most": "{n} dice make at most {m} marks",
    "the_choice.one_miss": "one roll marks at most one misthrow",
    "the_choice.next_miss": "the next misthrow box on the {side} is {n}: write Mx@{m}",
    "the_choice.at_least": "mark at least one space, or write 'misthrow' alone",
    "the_choice.connected": "the colour crosses must be connected: after the first cross every "
                            "cross must touch one already made (this roll's crosses included)",
    "the_choice.on_line": "the number {v} (space {p}) is already on the line",
    "the_choice.touch": "{v} (space {p}) does not touch {w} (space {q}), the end of the line: each "
                        "number must be next to the one marked just before",
    "the_choice.order": "these numbers can be drawn in more than one order: write the number marks "
                        "in the order drawn, separated by '>' (e.g. {ex})",
    "the_choice.no_miss": "these marks use {n} dice: {s}, so there is no misthrow",
    "the_choice.too_few_one": "these marks use 1 die: {s}, or mark a misthrow (add Mx@{m})",
    "the_choice.too_few": "these marks use {n} dice: {s}, or mark a misthrow (add Mx@{m})",
    "the_choice.roller_three": "the roller must use all three dice",
    "the_choice.others_two": "every player but the roller must use at least two dice",
    "the_choice.ring_one_die": "'{m}': a colour space is crossed with exactly one die",
    "the_choice.die_colour": "'{m}': die {d} ({die}) is not {c}",
    "the_choice.dice_sum": "'{m}': dice {ds} add up to {t}, not {v}",
    "the_choice.die_once": "each die may be used only once, for its colour or its number",
    "the_choice.no_colour_die": "no die of this roll is {c}",
    "the_choice.no_sum": "no die of this roll shows {v}, and no dice of it add up to {v}",
    "the_choice.cannot": "the dice {roll} cannot make these marks: each die is used once, for its "
                         "colour or its number (numbers of several dice may be added)",
    "the_choice.end_first": "only the first side may be ended voluntarily: the second ends with "
                            "the third misthrow (or when it is full)",
    "the_choice.dice_count": "The Choice is rolled with {n} dice, not {m}",
    "the_choice.no_colour": "'{die}' has no colour of The Choice: every face shows a colour ({cs}) "
                            "and a number, e.g. green:6",
    "the_choice.number": "'{die}' does not show a number 1-6",
    "the_choice.p_other": "the {side} has marks, but the player is still on the {side2} (the first "
                          "side)",
    "the_choice.p_ring": "the colour crosses on the {side} are not connected: every cross after "
                         "the first must touch one already made",
    "the_choice.p_twice": "the number line on the {side} enters a space twice",
    "the_choice.p_touch": "on the {side}, {b} does not touch {a} before it: the line must be "
                          "continuous",
    "the_choice.p_misses": "{n} misthrows on the {side}: a side ends at the {m}rd",
    "the_choice.p_misses_end": "{n} misthrows end the {side}: the player must be on the other side",
    "the_choice.l_colours": "{side} colours",
    "the_choice.l_numbers": "{side} numbers",
    "the_choice.d_no_space": "no colour space crossed yet",
    "the_choice.d_space": "1 colour space crossed",
    "the_choice.d_spaces": "{n} colour spaces crossed",
    "the_choice.d_line_one": "a line of 1 number space",
    "the_choice.d_line": "a line of {n} number spaces",
    "the_choice.d_no_line": "no line yet",
    "the_choice.caption": "{side} side",
    # an uploaded sheet's checks
    "the_choice.layout": "The Choice sheet '{name}'",
    "the_choice.layout_side": "{where}, side '{name}'",
    "the_choice.layout_side_object": "{where}: each side must be a JSON object",
    "the_choice.layout_side_name": "{where}: every side needs a 'name' (e.g. \"front\")",
    "the_choice.layout_ring": "{where}: 'ring' must list the {n} colour spaces clockwise",
    "the_choice.layout_colour": "{where}: '{v}' is not a colour of the dice ({list})",
    "the_choice.layout_numbers": "{where}: 'numbers' must be a list of rows of numbers",
    "the_choice.layout_numbers_rows": "{where}: 'numbers' has {n} rows for {m} number spaces",
    "the_choice.layout_offsets": "{where}: 'offsets' needs one 0 or 1 per row of numbers (1 = "
                                 "the row is shifted right by half a space)",
    "the_choice.layout_number": "{where}: '{v}' in number row {r} is not a number 1-{max} (a "
                                "sum of up to three dice)",
    "the_choice.layout_spaces": "{where}: needs {n} number spaces, not {m}",
    "the_choice.layout_different": "{where}: every number space must show a different number",
    "the_choice.layout_sides": "{where}: 'sides' must list the two sides of the sheet",
    "the_choice.layout_side_names": "{where}: the two sides need different names",
    "the_choice.layout_colour_points": "{where}: 'colour_points' must be [crossed, points] pairs "
                                       "with increasing counts 1-{n}",
    "the_choice.layout_number_points": "{where}: 'number_points' needs {n} entries (lines of "
                                       "1-{n} spaces)",
    "the_choice.layout_number_points_fall":
        "{where}: 'number_points' must not fall as the line grows",
    "the_choice.layout_dice": "{where}: 'dice' must map the faces 1-6 of each of the {n} dice "
                              "to colours",
    # a sheet typed as JSON (`key`: a side's name as the JSON's key) or in the grid
    "the_choice.sheet_object": "a The Choice sheet must be a JSON object",
    "the_choice.sheet_one_of": "'{key}' must be one of {names}, not '{v}'",
    "the_choice.sheet_side": "'{key}' must be a JSON object with 'colours', 'numbers' and "
                             "'misthrows'",
    "the_choice.sheet_colours": "'{key}.colours' must list crossed ring positions 0-{n}",
    "the_choice.sheet_colours_twice": "'{key}.colours' lists a ring position twice",
    "the_choice.sheet_numbers": "'{key}.numbers' must list the numbers of the line in the order "
                                "drawn",
    "the_choice.sheet_no_number": "the {side} has no number space {v} (its numbers: {list})",
    "the_choice.sheet_misthrows": "'{key}.misthrows' must be a whole number, 0 or more",
    "the_choice.l_misthrows": "misthrows",
    "the_choice.grid_ring": "ring space {p}: write x to cross it",
    "the_choice.grid_number": "number space {n}: write its place on the line (1 for the start, "
                              "2, 3, ...)",
    "the_choice.grid_same_place": "two number spaces have the same place on the line",
})

COLOURS = ("red", "yellow", "green", "blue", "purple", "grey")
RING, NUMBER, MISS = "R", "N", "M"
MISS_VALUE = "x"
RING_SIZE = 16
NUMBER_SPACES = 13
DICE = 3
MISTHROWS_TO_END = 3
MAX_SUM = 18


# every non-empty group of dice, the ways a number can be made: (the dice as bits,
# their positions, their 1-based labels), in the order of `combinations` by size
_GROUPS = [(sum(1 << d for d in g), g, tuple(d + 1 for d in g))
           for k in range(1, DICE + 1) for g in combinations(range(DICE), k)]
_ALL_DICE = (1 << DICE) - 1
_DICE_OF = {bits: tuple(d for d in range(DICE) if bits >> d & 1) for bits in range(1 << DICE)}

# (colour dice, number dice) for every way to use at least one die, in a fixed order
_USES = [(tuple(d for d in range(DICE) if use[d] == 1),
          tuple(d for d in range(DICE) if use[d] == 2))
         for use in product((0, 1, 2), repeat=DICE) if any(use)]


@dataclass(frozen=True)
class ChoiceSideLayout:
    name: str
    note: str
    ring: tuple[str, ...]                 # colour at ring position 0..15 (clockwise)
    numbers: tuple[int, ...]              # number at grid position 0..12 (reading order)
    rows: tuple[tuple[int, ...], ...]     # grid positions by row (for drawing)
    coords: tuple[tuple[int, int], ...]   # (row, x) of each grid position, x doubled
    adjacent: tuple[frozenset, ...]       # grid position -> grid positions sharing an edge
    cell_of: dict                         # number -> grid position
    ring_of: dict                         # colour -> ring positions

    def touches(self, a: int, b: int) -> bool:
        return b in self.adjacent[a]


def _parse_side(data: Any, name: str) -> ChoiceSideLayout:
    if not isinstance(data, dict):
        raise InvalidLayout(Reason("the_choice.layout_side_object", where=name))
    side = str(data.get("name", "")).strip()
    if not side:
        raise InvalidLayout(Reason("the_choice.layout_side_name", where=name))
    where = Reason("the_choice.layout_side", where=name, name=side)
    ring = data.get("ring")
    if not isinstance(ring, list) or len(ring) != RING_SIZE:
        raise InvalidLayout(Reason("the_choice.layout_ring", where=where, n=RING_SIZE))
    ring = tuple(str(c).lower() for c in ring)
    for c in ring:
        if c not in COLOURS:
            raise InvalidLayout(Reason("the_choice.layout_colour", where=where, v=c,
                                       list=", ".join(COLOURS)))
    rows_in = data.get("numbers")
    offsets = data.get("offsets")
    if not isinstance(rows_in, list) or not all(isinstance(r, list) for r in rows_in):
        raise InvalidLayout(Reason("the_choice.layout_numbers", where=where))
    if len(rows_in) > NUMBER_SPACES:
        raise InvalidLayout(Reason("the_choice.layout_numbers_rows", where=where,
                                   n=len(rows_in), m=NUMBER_SPACES))
    if not isinstance(offsets, list) or len(offsets) != len(rows_in) \
            or not all(o in (0, 1) for o in offsets):
        raise InvalidLayout(Reason("the_choice.layout_offsets", where=where))
    numbers, coords, rows = [], [], []
    for r, (row, off) in enumerate(zip(rows_in, offsets)):
        ids = []
        for i, v in enumerate(row):
            if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= MAX_SUM:
                raise InvalidLayout(Reason("the_choice.layout_number", where=where, v=v, r=r,
                                           max=MAX_SUM))
            ids.append(len(numbers))
            numbers.append(v)
            coords.append((r, 2 * i + off))
        rows.append(tuple(ids))
    if len(numbers) != NUMBER_SPACES:
        raise InvalidLayout(Reason("the_choice.layout_spaces", where=where, n=NUMBER_SPACES,
                                   m=len(numbers)))
    if len(set(numbers)) != len(numbers):
        raise InvalidLayout(Reason("the_choice.layout_different", where=where))
    adjacent = tuple(frozenset(
        j for j, (r2, x2) in enumerate(coords)
        if (r2 == r and abs(x2 - x) == 2) or (abs(r2 - r) == 1 and abs(x2 - x) == 1))
        for (r, x) in coords)
    ring_of = {c: tuple(p for p, x in enumerate(ring) if x == c) for c in COLOURS}
    return ChoiceSideLayout(side, str(data.get("note", "")), ring, tuple(numbers),
                            tuple(rows), tuple(coords), adjacent,
                            {v: i for i, v in enumerate(numbers)}, ring_of)


@dataclass(frozen=True)
class TheChoiceLayout:
    info: LayoutInfo
    sides: tuple[ChoiceSideLayout, ChoiceSideLayout]
    colour_points: tuple[tuple[int, int], ...]   # (at least this many crossed, points)
    number_points: tuple[int, ...]               # points for a line of 1..13 spaces
    dice: tuple[dict, ...]                       # face number -> colour, per die (rolls)

    @classmethod
    def parse(cls, data: Any) -> "TheChoiceLayout":
        info = read_info(data, "the_choice")
        name = Reason("the_choice.layout", name=info.name)
        sides = data.get("sides")
        if not isinstance(sides, list) or len(sides) != 2:
            raise InvalidLayout(Reason("the_choice.layout_sides", where=name))
        parsed = tuple(_parse_side(s, name) for s in sides)
        if parsed[0].name == parsed[1].name:
            raise InvalidLayout(Reason("the_choice.layout_side_names", where=name))
        try:
            colour_key = Reason("layout.key", where=name, key="colour_points")
            number_key = Reason("layout.key", where=name, key="number_points")
            colour_points = tuple((int(a), layout_points(b, colour_key))
                                  for a, b in data["colour_points"])
            number_points = tuple(layout_points(p, number_key) for p in data["number_points"])
            dice = tuple({int(k): str(v).lower() for k, v in d.items()}
                         for d in data.get("dice", _DEFAULT_DICE))
        except InvalidLayout:
            raise
        except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
            raise InvalidLayout(Reason("layout.missing", where=name, field=str(exc))) from None
        mins = [a for a, _ in colour_points]
        if mins != sorted(set(mins)) or not all(1 <= a <= RING_SIZE for a in mins):
            raise InvalidLayout(Reason("the_choice.layout_colour_points", where=name,
                                       n=RING_SIZE))
        if len(number_points) != NUMBER_SPACES:
            raise InvalidLayout(Reason("the_choice.layout_number_points", where=name,
                                       n=NUMBER_SPACES))
        if list(number_points) != sorted(number_points):
            raise InvalidLayout(Reason("the_choice.layout_number_points_fall", where=name))
        if len(dice) != DICE or not all(sorted(d) == [1, 2, 3, 4, 5, 6] and
                                        set(d.values()) <= set(COLOURS) for d in dice):
            raise InvalidLayout(Reason("the_choice.layout_dice", where=name, n=DICE))
        return cls(info, parsed, colour_points, number_points, dice)

    def colour_score(self, crossed: int) -> int:
        pts = 0
        for at_least, points in self.colour_points:
            if crossed >= at_least:
                pts = points
        return pts

    def number_score(self, length: int) -> int:
        return self.number_points[length - 1] if length else 0


# SHEETS.md (RECON): used only to make random rolls; a roll is read face by face.
_DEFAULT_DICE = [
    {"1": "blue", "2": "purple", "3": "grey", "4": "red", "5": "yellow", "6": "green"},
    {"1": "green", "2": "blue", "3": "purple", "4": "grey", "5": "red", "6": "yellow"},
    {"1": "red", "2": "yellow", "3": "green", "4": "blue", "5": "purple", "6": "grey"},
]


@dataclass(frozen=True)
class ChoiceSide:
    """One side of a player's sheet: crossed ring positions, the number line in the
    order drawn (`line[0]` is the circled start) and the misthrows marked."""

    ring: frozenset = frozenset()
    line: tuple[int, ...] = ()
    misthrows: int = 0


@dataclass(frozen=True)
class ChoiceSheet:
    """Both sides (indexed as in the layout: 0 front, 1 back), the side played first and
    whether the player has moved on to the second side."""

    sides: tuple[ChoiceSide, ChoiceSide] = (ChoiceSide(), ChoiceSide())
    first: int = 0
    stage: int = 0      # 0: on the first side, 1: on the second

    @property
    def current(self) -> int:
        return self.first if self.stage == 0 else 1 - self.first

    @property
    def side(self) -> ChoiceSide:
        return self.sides[self.current]


def _ring_arcs(cells) -> int:
    """How many separate arcs a set of ring positions forms (0 for the full ring)."""
    return sum(1 for p in cells if (p - 1) % RING_SIZE not in cells)


_RING_BITS = (1 << RING_SIZE) - 1


def _mask_arcs(mask: int) -> int:
    """`_ring_arcs` of the ring positions set in `mask` (bit p = position p): the
    positions whose anticlockwise neighbour is not set."""
    turned = ((mask << 1) | (mask >> (RING_SIZE - 1))) & _RING_BITS
    return (mask & ~turned).bit_count()


def _arc_growth(ring: tuple[str, ...]) -> dict[int, dict[tuple[str, ...], list[tuple[int, ...]]]]:
    """Crossed ring (as bits: one arc, or none) -> sorted colours of 1-3 new crosses ->
    the sets of spaces (ascending) that keep the crosses one arc with those colours.

    The new spaces are the i spaces before the arc and the k - i after it, or any k
    spaces in a row on an empty ring. Made once per side: 242 arcs, 9 ways each."""
    arcs = [0] + [sum(1 << (start + n) % RING_SIZE for n in range(length))
                  for start in range(RING_SIZE) for length in range(1, RING_SIZE)]
    arcs.append(_RING_BITS)
    table: dict[int, dict[tuple[str, ...], list[tuple[int, ...]]]] = {}
    for mask in arcs:
        by_colours: dict[tuple[str, ...], list[tuple[int, ...]]] = {}
        free = RING_SIZE - mask.bit_count()
        for k in range(1, DICE + 1):
            if k > free:
                break
            if mask:
                a = next(p for p in range(RING_SIZE)
                         if mask >> p & 1 and not mask >> (p - 1) % RING_SIZE & 1)
                b = next(p for p in range(RING_SIZE)
                         if mask >> p & 1 and not mask >> (p + 1) % RING_SIZE & 1)
                sets = [[(a - n) % RING_SIZE for n in range(1, i + 1)]
                        + [(b + n) % RING_SIZE for n in range(1, k - i + 1)]
                        for i in range(k + 1)]
            else:
                sets = [[(s + n) % RING_SIZE for n in range(k)] for s in range(RING_SIZE)]
            for cells in sets:
                spaces = tuple(sorted(set(cells)))
                key = tuple(sorted(ring[p] for p in spaces))
                if len(spaces) == k and spaces not in by_colours.get(key, ()):
                    by_colours.setdefault(key, []).append(spaces)
        table[mask] = by_colours
    return table


class TheChoice(Game):
    name = "the_choice"
    title = "The Choice"
    min_players, max_players = 2, 4
    max_attempts = 2
    rerolls = "any"
    notation = ("Rred@3/1: cross the red space at ring position 3 with die 1; N7@1/13: the "
                "number 7 at position 1 with dice 1 and 3; Mx@0: a misthrow; '>' the order "
                "numbers are drawn")
    parse_layout = staticmethod(TheChoiceLayout.parse)

    def __init__(self, layout: TheChoiceLayout) -> None:
        super().__init__(layout)
        self._side_index = {s.name: i for i, s in enumerate(layout.sides)}
        self._arc_growth = tuple(_arc_growth(s.ring) for s in layout.sides)

    # -- sheets --------------------------------------------------------------------
    def new_sheet(self, first_side: int | str = 0) -> ChoiceSheet:
        """A blank sheet; `first_side` is the side the player chose to start on."""
        if isinstance(first_side, str):
            require(first_side in self._side_index,
                    Reason("the_choice.side_unknown", side=first_side,
                           sides=", ".join(self._side_index)))
            first_side = self._side_index[first_side]
        return ChoiceSheet(first=first_side)

    def sheet_to_json(self, sheet: ChoiceSheet) -> dict:
        out: dict[str, Any] = {"layout": self.layout.info.name,
                               "first_side": self.layout.sides[sheet.first].name,
                               "playing": self.layout.sides[sheet.current].name}
        for lay, side in zip(self.layout.sides, sheet.sides):
            out[lay.name] = {"colours": sorted(side.ring),
                             "numbers": [lay.numbers[c] for c in side.line],
                             "misthrows": side.misthrows}
        return out

    def sheet_from_json(self, data: Any) -> ChoiceSheet:
        require(isinstance(data, dict), Reason("the_choice.sheet_object"))
        known_keys(self, data)
        names = ", ".join(self._side_index)
        first = data.get("first_side", next(iter(self._side_index)))
        if not (isinstance(first, str) and first in self._side_index):
            raise InvalidInput(Reason("the_choice.sheet_one_of", key="first_side", names=names,
                                      v=first))
        playing = data.get("playing", first)
        if not (isinstance(playing, str) and playing in self._side_index):
            raise InvalidInput(Reason("the_choice.sheet_one_of", key="playing", names=names,
                                      v=playing))
        sides = []
        for lay in self.layout.sides:
            s = data.get(lay.name, {})
            if not isinstance(s, dict):
                raise InvalidInput(Reason("the_choice.sheet_side", key=lay.name))
            ring = s.get("colours", [])
            if not (isinstance(ring, list) and all(
                    isinstance(p, int) and not isinstance(p, bool) and 0 <= p < RING_SIZE
                    for p in ring)):
                raise InvalidInput(Reason("the_choice.sheet_colours", key=lay.name,
                                          n=RING_SIZE - 1))
            if len(set(ring)) != len(ring):
                raise InvalidInput(Reason("the_choice.sheet_colours_twice", key=lay.name))
            nums = s.get("numbers", [])
            if not isinstance(nums, list):
                raise InvalidInput(Reason("the_choice.sheet_numbers", key=lay.name))
            line = []
            for v in nums:
                if not (isinstance(v, int) and not isinstance(v, bool) and v in lay.cell_of):
                    raise InvalidInput(Reason("the_choice.sheet_no_number", side=lay.name,
                                              v=repr(v),
                                              list=", ".join(map(str, sorted(lay.numbers)))))
                line.append(lay.cell_of[v])
            miss = s.get("misthrows", 0)
            if not (isinstance(miss, int) and not isinstance(miss, bool) and miss >= 0):
                raise InvalidInput(Reason("the_choice.sheet_misthrows", key=lay.name))
            sides.append(ChoiceSide(frozenset(ring), tuple(line), miss))
        first_i = self._side_index[first]
        stage = 0 if self._side_index[playing] == first_i else 1
        return ChoiceSheet(tuple(sides), first_i, stage)

    def problems(self, sheet: ChoiceSheet) -> list[str]:
        out = []
        order = [sheet.first, 1 - sheet.first]
        for k, i in enumerate(order):
            lay, side = self.layout.sides[i], sheet.sides[i]
            if k == 1 and sheet.stage == 0 and (side.ring or side.line or side.misthrows):
                out.append(Reason("the_choice.p_other", side=lay.name,
                                  side2=self.layout.sides[sheet.first].name))
            if _ring_arcs(side.ring) > 1:
                out.append(Reason("the_choice.p_ring", side=lay.name))
            if len(set(side.line)) != len(side.line):
                out.append(Reason("the_choice.p_twice", side=lay.name))
            for a, b in zip(side.line, side.line[1:]):
                if not lay.touches(a, b):
                    out.append(Reason("the_choice.p_touch", side=lay.name, b=lay.numbers[b],
                                      a=lay.numbers[a]))
            if side.misthrows > MISTHROWS_TO_END:
                out.append(Reason("the_choice.p_misses", n=side.misthrows, side=lay.name,
                                  m=MISTHROWS_TO_END))
            elif k == 0 and sheet.stage == 0 and side.misthrows == MISTHROWS_TO_END:
                out.append(Reason("the_choice.p_misses_end", n=MISTHROWS_TO_END, side=lay.name))
        return out

    # -- dice ----------------------------------------------------------------------
    def dice_spec(self) -> DiceSpec:
        """Every face shows a colour and a number: a colour comes up with the numbers the
        layout's dice print beside it (`usual`), any number 1-6 can be typed."""
        return DiceSpec(tuple(
            DieKind(c, (1, 2, 3, 4, 5, 6),
                    tuple(sorted({n for die in self.layout.dice for n, col in die.items()
                                  if col == c})))
            for c in COLOURS), DICE, DICE, repeat_colours=True, colours_on_faces=True)

    def roll_problem(self, roll: Roll) -> str | None:
        if len(roll) != DICE:
            return Reason("the_choice.dice_count", n=DICE, m=len(roll))
        for die in roll:
            if die.colour not in COLOURS:
                return Reason("the_choice.no_colour", die=die, cs=", ".join(COLOURS))
            if not isinstance(die.face, int) or not 1 <= die.face <= 6:
                return Reason("the_choice.number", die=die)
        return None

    def reroll_problem(self, first: Roll, second: Roll) -> str | None:
        # The second attempt re-rolls 1, 2 or all 3 dice. Re-rolling all three can give
        # any roll, so only the dice themselves can be checked; that there is at most
        # one second attempt is the table's `max_attempts`.
        return self.roll_problem(second)

    def random_roll(self, rng: random.Random, previous: Roll | None = None) -> Roll:
        faces = self.layout.dice
        if previous is None:
            return Roll(Die(faces[d][n], n) for d in range(DICE)
                        for n in [rng.randint(1, 6)])
        again = set(rng.sample(range(DICE), rng.randint(1, DICE)))
        out = []
        for d, die in enumerate(previous):
            if d in again:
                n = rng.randint(1, 6)
                out.append(Die(faces[d][n], n))
            else:
                out.append(die)
        return Roll(out)

    # -- placements ----------------------------------------------------------------
    @staticmethod
    def dice_needed(role: str) -> int:
        """Dice a player must use to avoid a misthrow: the roller all, the others two."""
        return DICE if role == ROLLER else 2

    def _ring_options(self, index: int, lay: ChoiceSideLayout, roll: Roll,
                      dice: tuple[int, ...], mask: int) -> list[tuple[tuple, tuple]]:
        """(ring positions in ascending order, their marks) for the colour dice `dice`;
        `mask` holds the crossed positions as bits.

        The spaces come from the side's `_arc_growth` table; dice of one colour take
        that colour's spaces in ascending order, and the options come in the order of
        `product(*choices)` over each die's spaces, as `_ring_search` gives them."""
        if not dice:
            return [((), ())]
        growth = self._arc_growth[index].get(mask)
        if growth is None:      # a sheet typed in with crosses that are not one arc
            return self._ring_search(lay, roll, dice, mask)
        colours = [roll.dice[d].colour for d in dice]
        sets = growth.get(tuple(sorted(colours)))
        if not sets:
            return []
        ring = lay.ring
        found = []
        for spaces in sets:
            assigned: list[int] = []
            for colour in colours:
                for p in spaces:
                    if ring[p] == colour and p not in assigned:
                        assigned.append(p)
                        break
            found.append(tuple(assigned))
        found.sort()
        out = []
        for assigned in found:
            pairs = sorted(zip(assigned, dice))
            out.append((tuple(p for p, _ in pairs),
                        tuple(Mark(RING, p, ring[p], (d + 1,)) for p, d in pairs)))
        return out

    def _ring_search(self, lay: ChoiceSideLayout, roll: Roll, dice: tuple[int, ...],
                     mask: int) -> list[tuple[tuple, tuple]]:
        """`_ring_options` by trying every space for every die (any crossed spaces)."""
        choices = [[p for p in lay.ring_of[roll.dice[d].colour] if not mask >> p & 1]
                   for d in dice]
        out = []
        for cells in product(*choices):
            grown = mask
            for p in cells:
                bit = 1 << p
                if grown & bit:     # two dice on one space
                    break
                grown |= bit
            else:
                if _mask_arcs(grown) <= 1:
                    pairs = sorted(zip(cells, dice))
                    out.append((tuple(p for p, _ in pairs),
                                tuple(Mark(RING, p, lay.ring[p], (d + 1,)) for p, d in pairs)))
        return out

    def _number_options(self, lay: ChoiceSideLayout, side: ChoiceSide,
                        roll: Roll) -> dict[tuple[int, ...], list[tuple[tuple, tuple]]]:
        """Number dice (positions, ascending) -> every (grid positions in drawing order,
        their marks) that uses exactly those dice: the line is grown one group of dice
        at a time, so a group that cannot continue it cuts off every longer way."""
        faces = [d.face for d in roll.dice]
        adjacent = lay.adjacent
        cell_of = lay.cell_of
        numbers = lay.numbers
        used = set(side.line)
        groups = []
        for bits, dice, label in _GROUPS:
            c = cell_of.get(sum(faces[d] for d in dice))
            if c is not None and c not in used:
                groups.append((bits, c, label))
        out: dict[tuple[int, ...], list[tuple[tuple, tuple]]] = {(): [((), ())]}
        # (dice still free, dice taken, cells, marks, the line's end), depth first and
        # each way recorded when visited: for one set of dice, the groups in the order
        # of `_GROUPS`, then the groups that follow them
        stack = [(_ALL_DICE, 0, (), (), side.line[-1] if side.line else None)]
        while stack:
            free, taken, cells, marks, last = stack.pop()
            if cells:
                out.setdefault(_DICE_OF[taken], []).append((cells, marks))
            grown = []
            for bits, c, label in groups:
                if bits & free != bits or c in cells or (
                        last is not None and c not in adjacent[last]):
                    continue
                grown.append((free & ~bits, taken | bits, cells + (c,),
                              marks + (Mark(NUMBER, c, numbers[c], label),), c))
            stack.extend(reversed(grown))
        return out

    def _legal(self, sheet: ChoiceSheet, roll: Roll, role: str) -> Iterable[Placement]:
        if self.is_finished(sheet):
            return
        lay = self.layout.sides[sheet.current]
        side = sheet.side
        needed = self.dice_needed(role)
        miss_tail = (Mark(MISS, side.misthrows, MISS_VALUE),)
        mask = sum(1 << p for p in side.ring)
        seen = set()
        ring_cache: dict = {}
        number_options = self._number_options(lay, side, roll)
        # each die: 0 unused, 1 colour, 2 number
        for colour_dice, number_dice in _USES:
            rings = ring_cache.get(colour_dice)
            if rings is None:
                rings = ring_cache[colour_dice] = self._ring_options(
                    sheet.current, lay, roll, colour_dice, mask)
            if not rings:
                continue
            numbers = number_options.get(number_dice)
            if not numbers:
                continue
            miss = len(colour_dice) + len(number_dice) < needed
            tail = miss_tail if miss else ()
            for cells, ring_marks in rings:
                for path, number_marks in numbers:
                    key = (cells, path, miss)
                    if key in seen:
                        continue
                    seen.add(key)
                    yield Placement(ENTER, ring_marks + number_marks + tail, len(path) >= 2)
        yield Placement.special(MISTHROW)

    def canonical(self, placement: Placement) -> Placement:
        """Ring marks by position, number marks in drawing order, the misthrow last."""
        if placement.kind != ENTER:
            return placement
        ring = sorted((m for m in placement.marks if m.row == RING), key=lambda m: m.col)
        nums = [m for m in placement.marks if m.row == NUMBER]
        rest = [m for m in placement.marks if m.row not in (RING, NUMBER)]
        return Placement(ENTER, tuple(ring + nums + rest), len(nums) >= 2)

    def _line_problem(self, lay: ChoiceSideLayout, side: ChoiceSide,
                      marks: Sequence[Mark]) -> str | None:
        used = set(side.line)
        last = side.line[-1] if side.line else None
        for m in marks:
            if m.col in used:
                return Reason("the_choice.on_line", v=m.value, p=m.col)
            if last is not None and not lay.touches(last, m.col):
                return Reason("the_choice.touch", v=m.value, p=m.col, w=lay.numbers[last], q=last)
            used.add(m.col)
            last = m.col
        return None

    def _line_order(self, lay: ChoiceSideLayout, side: ChoiceSide,
                    placement: Placement) -> tuple[list[Mark] | None, str | None]:
        """The number marks in drawing order, or the reason there is none."""
        nums = [m for m in placement.marks if m.row == NUMBER]
        if placement.ordered or len(nums) < 2:
            problem = self._line_problem(lay, side, nums)
            return (None, problem) if problem else (nums, None)
        fits = [list(p) for p in permutations(nums)
                if self._line_problem(lay, side, p) is None]
        if not fits:
            return None, self._line_problem(lay, side, nums)
        if len({tuple(m.col for m in f) for f in fits}) > 1:
            return None, Reason("the_choice.order", ex=" > ".join(str(m) for m in fits[0]))
        return fits[0], None

    def _dice_fits(self, roll: Roll, marks: Sequence[Mark]):
        """Every way to give each mark its own dice (honouring dice already written)."""
        faces = [d.face for d in roll.dice]
        colours = [d.colour for d in roll.dice]
        options = []
        for m in marks:
            if m.dice:
                cands = [tuple(d - 1 for d in m.dice)]
            elif m.row == RING:
                cands = [(d,) for d in range(DICE)]
            else:
                cands = [g for k in range(1, DICE + 1) for g in combinations(range(DICE), k)]
            good = []
            for g in cands:
                if m.row == RING:
                    if len(g) == 1 and colours[g[0]] == m.value:
                        good.append(g)
                elif sum(faces[d] for d in g) == m.value:
                    good.append(g)
            options.append(good)
        for combo in product(*options):
            flat = [d for g in combo for d in g]
            if len(flat) == len(set(flat)):
                yield combo

    def why_illegal(self, sheet: ChoiceSheet, roll: Roll, role: str,
                    placement: Placement) -> str | None:
        if self.is_finished(sheet):
            return Reason("the_choice.finished")
        if placement.kind == MISTHROW:
            return None
        if placement.kind != ENTER:
            return Reason("the_choice.no_kind", kind=placement.kind)
        lay = self.layout.sides[sheet.current]
        side = sheet.side
        ring = [m for m in placement.marks if m.row == RING]
        nums = [m for m in placement.marks if m.row == NUMBER]
        miss = [m for m in placement.marks if m.row == MISS]
        for m in placement.marks:
            if m.row not in (RING, NUMBER, MISS):
                return Reason("the_choice.no_row", m=m, r=m.row)
            for d in m.dice:
                if not 1 <= d <= len(roll):
                    return Reason("the_choice.no_die", m=m, d=d, n=len(roll))
        for m in ring:
            if not 0 <= m.col < RING_SIZE:
                return Reason("the_choice.no_space", p=m.col, n=RING_SIZE - 1)
            if m.value != lay.ring[m.col]:
                return Reason("the_choice.space_colour", p=m.col, c=lay.ring[m.col], c2=m.value)
            if m.col in side.ring:
                return Reason("the_choice.crossed", p=m.col, c=m.value)
        if len({m.col for m in ring}) != len(ring):
            return Reason("the_choice.once")
        for m in nums:
            if not 0 <= m.col < NUMBER_SPACES:
                return Reason("the_choice.no_number", p=m.col, n=NUMBER_SPACES - 1)
            if m.value != lay.numbers[m.col]:
                return Reason("the_choice.number_shows", p=m.col, n=lay.numbers[m.col], v=m.value)
        if len(ring) + len(nums) > DICE:
            return Reason("the_choice.at_most", n=DICE, m=DICE)
        if len(miss) > 1:
            return Reason("the_choice.one_miss")
        for m in miss:
            if m.value != MISS_VALUE or m.col != side.misthrows:
                return Reason("the_choice.next_miss", side=lay.name, n=side.misthrows,
                              m=side.misthrows)
        if not ring and not nums:
            return Reason("the_choice.at_least")
        if _ring_arcs(side.ring.union(m.col for m in ring)) > 1:
            return Reason("the_choice.connected")
        order, problem = self._line_order(lay, side, placement)
        if problem:
            return problem
        fits = list(self._dice_fits(roll, ring + nums))
        if not fits:
            return self._dice_reason(roll, ring + nums)
        needed = self.dice_needed(role)
        counts = {sum(len(g) for g in combo) for combo in fits}
        who = Reason("the_choice.roller_three") if role == ROLLER else \
            Reason("the_choice.others_two")
        if miss and not any(c < needed for c in counts):
            return Reason("the_choice.no_miss", n=min(counts), s=who)
        if not miss and not any(c >= needed for c in counts):
            return Reason("the_choice.too_few_one" if max(counts) == 1 else "the_choice.too_few",
                          n=max(counts), s=who, m=side.misthrows)
        return None

    @staticmethod
    def _dice_reason(roll: Roll, marks: Sequence[Mark]) -> str:
        for m in marks:
            if m.dice:
                dice = [roll.dice[d - 1] for d in m.dice]
                if m.row == RING:
                    if len(dice) != 1:
                        return Reason("the_choice.ring_one_die", m=m)
                    if dice[0].colour != m.value:
                        return Reason("the_choice.die_colour", m=m, d=m.dice[0], die=dice[0],
                                      c=m.value)
                else:
                    total = sum(d.face for d in dice)
                    if total != m.value:
                        return Reason("the_choice.dice_sum", m=m, ds="+".join(map(str, m.dice)),
                                      t=total, v=m.value)
        used = [d for m in marks for d in m.dice]
        if len(used) != len(set(used)):
            return Reason("the_choice.die_once")
        # a mark that no die of the roll could make even alone says so: a tapped space whose
        # colour was not rolled, a number no dice add up to
        for m in marks:
            if m.dice:
                continue
            if m.row == RING and all(d.colour != m.value for d in roll.dice):
                return Reason("the_choice.no_colour_die", c=m.value)
            if m.row == NUMBER and not any(sum(roll.dice[d].face for d in g) == m.value
                                           for _, g, _ in _GROUPS):
                return Reason("the_choice.no_sum", v=m.value)
        return Reason("the_choice.cannot", roll=roll)

    def apply(self, sheet: ChoiceSheet, placement: Placement) -> ChoiceSheet:
        side = sheet.side
        if placement.kind == MISTHROW:
            miss = 1
            ring, line = side.ring, side.line
        else:
            lay = self.layout.sides[sheet.current]
            order, _ = self._line_order(lay, side, placement)
            if order is None:       # unchecked: keep the order written
                order = [m for m in placement.marks if m.row == NUMBER]
            ring = side.ring.union(m.col for m in placement.marks if m.row == RING)
            line = side.line + tuple(m.col for m in order)
            miss = sum(1 for m in placement.marks if m.row == MISS)
        side = ChoiceSide(ring, line, side.misthrows + miss)
        sides = list(sheet.sides)
        sides[sheet.current] = side
        stage = sheet.stage
        if stage == 0 and side.misthrows >= MISTHROWS_TO_END:
            stage = 1       # scored; the sheet is turned over for the next roll
        return ChoiceSheet(tuple(sides), sheet.first, stage)

    # -- sides -----------------------------------------------------------------------
    def sides(self) -> tuple[str, ...]:
        return tuple(self._side_index)

    def start_side_problem(self, sheet: ChoiceSheet, side: str) -> str | None:
        if side not in self._side_index:
            return Reason("the_choice.side_unknown", side=side, sides=", ".join(self._side_index))
        if sheet.stage or any(s != ChoiceSide() for s in sheet.sides):
            return Reason("the_choice.side_marked")
        return None

    def start_on(self, sheet: ChoiceSheet, side: str) -> ChoiceSheet:
        return self.new_sheet(side)

    def end_side_problem(self, sheet: ChoiceSheet) -> str | None:
        if sheet.stage == 1:
            return Reason("the_choice.end_first")
        return None

    def end_side(self, sheet: ChoiceSheet) -> ChoiceSheet:
        return replace(sheet, stage=1)

    # -- the sheet drawn ---------------------------------------------------------------
    def grid(self, data: dict) -> dict:
        """The side being played, drawn like the paper: the colour spaces on a ring (row "R",
        clockwise from the top, `"ring": true`; the last space touches the first) around the
        hexagonal number area (row "N", one grid row per row of numbers, each cell two
        half-columns wide at its x); `mark_rows` says what the marks of each row are to the
        page that builds an answer on the sheet (a misthrow, row "M", is counted, not drawn)."""
        side = self.layout.sides[self._side_index[data["playing"]]]
        written = data[side.name]
        crossed = set(written["colours"])
        ring = [{"row": RING, "col": p, "value": "x" if p in crossed else None,
                 "colour": colour, "printed": None, "shape": "square"}
                for p, colour in enumerate(side.ring)]
        line = {side.cell_of[n]: i + 1 for i, n in enumerate(written["numbers"])
                if n in side.cell_of}
        rows = [{"label": RING, "colour": None, "cells": ring}]
        for r, positions in enumerate(side.rows):
            cells = []
            for pos in positions:
                _, x = side.coords[pos]
                cells.append({"row": NUMBER, "col": pos,
                              "value": side.numbers[pos] if pos in line else None,
                              "colour": None, "printed": f"{side.numbers[pos]}",
                              "shape": "square", "x": x + 1, "span": 2,
                              "order": line.get(pos)})
            rows.append({"label": NUMBER if r == 0 else "", "colour": None, "cells": cells})
        return {"columns": max(x for _, x in side.coords) + 2, "ring": True, "rows": rows,
                "value": "marks-only", "caption": Reason("the_choice.caption", side=side.name),
                "mark_rows": {"line": NUMBER, "ring": RING, "count": MISS},
                "extras": [{"key": "misthrows", "label": "misthrows",
                            "value": written["misthrows"], "max": MISTHROWS_TO_END,
                            "points": ""}]}

    def sheet_from_grid(self, data: dict, cells: dict, extras: dict) -> dict:
        """The side being played: x on crossed ring spaces; on number spaces the order in
        which the line passes them (1 = the circled start)."""
        side = self.layout.sides[self._side_index[data["playing"]]]
        ring, line = [], []
        for key, v in cells.items():
            row, col = key.split("@")
            col = int(col)
            if row == RING:
                if str(v).lower() != "x":
                    raise InvalidInput(Reason("the_choice.grid_ring", p=col))
                ring.append(col)
            elif row == NUMBER:
                if not isinstance(v, int) or v < 1:
                    raise InvalidInput(Reason("the_choice.grid_number", n=side.numbers[col]))
                line.append((v, side.numbers[col]))
        orders = [o for o, _ in line]
        if len(set(orders)) != len(orders):
            raise InvalidInput(Reason("the_choice.grid_same_place"))
        data[side.name] = {"colours": sorted(ring), "numbers": [n for _, n in sorted(line)],
                           "misthrows": count_of(extras.get("misthrows", 0),
                                                 Reason("the_choice.l_misthrows"))}
        return data

    def cell_value(self, cell: dict, roll: Roll):
        """A free space is crossed with its own colour (ring) or number (its printed one)."""
        if cell.get("value") is not None:
            return None
        if cell["row"] == RING and cell.get("colour"):
            return cell["colour"]
        printed = cell.get("printed")
        return int(printed) if printed and printed.isdigit() else None

    # -- scoring and the end -------------------------------------------------------
    def side_score(self, sheet: ChoiceSheet, index: int) -> tuple[ScoreLine, ScoreLine]:
        lay, side = self.layout.sides[index], sheet.sides[index]
        n_ring, n_line = len(side.ring), len(side.line)
        return (ScoreLine(Reason("the_choice.l_colours", side=lay.name),
                          self.layout.colour_score(n_ring),
                          Reason("the_choice.d_no_space") if n_ring == 0
                          else Reason("the_choice.d_space") if n_ring == 1
                          else Reason("the_choice.d_spaces", n=n_ring)),
                ScoreLine(Reason("the_choice.l_numbers", side=lay.name),
                          self.layout.number_score(n_line),
                          Reason("the_choice.d_no_line") if n_line == 0
                          else Reason("the_choice.d_line_one") if n_line == 1
                          else Reason("the_choice.d_line", n=n_line)))

    def score(self, sheet: ChoiceSheet, final: bool = False) -> Score:
        """Each side played so far: colour points plus number-line points."""
        lines = list(self.side_score(sheet, sheet.first))
        if sheet.stage == 1:
            lines += self.side_score(sheet, 1 - sheet.first)
        return Score(lines)

    def _full(self, side: ChoiceSide) -> bool:
        return len(side.ring) == RING_SIZE and len(side.line) == NUMBER_SPACES

    def end_reason(self, sheet: ChoiceSheet) -> str | None:
        if not self.is_finished(sheet):
            return None
        side = sheet.side
        return (Reason("the_choice.ended_misthrows", n=side.misthrows)
                if side.misthrows >= MISTHROWS_TO_END else Reason("the_choice.ended_full"))

    def is_finished(self, sheet: ChoiceSheet) -> bool:
        side = sheet.side
        return sheet.stage == 1 and (side.misthrows >= MISTHROWS_TO_END or self._full(side))

    def score_bounds(self) -> tuple[int, int]:
        best = self.layout.colour_score(RING_SIZE) + self.layout.number_score(NUMBER_SPACES)
        return 0, 2 * best
