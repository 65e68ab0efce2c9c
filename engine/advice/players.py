"""Players that roll and choose on their own, and whole seeded games between them.

Three kinds, used by `bench/advisor.py`, the tests and `dice-companion play --bots`:
- `RandomPlayer`: any legal placement, equally likely; rolls again 3 times in 10.
- `GreedyPlayer`: the placement that scores most now (ties: the one that writes most
  marks, then chance); rolls again only when the roll lets it write nothing.
- `AdvisorPlayer`: follows the advisor: the best placement and the best dice choice
  (Qwinto: the best colours to roll). Like the others it never ends a first side of The
  Choice early (the advisor's values never gain by it).

`play_game` runs one game on the unchecked core. The dice come from their own seeded
generator and every seat's choices from another, so players of different kinds on the
same seed see the same dice as long as they roll the same way.
"""
from __future__ import annotations

import random
from typing import Sequence

from ..dice import Roll
from ..game import OTHER, ROLLER, Game
from ..placement import ENTER, Placement
from . import advise, advise_dice, evaluator_for
from .types import Budget


class Player:
    name = "player"

    def first_roll(self, game: Game, sheet, dice: random.Random) -> Roll:
        return game.random_roll(dice)

    def reroll(self, game: Game, sheet, roll: Roll, attempts_left: int,
               dice: random.Random, rng: random.Random) -> Roll | None:
        return None

    def place(self, game: Game, sheet, roll: Roll, role: str,
              rng: random.Random) -> Placement:
        raise NotImplementedError


def _writes_nothing(game: Game, sheet, roll: Roll) -> bool:
    return all(p.kind != ENTER for p in game.legal(sheet, roll, ROLLER))


class RandomPlayer(Player):
    name = "random"

    def reroll(self, game, sheet, roll, attempts_left, dice, rng):
        return game.random_roll(dice, roll) if rng.random() < 0.3 else None

    def place(self, game, sheet, roll, role, rng):
        return rng.choice(list(game.legal(sheet, roll, role)))


class GreedyPlayer(Player):
    name = "greedy"

    def __init__(self, seat: int = 0) -> None:
        self.seat = seat

    def reroll(self, game, sheet, roll, attempts_left, dice, rng):
        return game.random_roll(dice, roll) if _writes_nothing(game, sheet, roll) else None

    def place(self, game, sheet, roll, role, rng):
        scored = []
        for p in game.legal(sheet, roll, role):
            after = game.apply_result(sheet, roll, role, p)
            scored.append((game.seat_score(after, self.seat).total, len(p.marks), p))
        top = max((s, n) for s, n, _ in scored)
        return rng.choice([p for s, n, p in scored if (s, n) == top])


class AdvisorPlayer(Player):
    name = "advisor"

    def __init__(self, game: Game, seed: int = 0, budget_s: float = 0.2, clock=None,
                 players: int = 1) -> None:
        self.evaluator = evaluator_for(game, players)
        self.seed, self.budget_s, self.clock = seed, budget_s, clock

    def _budget(self) -> Budget:
        return Budget(self.budget_s, self.clock)

    def first_roll(self, game, sheet, dice):
        choose = getattr(self.evaluator, "colour_choices", None)
        if choose is None:
            return game.random_roll(dice)
        colours = choose(sheet)[0].dice
        return Roll.parse(" ".join(f"{c}:{dice.randint(1, 6)}" for c in colours))

    def reroll(self, game, sheet, roll, attempts_left, dice, rng):
        best = advise_dice(self.evaluator, sheet, roll, attempts_left, seed=self.seed,
                           budget=self._budget())[0]
        if best.action != "reroll":
            return None
        new = list(roll.dice)
        for d in best.dice:
            faces = self.evaluator.faces(d - 1, roll.dice[d - 1])
            new[d - 1] = faces[dice.randrange(len(faces))]
        return Roll(new)

    def place(self, game, sheet, roll, role, rng):
        return advise(game, sheet, roll, role, evaluator=self.evaluator, seed=self.seed,
                      budget=self._budget()).best.placement


def play_game(game: Game, players: Sequence[Player], seed: int,
              max_turns: int = 10_000) -> list[int]:
    """One seeded game; the final score of every seat."""
    dice = random.Random(seed)
    rngs = [random.Random(f"{seed}:{seat}") for seat in range(len(players))]
    n = len(players)
    sheets = [game.new_sheet()] * n if game.shared_sheet else \
        [game.new_sheet() for _ in range(n)]
    roller = game.first_roller(sheets)
    for _ in range(max_turns):
        player = players[roller]
        roll = player.first_roll(game, sheets[roller], dice)
        for attempt in range(1, game.max_attempts):
            again = player.reroll(game, sheets[roller], roll, game.max_attempts - attempt,
                                  dice, rngs[roller])
            if again is None:
                break
            roll = again
        for seat in [roller] + [s for s in range(n) if s != roller]:
            role = ROLLER if seat == roller else OTHER
            if not game.must_answer(role):
                continue
            placement = players[seat].place(game, sheets[seat], roll, role, rngs[seat])
            after = game.apply_result(sheets[seat], roll, role, placement)
            if game.shared_sheet:
                sheets = [after] * n
            else:
                sheets[seat] = after
        if any(game.is_finished(s) for s in sheets):
            break
        roller = game.roller_after(roller, sheets, n)
    else:
        raise RuntimeError(f"game did not end within {max_turns} turns (seed {seed})")
    return [game.seat_score(sheets[s], s, final=True).total for s in range(n)]
