"""The advisor: every legal placement ranked by the expected final score it leads to,
with a reason a player understands, and for a roller the best way to roll again.

Pure like the rest of the engine: no I/O and no clock of its own. The time budget is
measured on a clock the caller passes (`clock=time.process_time`); without one the
advisor does its fixed amount of work. The same seed (and the same budget outcome) gives
the same advice. How each game is valued: the evaluator modules beside this one, and
docs/advisor.md with the measured strength.
"""
from __future__ import annotations

from typing import Callable

from ..dice import Roll
from ..game import ROLLER, Game
from .core import Evaluator, advise_dice
from .core import advise as _advise
from .types import Advice, Budget, DiceChoice, Option

DEFAULT_BUDGET_MS = 200

__all__ = ["advise", "advise_dice", "colour_choices", "evaluator_for", "Advice", "Budget",
           "DiceChoice", "Option", "Evaluator", "DEFAULT_BUDGET_MS"]


def evaluator_for(game: Game, players: int = 1) -> Evaluator:
    """The evaluator of this game for a table of `players` (built once per game object
    by the caller; only twenty one values a sheet differently alone and at a table)."""
    from .kuh_vadis import KuhVadisEvaluator
    from .knister import KnisterEvaluator
    from .qwinto import QwintoEvaluator
    from .the_choice import TheChoiceEvaluator
    from .twenty_one import TwentyOneEvaluator
    kinds = {"knister": KnisterEvaluator, "twenty_one": TwentyOneEvaluator,
             "qwinto": QwintoEvaluator, "kuh_vadis": KuhVadisEvaluator,
             "the_choice": TheChoiceEvaluator}
    if game.name == "twenty_one":
        return TwentyOneEvaluator(game, players)
    return kinds[game.name](game)


def advise(game: Game, sheet, roll: Roll, role: str = ROLLER, *, attempts_left: int = 0,
           players: int = 1, seed: int = 0, budget_ms: float = DEFAULT_BUDGET_MS,
           clock: Callable[[], float] | None = None, evaluator: Evaluator | None = None,
           budget: Budget | None = None) -> Advice:
    """Advice for `role` on `roll` at a table of `players`: `attempts_left` > 0 adds
    the roller's dice choices."""
    evaluator = evaluator or evaluator_for(game, players)
    budget = budget or Budget(budget_ms / 1000, clock)
    return _advise(game, evaluator, sheet, roll, role, attempts_left=attempts_left,
                   seed=seed, budget=budget)


def colour_choices(game: Game, sheet, evaluator: Evaluator | None = None):
    """Qwinto, before rolling: each set of colours to roll with its expected score."""
    evaluator = evaluator or evaluator_for(game)
    choose = getattr(evaluator, "colour_choices", None)
    if choose is None:
        return ()
    return choose(sheet)
