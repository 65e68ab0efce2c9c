"""Kuh Vadis: the chance to win from how many squares each player still needs.

For each player, the fewest free squares that would join their three starts (a
three-way shortest path over own squares, free squares costing one, the other
player's squares closed) is their distance. The chance that the advised player wins is
a logistic curve in the difference of the distances, with half a square for whoever
moves next (a quad keeps the move). The dice: only how many of each face count, so the
best value of every multiset of five dice is worked out once per pad for 0, 1 and 2
more attempts (462 kept sets, 252 throws), which gives each keep-or-roll choice its
exact expected value.
"""
from __future__ import annotations

import math
from collections import deque
from functools import lru_cache
from itertools import combinations_with_replacement, product

from ..dice import Die, Roll
from ..games.kuh_vadis import (DICE, FACES, NEIGHBOURS, PLAYER_NAMES, ROW_LABELS, SIZE,
                               KuhVadis, other, results)
from ..placement import ENTER, PASS, Mark, Placement
from ..reasons import Reason, declare
from .core import Evaluator

declare({
    "advice.kuh_vadis.win": "joins your three starts: you win",
    "advice.kuh_vadis.need": "you then need {n} more squares",
    "advice.kuh_vadis.need_1": "you then need 1 more square",
    "advice.kuh_vadis.cut_off": "you are cut off",
    "advice.kuh_vadis.them": "the {pl} {n}",
    "advice.kuh_vadis.them_cut_off": "the {pl} are cut off",
    "advice.kuh_vadis.pass": "no square helps: pass ({s}, {s2})",
    "advice.kuh_vadis.square": "{s}, {s2}",
    "advice.kuh_vadis.block": "{s}, {s2} and it blocks them",
    "advice.kuh_vadis.keep": "keep {kf}: wins {a} times in 100 (keeping the roll: {b})",
    "advice.kuh_vadis.roll_all": "roll all five: wins {a} times in 100 (keeping the roll: {b})",
})

STEEPNESS = 0.8
TEMPO = 0.5
FAR = 99


def _distances(owner, player, start) -> list[float]:
    """Free squares needed to reach each square from `start` (own squares free)."""
    dist = [FAR] * (SIZE * SIZE)
    dist[start] = 0
    queue = deque([start])
    while queue:
        i = queue.popleft()
        for j in NEIGHBOURS[i]:
            o = owner[j]
            if o is not None and o != player:
                continue
            d = dist[i] + (0 if o == player else 1)
            if d < dist[j]:
                dist[j] = d
                if o == player:
                    queue.appendleft(j)
                else:
                    queue.append(j)
    return dist


@lru_cache(maxsize=4096)
def distance(owner: tuple, player: str, starts: tuple[int, int, int]) -> int:
    """The fewest free squares that join the three starts (FAR when cut off)."""
    a, b, c = (_distances(owner, player, s) for s in starts)
    best = FAR
    for i in range(SIZE * SIZE):
        if owner[i] is not None and owner[i] != player:
            continue
        own = 0 if owner[i] == player else 1
        best = min(best, a[i] + b[i] + c[i] - 2 * own)
    return best


def _faces_key(counts: tuple[int, ...]) -> Roll:
    return Roll(Die(None, f) for f, k in zip(FACES, counts) for _ in range(k))


@lru_cache(maxsize=None)
def throws(n: int) -> tuple[tuple[tuple[int, ...], float], ...]:
    """Every throw of n dice as face counts, with its chance."""
    out: dict[tuple[int, ...], float] = {}
    for faces in product(range(len(FACES)), repeat=n):
        counts = [0] * len(FACES)
        for f in faces:
            counts[f] += 1
        out[tuple(counts)] = out.get(tuple(counts), 0) + len(FACES) ** -n
    return tuple(out.items())


def _sub_counts(counts: tuple[int, ...]):
    return product(*(range(k + 1) for k in counts))


ALL_HANDS = [tuple(c) for n in range(DICE + 1)
             for c in {tuple(sum(1 for x in combo if x == f) for f in range(len(FACES)))
                       for combo in combinations_with_replacement(range(len(FACES)), n)}]


class KuhVadisEvaluator(Evaluator):
    method = ("chance to win from the squares each player still needs, and every throw "
              "of the dice weighed exactly")
    figure = "chance"

    def __init__(self, game: KuhVadis) -> None:
        super().__init__(game)
        self._hands: tuple | None = None

    def _chance(self, sheet, me: str) -> float:
        game = self.game
        win = game.winner(sheet)
        if win:
            return 1.0 if win == me else 0.0
        starts = game.layout.starts
        mine = distance(sheet.owner, me, starts[me])
        theirs = distance(sheet.owner, other(me), starts[other(me)])
        if mine >= FAR:
            return 0.0
        theirs = min(theirs, 20)
        edge = theirs - mine + (TEMPO if sheet.to_move == me else -TEMPO)
        return 1 / (1 + math.exp(-STEEPNESS * edge))

    def value(self, before, after) -> float:
        return self._chance(after, before.to_move)

    def reason(self, before, after, placement: Placement) -> str:
        game = self.game
        me = before.to_move
        if game.winner(after) == me:
            return Reason("advice.kuh_vadis.win")
        starts = game.layout.starts
        mine = distance(after.owner, me, starts[me])
        theirs = distance(after.owner, other(me), starts[other(me)])
        was = distance(before.owner, other(me), starts[other(me)])
        need = (Reason("advice.kuh_vadis.cut_off") if mine >= FAR
                else Reason("advice.kuh_vadis.need_1") if mine == 1
                else Reason("advice.kuh_vadis.need", n=mine))
        them = (Reason("advice.kuh_vadis.them", pl=PLAYER_NAMES[other(me)], n=theirs)
                if theirs < FAR else
                Reason("advice.kuh_vadis.them_cut_off", pl=PLAYER_NAMES[other(me)]))
        if placement.kind == PASS:
            return Reason("advice.kuh_vadis.pass", s=need, s2=them)
        return Reason("advice.kuh_vadis.block" if theirs > was else "advice.kuh_vadis.square",
                      s=need, s2=them)

    # -- the dice ----------------------------------------------------------------------
    def _hand_values(self, sheet):
        """For the pad `sheet`: (hands, keeps). hands[k][hand]: the chance to win holding
        these five dice with k more attempts; keeps[k][kept]: the chance when the dice
        `kept` stay and the others are thrown, with k more attempts after that throw."""
        if self._hands is not None and self._hands[0] == sheet:
            return self._hands[1]
        game = self.game
        me = sheet.to_move
        pass_value = self._chance(game.apply(sheet, Placement.special(PASS)), me)
        by_result = {}
        final = {}
        for hand in ALL_HANDS:
            if sum(hand) != DICE:
                continue
            best = pass_value
            for res in results(_faces_key(hand)):
                if res not in by_result:
                    v = pass_value
                    for i in game._targets(sheet, res.symbol):
                        mark = Placement(ENTER, (Mark(ROW_LABELS[i // SIZE], i % SIZE,
                                                      res.symbol),))
                        v = max(v, self._chance(game.apply(sheet, mark, res.quad), me))
                    by_result[res] = v
                best = max(best, by_result[res])
            final[hand] = best
        hands, keeps = [final], []
        for _ in range(2):
            keep = {kept: sum(p * hands[-1][tuple(a + b for a, b in zip(kept, t))]
                              for t, p in throws(DICE - sum(kept)))
                    for kept in ALL_HANDS}
            keeps.append(keep)
            hands.append({h: max(v, max(keep[k] for k in _sub_counts(h)))
                          for h, v in final.items()})
        self._hands = (sheet, (hands, keeps))
        return hands, keeps

    def roll_value(self, sheet, roll, attempts_left):
        hands, _ = self._hand_values(sheet)
        return hands[min(attempts_left, 2)][_counts(roll)]

    def reroll_sets(self, sheet, roll):
        faces = [d.face for d in roll.dice]
        seen = {}
        for kept in _sub_counts(_counts(roll)):
            if sum(kept) == DICE:
                continue
            left = list(kept)
            again = []
            for i, f in enumerate(faces):
                k = FACES.index(f)
                if left[k]:
                    left[k] -= 1
                else:
                    again.append(i)
            seen[tuple(kept)] = tuple(again)
        return list(seen.values())

    def reroll_value(self, sheet, roll, dice, attempts_left):
        _, keeps = self._hand_values(sheet)
        kept = [0] * len(FACES)
        for i, d in enumerate(roll.dice):
            if i not in dice:
                kept[FACES.index(d.face)] += 1
        return keeps[min(attempts_left, 1)][tuple(kept)]

    def faces(self, index, die):
        return [Die(die.colour, f) for f in FACES]

    def dice_reason(self, sheet, roll, dice, keep, again):
        kept = [str(d.face) for i, d in enumerate(roll.dice) if i not in dice]
        a, b = f"{again * 100:.0f}", f"{keep * 100:.0f}"
        if kept:
            return Reason("advice.kuh_vadis.keep", kf=" ".join(kept), a=a, b=b)
        return Reason("advice.kuh_vadis.roll_all", a=a, b=b)


def _counts(roll: Roll) -> tuple[int, ...]:
    return tuple(sum(1 for d in roll.dice if d.face == f) for f in FACES)

