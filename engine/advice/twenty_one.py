"""twenty one: the exact value of a row for a player who always rolls.

A row's future depends only on which of its six fields are still empty and how many
exact hits it holds (the bonus is paid on the count), so `solve_row` works out, for each
such state, the expected points still to come under the best play: every roll of the
dice of the empty fields, keeping it or rolling again (1s stay), and then the best set
of numbers to write or the cross.

Alone, that is the expected score (exact). At a table the game ends as soon as anyone
has filled their sheet, so a slow row is cut short: there every turn a row still needs
costs TABLE_TURN_COST points, and the figures are points less that cost. The cost was
chosen on seeded 3-player games against greedy and random players (advisor wins 40 %
of them against greedy at 0, 43 % at 2, 54 % at 4, 79 % at 7, 83 % at 12; 60 games each),
and played alone it loses little (docs/advisor.md). The values for the printed numbers
6 5 4 3 2 1 ship in tables/twenty_one_rows.json (`bench/advisor_tables.py` writes them);
other printed numbers are solved when first used.
"""
from __future__ import annotations

import json
from importlib import resources
from itertools import product

from ..dice import Die
from ..game import ROLLER
from ..games.twenty_one import CROSSED, TwentyOne
from ..placement import CROSS, Placement
from ..reasons import Reason, declare
from .core import Evaluator

declare({
    "advice.twenty_one.cross": "cross out the {c} field (nothing here is worth writing)",
    "advice.twenty_one.hit": "an exact hit",
    "advice.twenty_one.hits": "{n} exact hits",
    "advice.twenty_one.then": "{s}: {s2}",
    "advice.twenty_one.completes": "completes row {r} for {n} points",
    "advice.twenty_one.worth":
        "row {r} then worth {x} (its points less {x2} for each turn it still needs)",
    "advice.twenty_one.averages": "row {r} then averages {x} points",
})

FULL = 63
TABLE_TURN_COST = 8.0


def _eff_outcomes(numbers, positions):
    """Every outcome of the dice of `positions` as written numbers (0: above the printed
    number, cannot be written), with its chance."""
    per = []
    for p in positions:
        n = numbers[p]
        opts = [(v, 1 / 6) for v in range(1, n + 1)]
        if n < 6:
            opts.append((0, (6 - n) / 6))
        per.append(opts)
    for combo in product(*per):
        chance = 1.0
        for _, c in combo:
            chance *= c
        yield tuple(v for v, _ in combo), chance


def solve_row(numbers: tuple[int, ...], bonus: tuple[int, ...], turn_cost: float = 0.0):
    """(F, R): F[(empty, hits)] the expected points still to come in a row with the
    fields `empty` (bits) empty and `hits` exact hits, before a roll, less `turn_cost`
    for every turn still needed; R[(empty, hits, ones)] the same after a first roll whose
    dice showing 1 are at `ones`, when the roller rolls the other dice again."""
    F: dict[tuple[int, int], float] = {}
    R: dict[tuple[int, int, int], float] = {}
    for h in range(7):
        F[(0, h)] = float(bonus[h])
    for empty in sorted(range(1, 64), key=lambda e: bin(e).count("1")):
        positions = [p for p in range(6) if empty >> p & 1]
        leftmost = empty & -empty
        for h in range(7 - len(positions)):
            keep_of: dict[tuple[int, ...], float] = {}

            def keep(values, positions=positions, h=h, empty=empty, leftmost=leftmost):
                got = keep_of.get(values)
                if got is not None:
                    return got
                best = F[(empty & ~leftmost, h)]        # the cross
                writable = [(p, v) for p, v in zip(positions, values) if v]
                for bits in range(1, 1 << len(writable)):
                    total, hits, gone = 0, h, 0
                    for i, (p, v) in enumerate(writable):
                        if bits >> i & 1:
                            total += v
                            hits += v == numbers[p]
                            gone |= 1 << p
                    value = total + F[(empty & ~gone, hits)]
                    if value > best:
                        best = value
                keep_of[values] = best
                return best

            # rolling again: the dice showing 1 stay
            for ones_at in range(1 << len(positions)):
                ones = sum(1 << p for i, p in enumerate(positions) if ones_at >> i & 1)
                free = [p for p in positions if not ones >> p & 1]
                total = 0.0
                for values, chance in _eff_outcomes(numbers, free):
                    it = iter(values)
                    full = tuple(1 if ones >> p & 1 else next(it) for p in positions)
                    total += chance * keep(full)
                R[(empty, h, ones)] = total
            expect = 0.0
            for values, chance in _eff_outcomes(numbers, positions):
                ones = sum(1 << p for p, v in zip(positions, values) if v == 1)
                expect += chance * max(keep(values), R[(empty, h, ones)])
            F[(empty, h)] = expect - turn_cost
    return F, R


def tables_json(F, R, turn_cost: float) -> dict:
    return {"turn_cost": turn_cost,
            "F": {f"{e},{h}": round(v, 4) for (e, h), v in sorted(F.items())},
            "R": {f"{e},{h},{o}": round(v, 4) for (e, h, o), v in sorted(R.items())}}


def _load(numbers, bonus, turn_cost):
    text = resources.files("engine.advice").joinpath("tables", "twenty_one_rows.json") \
        .read_text("utf-8")
    data = json.loads(text)
    if tuple(data["numbers"]) != tuple(numbers) or tuple(data["bonus"]) != tuple(bonus):
        return None
    for table in data["tables"]:
        if table["turn_cost"] == turn_cost:
            F = {tuple(map(int, k.split(","))): v for k, v in table["F"].items()}
            R = {tuple(map(int, k.split(","))): v for k, v in table["R"].items()}
            return F, R
    return None


class TwentyOneEvaluator(Evaluator):
    method = "exact row values (every roll, re-roll and choice weighed)"

    def __init__(self, game: TwentyOne, players: int = 1) -> None:
        super().__init__(game)
        bonus = game.layout.exact_hit_bonus
        self.turn_cost = 0.0 if players == 1 else TABLE_TURN_COST
        if self.turn_cost:
            self.figure = "relative"
            self.method += f", each turn a row still needs costing {self.turn_cost:g} points"
        self.rows = []
        solved: dict = {}
        for row in game.layout.rows:
            if row.numbers not in solved:
                solved[row.numbers] = _load(row.numbers, bonus, self.turn_cost) or \
                    solve_row(row.numbers, bonus, self.turn_cost)
            self.rows.append(solved[row.numbers])

    def _row_state(self, sheet, r: int) -> tuple[int, int, int]:
        """(empty fields as bits, exact hits, numbers written) of row r."""
        nums = self.game.layout.rows[r].numbers
        empty = hits = written = 0
        for p, v in enumerate(sheet.rows[r]):
            if v is None:
                empty |= 1 << p
            elif v != CROSSED:
                written += v
                hits += v == nums[p]
        return empty, hits, written

    def value(self, before, after) -> float:
        game = self.game
        current = after.current_row
        if current is None:
            return game.score(after, final=True).total
        total = game.score(after).total          # the full rows
        empty, hits, written = self._row_state(after, current)
        total += written + self.rows[current][0][(empty, hits)]
        for r in range(current + 1, len(after.rows)):
            total += self.rows[r][0][(FULL, 0)]
        return total

    def reason(self, before, after, placement: Placement) -> str:
        r = before.current_row
        lay = self.game.layout.rows[r]
        # what is written the page and the command line say already; a field crossed out,
        # and exact hits, they do not
        if placement.kind == CROSS:
            p = before.rows[r].index(None)
            what = Reason("advice.twenty_one.cross", c=lay.colours[p])
        else:
            new_hits = sum(m.value == lay.numbers[m.col] for m in placement.marks)
            what = (None if not new_hits else Reason("advice.twenty_one.hit") if new_hits == 1
                    else Reason("advice.twenty_one.hits", n=new_hits))
        if after.current_row != r:
            pts = self.game.score(after).lines[-1].points
            row = Reason("advice.twenty_one.completes", r=lay.label, n=pts)
        else:
            empty, row_hits, written = self._row_state(after, r)
            worth = written + self.rows[r][0][(empty, row_hits)]
            row = (Reason("advice.twenty_one.worth", r=lay.label, x=f"{worth:.1f}",
                          x2=f"{self.turn_cost:g}") if self.turn_cost else
                   Reason("advice.twenty_one.averages", r=lay.label, x=f"{worth:.1f}"))
        return row if what is None else Reason("advice.twenty_one.then", s=what, s2=row)

    # -- rolling again: every die not showing 1 -----------------------------------------
    def reroll_sets(self, sheet, roll):
        again = tuple(i for i, d in enumerate(roll.dice) if d.face != 1)
        return [again] if again else []

    def faces(self, index: int, die: Die):
        return [Die(die.colour, f) for f in range(1, 7)]

    def reroll_value(self, sheet, roll, dice, attempts_left):
        """Exact: the solved row's value of rolling again with these 1s kept."""
        r = sheet.current_row
        if r is None:
            return None
        empty, hits, written = self._row_state(sheet, r)
        pos = self.game._pos[r]
        ones = sum(1 << pos[d.colour] for d in roll.dice
                   if d.face == 1 and empty >> pos[d.colour] & 1)
        after = self.game.score(sheet).total + written + self.rows[r][1][(empty, hits, ones)]
        for below in range(r + 1, len(sheet.rows)):
            after += self.rows[below][0][(FULL, 0)]
        return after

    def best_value(self, sheet, roll) -> float:
        game = self.game
        return max(self.value(sheet, game.apply(sheet, p))
                   for p in game.legal(sheet, roll, ROLLER))
