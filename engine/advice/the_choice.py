"""The Choice: the points a side holds plus the share of its open spaces likely to come.

A side is worth its colour points and line points at (crosses + RING_SHARE x open ring
spaces x life) and (line + LINE_SHARE x reach x life), where `reach` is the longest way
the line can still go through unused number spaces (13 on an empty grid), `life` falls
from 1 to 0 with the side's misthrows (3 end it), and the point tables are read between
their steps (8 points at 7 crosses, 13 at 10: 10.5 at 8.5). A side already scored counts
its points; a side not begun counts what an empty side is worth. The advisor never ends
a first side early: ending it only gives up the side's open spaces.

The shares, on the same 40 seeded games against greedy (advisor's mean, share of games
won): RING_SHARE 0.6 / LINE_SHARE 0.6: 33.6, 78 %; 0.4 / 0.6: 33.4, 75 %; 0.8 / 0.6:
31.5, 73 %; 0.6 / 0.4: 30.9, 65 %; 0.6 / 0.8: 32.7, 79 %.
"""
from __future__ import annotations

from functools import lru_cache

from ..dice import Die
from ..games.the_choice import (MISS, MISTHROWS_TO_END, NUMBER, NUMBER_SPACES, RING, RING_SIZE,
                                TheChoice)
from ..placement import MISTHROW, Placement
from ..reasons import Reason, declare
from .core import Evaluator, joined

declare({
    "advice.the_choice.misthrow": "use no dice: misthrow {n} of {m}",
    "advice.the_choice.ring": "{n} colour spaces ({t} crossed)",
    "advice.the_choice.ring_1": "1 colour space ({t} crossed)",
    "advice.the_choice.line": "the line grows to {n} ({a} more reachable)",
    "advice.the_choice.line_end": "the line grows to {n} (it cannot go further)",
    "advice.the_choice.with_misthrow": "{s}, with misthrow {n} of {m}",
    "advice.the_choice.only_misthrow": "misthrow {n} of {m}",
})

RING_SHARE = 0.6
LINE_SHARE = 0.6


def _between(steps: list[tuple[float, float]], x: float) -> float:
    """The points at x, read on straight lines between the table's steps."""
    if x <= steps[0][0]:
        return steps[0][1]
    for (x0, y0), (x1, y1) in zip(steps, steps[1:]):
        if x <= x1:
            return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    return steps[-1][1]


@lru_cache(maxsize=65536)
def _reach(adjacent: tuple, used: frozenset, end: int, cap: int) -> int:
    """The most unused spaces a line ending at `end` can still add (at most `cap`)."""
    best = 0
    for nxt in adjacent[end]:
        if nxt not in used:
            best = max(best, 1 + _reach(adjacent, used | {nxt}, nxt, cap - 1))
            if best >= cap:
                return best
    return best


class TheChoiceEvaluator(Evaluator):
    method = ("points of each side plus a share of its open spaces, and every outcome of "
              "a second attempt weighed by its chance")

    def __init__(self, game: TheChoice, ring_share: float = RING_SHARE,
                 line_share: float = LINE_SHARE) -> None:
        super().__init__(game)
        lay = game.layout
        self.ring_share, self.line_share = ring_share, line_share
        self.colour_steps = [(0.0, 0.0)] + [(float(a), float(p)) for a, p in lay.colour_points]
        self.number_steps = [(0.0, 0.0)] + [(float(i + 1), float(p))
                                           for i, p in enumerate(lay.number_points)]
        self.fresh = self._side_value(0, 0, NUMBER_SPACES, RING_SIZE, 0)

    def _side_value(self, crossed: int, line: int, reach: int, open_ring: int,
                    misthrows: int) -> float:
        life = max(0, MISTHROWS_TO_END - misthrows) / MISTHROWS_TO_END
        return (_between(self.colour_steps, crossed + self.ring_share * open_ring * life)
                + _between(self.number_steps, line + self.line_share * reach * life))

    def reach(self, sheet, index: int) -> int:
        side = sheet.sides[index]
        if not side.line:
            return NUMBER_SPACES
        adjacent = tuple(self.game.layout.sides[index].adjacent)
        return _reach(adjacent, frozenset(side.line), side.line[-1],
                      NUMBER_SPACES - len(side.line))

    def side_value(self, sheet, index: int) -> float:
        side = sheet.sides[index]
        return self._side_value(len(side.ring), len(side.line), self.reach(sheet, index),
                                RING_SIZE - len(side.ring), side.misthrows)

    def value(self, before, after) -> float:
        game = self.game
        if game.is_finished(after):
            return float(game.score(after, final=True).total)
        first, second = after.first, 1 - after.first
        if after.stage == 0:
            return self.side_value(after, first) + self.fresh
        return sum(line.points for line in game.side_score(after, first)) + \
            self.side_value(after, second)

    def reason(self, before, after, placement: Placement) -> str:
        side = before.side
        if placement.kind == MISTHROW:
            return Reason("advice.the_choice.misthrow", n=side.misthrows + 1, m=MISTHROWS_TO_END)
        ring = [m for m in placement.marks if m.row == RING]
        nums = [m for m in placement.marks if m.row == NUMBER]
        miss = any(m.row == MISS for m in placement.marks)
        parts = []
        if ring:
            crossed = len(side.ring) + len(ring)
            parts.append(Reason("advice.the_choice.ring_1", t=crossed) if len(ring) == 1
                         else Reason("advice.the_choice.ring", n=len(ring), t=crossed))
        if nums:
            now = after.sides[before.current]
            reach = self.reach(after, before.current) if after.current == before.current \
                else 0
            parts.append(Reason("advice.the_choice.line", n=len(now.line), a=reach) if reach
                         else Reason("advice.the_choice.line_end", n=len(now.line)))
        if not parts:
            return Reason("advice.the_choice.only_misthrow", n=side.misthrows + 1,
                          m=MISTHROWS_TO_END)
        text = joined(parts)
        if miss:
            return Reason("advice.the_choice.with_misthrow", s=text, n=side.misthrows + 1,
                          m=MISTHROWS_TO_END)
        return text

    # -- the second attempt: any 1, 2 or 3 dice ------------------------------------------
    def reroll_sets(self, sheet, roll):
        return [(0,), (1,), (2,), (0, 1), (0, 2), (1, 2), (0, 1, 2)]

    def faces(self, index, die):
        colours = self.game.layout.dice[index]
        return [Die(colours[n], n) for n in range(1, 7)]
