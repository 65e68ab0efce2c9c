"""What the advisor answers: ranked options with their expected final score and a reason.

Every figure is the expected final score of the advised player's own sheet (Kuh Vadis:
the chance of winning, since a win scores 1 and anything else 0; twenty one at a table:
that score less a cost for each turn a row still needs), as estimated by the game's
evaluator at the depth the time budget allowed. `Advice.figure` says which (`FIGURES`), so
that a page can put it in words.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..placement import Placement

# depth of an option's figure: 0 = not looked at within the budget (listed last),
# 1 = the value of the sheet it leads to, 2 = also every next roll looked at,
# 3 = the mean of seeded games played to the end from it (Knister; listed first),
# 4 = games played to the end from each next sum's best fields (Knister's best few)
NOT_LOOKED_AT, AFTER, NEXT_ROLL, PLAYED_OUT, LOOKED_FURTHER = 0, 1, 2, 3, 4

# what a figure is: "points" the expected final score, "chance" the chance of winning (0-1),
# "relative" a score less the cost of turns still needed (only its order means anything)
FIGURES = ("points", "chance", "relative")


@dataclass(frozen=True, slots=True)
class Option:
    """One legal placement with the expected final score it leads to."""

    placement: Placement
    expected: float
    reason: str
    depth: int = AFTER

    def to_json(self) -> dict:
        return {"placement": str(self.placement), "expected": round(self.expected, 2),
                "reason": self.reason, "depth": self.depth}


@dataclass(frozen=True, slots=True)
class DiceChoice:
    """One way to go on rolling: `action` is "keep" (answer this roll), "reroll" (roll
    the dice at 1-based positions `dice` again) or "roll" (Qwinto, before rolling: roll
    the dice of the colours `dice`)."""

    action: str
    dice: tuple
    expected: float
    reason: str

    def __str__(self) -> str:
        if self.action == "keep":
            return "keep this roll"
        if self.action == "roll":
            return "roll " + " ".join(self.dice)
        return "roll again: " + " ".join(f"die {d}" for d in self.dice)

    def to_json(self) -> dict:
        return {"action": self.action, "dice": list(self.dice), "text": str(self),
                "expected": round(self.expected, 2), "reason": self.reason}


@dataclass(frozen=True, slots=True)
class Advice:
    """Every legal placement, best first (ties in the order of the placement's text),
    and for a roller who may still roll, the dice choices best first."""

    game: str
    role: str
    options: tuple[Option, ...]
    dice: tuple[DiceChoice, ...] = ()
    method: str = ""
    figure: str = "points"   # what `expected` is: one of FIGURES

    @property
    def best(self) -> Option | None:
        return self.options[0] if self.options else None

    def to_json(self) -> dict:
        return {"game": self.game, "role": self.role, "method": self.method,
                "figure": self.figure,
                "options": [o.to_json() for o in self.options],
                "dice": [d.to_json() for d in self.dice]}


class Budget:
    """The time a call may take, measured on an injected clock (the engine has none).

    `clock` returns seconds (e.g. `time.process_time` for one core's CPU time); with no
    clock the advisor does its whole fixed amount of work, which makes it repeatable.
    """

    __slots__ = ("_clock", "_end")

    def __init__(self, seconds: float, clock: Callable[[], float] | None) -> None:
        self._clock = clock
        self._end = None if clock is None else clock() + seconds

    @property
    def clocked(self) -> bool:
        """Whether there is a clock (else the work is fixed)."""
        return self._clock is not None

    def over(self) -> bool:
        return self._clock is not None and self._clock() >= self._end

    def left(self) -> float:
        """Seconds left (infinite without a clock)."""
        return float("inf") if self._clock is None else self._end - self._clock()
