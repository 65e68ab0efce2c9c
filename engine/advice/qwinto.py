"""Qwinto: the score so far plus what the open fields are likely to bring.

Each run of empty fields in a row lies between two written numbers (or the row's ends),
which leaves it a range of values. A run of n fields with a values to choose from is
expected to take n x FILL x min(1, a / (n x SLACK)) more numbers (1 point each); a
3-field column still open is expected to pay its pentagon when all its runs look likely
to fill; a full row pays its last number instead of the count. The roller's choice of
dice (which colours, and whether to roll again) weighs every sum of the chosen dice by
its chance.

FILL and SLACK were chosen on the same 60 seeded solo games (mean points; standard error
about 2): FILL 0.6 with SLACK 1.0: 32.0, 1.5: 45.4, 2.2: 49.7, 3.0: 43.9, 4.0: 39.4;
FILL 0.4 with SLACK 1.0: 31.0, 1.5: 40.6, 2.2: 40.4; FILL 0.8 with SLACK 1.0: 16.3,
1.5: 42.7, 2.2: 44.4; FILL 0.5 / 0.7 with SLACK 2.2 / 3.0: 44.1, 40.9 / 43.5.
"""
from __future__ import annotations

from functools import lru_cache
from itertools import combinations, product

from ..dice import Die
from ..games.qwinto import CROSSED, DICE_COLOURS, Qwinto
from ..placement import ENTER, FAIL, PASS, Mark, Placement
from ..reasons import Reason, declare
from .core import Evaluator
from .types import DiceChoice

declare({
    "advice.qwinto.fail": "a failed attempt: 5 points off",
    "advice.qwinto.pass": "write nothing this turn",
    "advice.qwinto.pentagon": "completes column {p} for its pentagon, {n} points",
    "advice.qwinto.pentagon_1": "completes column {p} for its pentagon, 1 point",
    "advice.qwinto.row_full": "fills the {c} row, which scores its last number",
    "advice.qwinto.open": "leaves {a} open fields to its left and {b} to its right",
    "advice.qwinto.open_1": "leaves 1 open field to its left and {b} to its right",
    "advice.qwinto.sums": "sums {a}-{b}, {x} on average",
})

FILL = 0.6
SLACK = 2.2


@lru_cache(maxsize=None)
def sum_chances(dice: int) -> dict[int, float]:
    """The chance of each sum of `dice` six-sided dice."""
    out: dict[int, float] = {}
    for faces in product(range(1, 7), repeat=dice):
        out[sum(faces)] = out.get(sum(faces), 0) + 6 ** -dice
    return out


class QwintoEvaluator(Evaluator):
    method = ("score so far plus the expected fills of the open fields, and every sum "
              "of the dice weighed by its chance")

    def __init__(self, game: Qwinto, fill: float = FILL, slack: float = SLACK) -> None:
        super().__init__(game)
        self.fill, self.slack = fill, slack
        lay = game.layout
        self.top = lay.max_value + 1
        self.columns3 = [(c, m, next(r for r in m if c in lay.rows[r].pentagons))
                         for c, m in game._columns.items() if len(m) == 3]
        self._memo: tuple | None = None

    def _runs(self, cells, fields):
        """(first field index, fields in the run, values free) for each run of empties. A field
        crossed out (erased, ``CROSSED``) holds no number and takes none: it is left out, and the
        numbers on either side of it still bound the run."""
        out = []
        low, start, n = 0, 0, 0
        for i, p in enumerate(fields):
            v = cells[p]
            if v == CROSSED:
                continue
            if v is None:
                if n == 0:
                    start = i
                n += 1
                continue
            if n:
                out.append((start, n, v - low - 1))
            low, n = v, 0
        if n:
            out.append((start, n, self.top - low - 1))
        return out

    def field_chance(self, n: int, free: int) -> float:
        return self.fill * min(1.0, max(free, 0) / (n * self.slack))

    def value(self, before, after) -> float:
        game = self.game
        lay = game.layout
        total = float(game.score(after).total)
        chance_at: dict[tuple[int, int], float] = {}
        for r, row in enumerate(lay.rows):
            cells = after.rows[r]
            runs = self._runs(cells, row.fields)
            if not runs:
                continue
            # a row with a field crossed out is never full (its last field's bonus is out of reach)
            full = 0.0 if CROSSED in cells else 1.0
            extra = 0.0
            for start, n, free in runs:
                c = self.field_chance(n, free)
                extra += n * c
                full *= c ** n
                for p in row.fields[start:start + n]:
                    chance_at[(r, p)] = c
            total += extra
            if full:
                last = cells[row.fields[-1]] or (self.top - 2)
                total += full * max(0, last - len(row.fields))
        for c, members, pent in self.columns3:
            if any(after.rows[r][c] == CROSSED for r in members):
                continue  # a column with a field crossed out earns no bonus
            missing = [chance_at[(r, c)] for r in members if after.rows[r][c] is None]
            if not missing:
                continue
            chance = 1.0
            for m in missing:
                chance *= m
            v = after.rows[pent][c]
            if v is None:
                v = self._middle(after, pent, c)
            total += chance * v
        return total

    def _middle(self, sheet, r: int, c: int) -> float:
        """The middle of the values an empty field can still take."""
        fields = self.game.layout.rows[r].fields
        cells = sheet.rows[r]
        low = max((cells[p] for p in fields if p < c and cells[p] not in (None, CROSSED)),
                  default=0)
        high = min((cells[p] for p in fields if p > c and cells[p] not in (None, CROSSED)),
                   default=self.top)
        return (low + high) / 2

    def reason(self, before, after, placement: Placement) -> str:
        lay = self.game.layout
        if placement.kind == FAIL:
            return Reason("advice.qwinto.fail")
        if placement.kind == PASS:
            return Reason("advice.qwinto.pass")
        (mark,) = placement.marks
        r = self.game._by_label[mark.row]
        row = lay.rows[r]
        i = row.fields.index(mark.col)
        cells = after.rows[r]
        left = [p for p in row.fields[:i]]
        right = [p for p in row.fields[i + 1:]]
        lo_open = sum(1 for p in reversed(left) if cells[p] is None)
        hi_open = sum(1 for p in right if cells[p] is None)
        bonus = [c for c, members, pent in self.columns3 if c == mark.col and
                 all(isinstance(after.rows[m][c], int) for m in members)]
        if bonus:
            pent = next(p for c, m, p in self.columns3 if c == mark.col)
            # the column as the sheet numbers it (the rules' sentences and the drawn sheet)
            points = after.rows[pent][mark.col]
            return Reason("advice.qwinto.pentagon_1" if points == 1 else "advice.qwinto.pentagon",
                          p=mark.col, n=points)
        if all(isinstance(cells[p], int) for p in row.fields):
            return Reason("advice.qwinto.row_full", c=row.colour)
        if lo_open == 1:
            return Reason("advice.qwinto.open_1", b=hi_open)
        return Reason("advice.qwinto.open", a=lo_open, b=hi_open)

    # -- the roller's dice -------------------------------------------------------------
    def _row_best(self, sheet) -> tuple[float, list[dict[int, float]]]:
        """The value after a failed attempt, and per row and sum the best value of
        writing that sum in that row (kept for the last sheet asked about)."""
        if self._memo is not None and self._memo[0] is sheet:
            return self._memo[1]
        game = self.game
        fail = self.value(sheet, game.apply(sheet, Placement.special(FAIL)))
        best: list[dict[int, float]] = []
        for r, row in enumerate(game.layout.rows):
            by_sum: dict[int, float] = {}
            for total in range(1, game.layout.max_value + 1):
                for p in row.fields:
                    if sheet.rows[r][p] is None and game._fits(sheet, r, p, total) is None:
                        after = game.apply(sheet, Placement(ENTER, (Mark(row.label, p, total),)))
                        v = self.value(sheet, after)
                        if v > by_sum.get(total, float("-inf")):
                            by_sum[total] = v
            best.append(by_sum)
        self._memo = (sheet, (fail, best))
        return fail, best

    def sum_values(self, sheet, colours) -> dict[int, float]:
        """For each sum of the dice of `colours`: the best placement's value."""
        fail, best = self._row_best(sheet)
        rows = [self.game._by_colour[c] for c in colours]
        return {s: max([fail] + [best[r][s] for r in rows if s in best[r]])
                for s in sum_chances(len(colours))}

    def colour_value(self, sheet, colours, attempts: int = 2) -> float:
        """Expected final score of rolling the dice of `colours` (with a second attempt)."""
        values = self.sum_values(sheet, colours)
        chances = sum_chances(len(colours))
        again = sum(chances[s] * values[s] for s in chances)
        if attempts < 2:
            return again
        return sum(chances[s] * max(values[s], again) for s in chances)

    def colour_choices(self, sheet) -> tuple[DiceChoice, ...]:
        out = []
        for k in (1, 2, 3):
            for colours in combinations(DICE_COLOURS, k):
                v = self.colour_value(sheet, colours)
                out.append(DiceChoice("roll", colours, v, self._colour_reason(sheet, colours)))
        out.sort(key=lambda c: (-c.expected, len(c.dice), c.dice))
        return tuple(out)

    def _colour_reason(self, sheet, colours) -> str:
        chances = sum_chances(len(colours))
        lo, hi = min(chances), max(chances)
        return Reason("advice.qwinto.sums", a=lo, b=hi,
                      x=f"{sum(chances[s] * s for s in chances):.1f}")

    def reroll_sets(self, sheet, roll):
        return [tuple(range(len(roll)))]

    def reroll_value(self, sheet, roll, dice, attempts_left):
        return self.colour_value(sheet, roll.colours, attempts=1)

    def faces(self, index, die):
        return [Die(die.colour, f) for f in range(1, 7)]
