"""The advisor's search, the same for every game; what differs is the game's evaluator.

1. Every legal placement is written on a copy of the sheet and the evaluator's `value`
   of the result (its estimate of the player's expected final score) ranks it.
2. While the budget lasts, the best options are looked at again with `deepen`, which
   weighs every next roll by its chance (the evaluator says how, or that it has none).
3. For a roller who may roll again, each way of rolling again is weighed by its
   outcomes: all of them with their chances when there are few, otherwise the same
   seeded sample of outcomes for every choice (so choices are compared on equal dice),
   the sample growing while the budget lasts.

"While the budget lasts" means that one more look or outcome is started only while the time
left is more than the last one took, so a call ends within its budget, except that every
option gets its first figure and every dice choice its first round, however short it is.

A placement's figure comes from the deepest look the budget allowed (`Option.depth`);
options not looked at in time are listed last with the figure of the sheet as it is.
"""
from __future__ import annotations

import random
from itertools import product
from typing import Sequence

from ..dice import Die, Roll
from ..game import ROLLER, Game
from ..placement import Placement
from ..reasons import Reason, declare
from .types import AFTER, NEXT_ROLL, NOT_LOOKED_AT, Advice, Budget, DiceChoice, Option

# how many of the best options `deepen` looks at when there is no clock
DEEPEN_WITHOUT_CLOCK = 6
# outcomes of a re-roll enumerated exactly up to this many, sampled beyond
EXACT_OUTCOMES = 1296
FIRST_SAMPLE, MAX_SAMPLE = 24, 384
# seconds kept back from the dice choices' sampling for what follows it (their reasons, the
# sort, the answer): over 200 seeded games of The Choice against greedy that took up to 0.4 ms
# (docs/advisor.md, "Time")
FINISH = 0.001

# the advisor's sentences, shared by every game's evaluator: translated by code like the rules'
declare({
    "advice.and": "{s} and {s2}",
    "advice.list": "{s}, {s2}",
    "advice.then": "{s}; {s2}",
    "advice.gain": "worth {x} points on average over keeping this roll",
    "advice.loss": "costs {x} points on average against keeping this roll",
    "advice.answer_now": "answer this roll now",
    "advice.not_looked_at": "not looked at within the time budget",
})


def joined(parts: Sequence[str], code: str = "advice.and") -> str:
    """Sentences joined into one by `code` ("a and b", "a, b", "a; b"), a reason still."""
    out = parts[0]
    for part in parts[1:]:
        out = Reason(code, s=out, s2=part)
    return out


class Evaluator:
    """One game's knowledge: overridden per game in engine/advice/<game>.py."""

    method = ""
    # what an option's `expected` is (`FIGURES`): the advised player's expected final score
    # unless the evaluator says otherwise
    figure = "points"
    # how many of the best options `deepen` looks at without a clock (None: all)
    deepen_without_clock: int | None = DEEPEN_WITHOUT_CLOCK

    def __init__(self, game: Game) -> None:
        self.game = game

    def value(self, before, after) -> float:
        """The advised player's expected final score once `after` is written."""
        raise NotImplementedError

    def deepen(self, before, after) -> float | None:
        """A better estimate that looks at every next roll, or None."""
        return None

    def play_out(self, before, ranked: list, seed: int, budget: Budget) -> list | None:
        """`ranked` ((figure, depth, placement, sheet after) best first) ranked again by
        games played to the end, where the evaluator plays them; else None."""
        return None

    def reason(self, before, after, placement: Placement) -> str:
        raise NotImplementedError

    # -- rolling again ---------------------------------------------------------------
    def reroll_sets(self, sheet, roll: Roll) -> list[tuple[int, ...]]:
        """The 0-based dice that may be rolled again together (each a choice)."""
        return []

    def faces(self, index: int, die: Die) -> Sequence[Die]:
        """What die `index` can show when rolled again (equally likely)."""
        raise NotImplementedError

    def roll_value(self, sheet, roll: Roll, attempts_left: int) -> float:
        """The expected final score of a roller who holds `roll` with `attempts_left`
        more attempts: by default the best placement (the roller stops)."""
        return self.best_value(sheet, roll)

    def reroll_value(self, sheet, roll: Roll, dice: tuple[int, ...],
                     attempts_left: int) -> float | None:
        """The exact expectation of rolling `dice` again, where the evaluator knows it
        (otherwise the outcomes are enumerated or sampled)."""
        return None

    def best_value(self, sheet, roll: Roll) -> float:
        game = self.game
        return max(self.value(sheet, game.apply_result(sheet, roll, ROLLER, p))
                   for p in game.legal(sheet, roll, ROLLER))

    def dice_reason(self, sheet, roll: Roll, dice: tuple[int, ...], keep: float,
                    again: float) -> str:
        if again > keep:
            return Reason("advice.gain", x=f"{again - keep:+.1f}")
        return Reason("advice.loss", x=f"{keep - again:.1f}")


def advise(game: Game, evaluator: Evaluator, sheet, roll: Roll, role: str = ROLLER, *,
           attempts_left: int = 0, seed: int = 0, budget: Budget | None = None) -> Advice:
    """Every legal placement ranked by expected final score; with `attempts_left` (a
    roller who may still roll) also the dice choices."""
    budget = budget or Budget(0, None)
    legal = list(game.legal(sheet, roll, role))
    if not legal:
        return Advice(game.name, role, (), (), evaluator.method, evaluator.figure)
    now = evaluator.value(sheet, sheet)
    scored: list[tuple[float, int, Placement, object]] = []
    for placement in legal:
        if scored and budget.over():
            break
        after = game.apply_result(sheet, roll, role, placement)
        scored.append((evaluator.value(sheet, after), AFTER, placement, after))
    scored.sort(key=lambda t: (-t[0], str(t[2])))
    deepened = []
    limit = len(scored) if budget.clocked else evaluator.deepen_without_clock or len(scored)
    cost = 0.0                  # what the last deepen took: one more must fit what is left
    for i, (v, depth, placement, after) in enumerate(scored):
        if i >= limit or (deepened and budget.clocked and budget.left() < cost):
            break
        before = budget.left()
        better = evaluator.deepen(sheet, after)
        if better is None:
            break
        if budget.clocked:
            cost = before - budget.left()
        deepened.append(i)
        scored[i] = (better, NEXT_ROLL, placement, after)
    done = {p for _, _, p, _ in scored}
    rest = [(now, NOT_LOOKED_AT, p, None) for p in sorted(legal, key=str) if p not in done]
    ranked = sorted(scored, key=lambda t: (-t[0], str(t[2]))) if deepened else scored
    ranked = evaluator.play_out(sheet, ranked, seed, budget) or ranked
    options = tuple(
        Option(p, v, evaluator.reason(sheet, after, p) if after is not None
               else Reason("advice.not_looked_at"), depth)
        for v, depth, p, after in ranked + rest)
    dice: tuple[DiceChoice, ...] = ()
    if role == ROLLER and attempts_left > 0:
        dice = advise_dice(evaluator, sheet, roll, attempts_left, seed=seed, budget=budget,
                           keep=options[0].expected if options[0].depth else None)
    return Advice(game.name, role, options, dice, evaluator.method, evaluator.figure)


def advise_dice(evaluator: Evaluator, sheet, roll: Roll, attempts_left: int, *,
                seed: int = 0, budget: Budget | None = None,
                keep: float | None = None) -> tuple[DiceChoice, ...]:
    """Keep this roll or roll some dice again, each with its expected final score.

    Outcomes are taken in rounds (FIRST_SAMPLE, then doubling) for every choice in
    turn: all of them with their chances when there are at most EXACT_OUTCOMES (in a
    seeded order, so a cut budget leaves a fair part), else seeded draws that are the
    same dice for every choice. Without a clock a choice gets at most MAX_SAMPLE
    outcomes; with one, the rounds go on while the budget lasts. Every choice gets at
    least one outcome, however short the budget.
    """
    budget = budget or Budget(0, None)
    if keep is None:
        keep = evaluator.roll_value(sheet, roll, 0)
    values: dict[tuple[int, ...], float] = {(): keep}
    pending = []
    for s in evaluator.reroll_sets(sheet, roll):
        exact = evaluator.reroll_value(sheet, roll, s, attempts_left - 1)
        if exact is not None:
            values[s] = exact
            continue
        outcomes = _outcomes(evaluator, roll, s)
        if outcomes is not None:
            random.Random(seed).shuffle(outcomes)
        pending.append((s, outcomes))
    seen: dict[tuple[int, ...], list[float]] = {s: [0.0, 0.0, 0] for s, _ in pending}
    size = FIRST_SAMPLE
    clocked = budget.clocked
    # spent: the time left is less than the last outcome took and FINISH, so another would
    # end past the budget (an outcome can take milliseconds: The Choice's dice choices)
    spent = False
    while pending:
        for s, outcomes in pending:
            acc = seen[s]
            total = len(outcomes) if outcomes is not None else None
            while acc[2] < size and (total is None or acc[2] < total):
                n = acc[2]
                if outcomes is not None:
                    w, r = outcomes[n]
                else:
                    w, r = 1.0, _draw(evaluator, roll, s, n, seed)
                before = budget.left() if clocked else 0.0
                acc[0] += w * evaluator.roll_value(sheet, r, attempts_left - 1)
                acc[1] += w
                acc[2] += 1
                if clocked:
                    left = budget.left()
                    if left < before - left + FINISH:
                        spent = True
                        break
            values[s] = acc[0] / acc[1]
            if spent and size > FIRST_SAMPLE:
                break           # after the first round, which reaches every choice
        pending = [(s, o) for s, o in pending
                   if o is None and seen[s][2] < MAX_SAMPLE
                   or o is not None and seen[s][2] < len(o)]
        if spent or budget.over() or (not clocked and size >= MAX_SAMPLE):
            break
        size *= 2
    out = []
    for s, v in values.items():
        dice = tuple(d + 1 for d in s)
        reason = (Reason("advice.answer_now") if not s else
                  evaluator.dice_reason(sheet, roll, s, keep, v))
        out.append(DiceChoice("keep" if not s else "reroll", dice, v, reason))
    out.sort(key=lambda c: (-c.expected, len(c.dice), c.dice))
    return tuple(out)


def _outcomes(evaluator: Evaluator, roll: Roll, dice: tuple[int, ...]):
    """Every roll after rolling `dice` again, with its chance, or None when too many."""
    faces = [evaluator.faces(d, roll.dice[d]) for d in dice]
    count = 1
    for f in faces:
        count *= len(f)
    if count > EXACT_OUTCOMES:
        return None
    weight = 1 / count
    out = []
    for new in product(*faces):
        dice_now = list(roll.dice)
        for d, die in zip(dice, new):
            dice_now[d] = die
        out.append((weight, Roll(dice_now)))
    return out


def _draw(evaluator: Evaluator, roll: Roll, dice: tuple[int, ...], n: int,
          seed: int) -> Roll:
    """The n-th sampled outcome: the same dice faces for every choice (common numbers)."""
    draw = random.Random(f"{seed}:{n}")
    dice_now = list(roll.dice)
    for d in range(len(roll.dice)):
        faces = evaluator.faces(d, roll.dice[d])
        pick = faces[draw.randrange(len(faces))]
        if d in dice:
            dice_now[d] = pick
    return Roll(dice_now)
