"""A table of players: whose turn, who rolls, who must act, when the game ends.

The table is a value: every action returns a new `Table`, so the companion can store
the list of actions and rebuild any table by replaying them (`Table.replay`). Chance is
explicit: the table never rolls; a `RollDice` action brings the dice (from a camera, a
person, or `Game.random_roll` with a seeded generator).

A turn: the roller makes 1..max_attempts rolls (each second attempt checked against the
game's rule) and finishes rolling: by keeping the roll (`KeepRoll`), by answering it, or
by spending the last attempt. Only then may the other players answer the roll, "once the
active player has finished rolling" (the rule texts); until then their answers are
refused and the roll may still change. Every player answers the final roll with one
placement (the roller as "roller", the others as "other"); a kept roll takes no further
attempt. When all have answered the turn is complete; until the next roll each player
may still undo their own answer. The next roll starts the next player's turn.

Before the first roll, `Begin` names the seat that rolls first (drawn or chosen by the
players; Kuh Vadis: the coin toss), else the game's own first roller begins.

Games adjust this through hooks on `Game` (the defaults keep the behaviour above): only
some roles answer (`must_answer`: in Kuh Vadis only the roller marks), one sheet shared by
all seats (`shared_sheet`), who rolls next (`roller_after`: a Kuh Vadis quad keeps the
dice), who moves first (`begin_with`), the side of the sheet a player starts on before
their first mark (`ChooseSide`, The Choice), and a voluntary end of a sheet side after a
dice action (`EndSide`, The Choice).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Collection, Sequence, Union

from .dice import Roll
from .errors import IllegalPlacement, InvalidInput
from .game import OTHER, ROLLER, Game, LegalPlacements
from .placement import Placement, Score
from .reasons import Reason, declare

declare({
    "table.over": "the game is over",
    "table.no_further_attempt": "{name} has finished rolling: no further attempt on this roll",
    "table.still_rolling": "{name} is still rolling: answer once {name} keeps the roll",
    "table.kept_already": "{name} has already finished rolling: every player may answer "
                          "this roll",
    "table.nothing_to_keep": "there is no open roll to keep",
    "table.attempts_one": "{game} allows 1 attempt per turn",
    "table.attempts": "{game} allows {n} attempts per turn",
    "table.nothing_to_correct": "there is no open roll to correct",
    "table.written_no_correct": "players have already written on this roll: they must undo "
                                "their entries before it can be corrected",
    "table.not_rolled": "nothing has been rolled yet",
    "table.answered": "{name} has already answered this roll",
    "table.roller_only": "in {game} only the roller answers the roll: it is {name}'s turn",
    "table.end_side_after": "{name} may end a side only after answering a roll (after a "
                            "dice action)",
    "table.nothing_to_undo": "{name} has nothing to undo on this roll",
    "table.no_seat_of": "there is no seat {seat} at this table of {n}",
    "table.begin_first": "who begins is settled before the first roll",
    "table.side_answered": "{name} has answered this roll: the side to start on is chosen "
                           "before the first mark",
    "table.seat": "'seat' must be a seat number (0, 1, ...), not {v}",
    "table.erase_answer": "{f} is {name}'s answer to this roll: undo it instead",
    "table.not_field": "'{f}' is not a field: write ROW@COLUMN, e.g. O@4",
    # a malformed action (`action_from_json`) and a table built wrong (`Table.new`)
    "app.action_type": "an action must be a JSON object with a 'type'",
    "table.side_name": "'side' must name a side of the sheet, e.g. \"back\"",
    "table.malformed": "malformed '{kind}' action: {why}",
    "table.unknown_action": "unknown action type '{kind}': roll, correct, keep, place, undo, "
                            "end_side, begin, side or erase",
    "table.layout_each": "one sheet layout per player is needed",
    "table.same_game": "all players must play the same game",
    "table.sheet_each": "one sheet per player is needed",
})


@dataclass(frozen=True)
class RollDice:
    roll: Roll

    def __str__(self) -> str:
        return f"roll {self.roll}"


@dataclass(frozen=True)
class Place:
    seat: int
    placement: Placement

    def __str__(self) -> str:
        return f"seat {self.seat}: {self.placement}"


@dataclass(frozen=True)
class Undo:
    seat: int

    def __str__(self) -> str:
        return f"seat {self.seat}: undo"


@dataclass(frozen=True)
class CorrectRoll:
    """Replace the last roll (a misread die) before anyone has answered it."""

    roll: Roll

    def __str__(self) -> str:
        return f"correct {self.roll}"


@dataclass(frozen=True)
class KeepRoll:
    """The roller has finished rolling: this roll is the one every player answers."""

    def __str__(self) -> str:
        return "keep"


@dataclass(frozen=True)
class Begin:
    """Before the first roll: `seat` rolls first (drawn, chosen, or the coin toss)."""

    seat: int

    def __str__(self) -> str:
        return f"seat {self.seat} begins"


@dataclass(frozen=True)
class ChooseSide:
    """Before a player's first mark: start on `side` of the sheet (The Choice)."""

    seat: int
    side: str

    def __str__(self) -> str:
        return f"seat {self.seat}: starts on the {self.side}"


@dataclass(frozen=True)
class Erase:
    """A player erases a number found wrong in a later round (Qwinto): its field is crossed
    out. `field` is "ROW@COL" ("O@4")."""

    seat: int
    field: str

    def __str__(self) -> str:
        return f"seat {self.seat}: erase {self.field}"

    @property
    def where(self) -> tuple[str, int]:
        row, _, col = self.field.partition("@")
        return row, int(col)


@dataclass(frozen=True)
class EndSide:
    """A player ends the current side of their sheet voluntarily (The Choice)."""

    seat: int

    def __str__(self) -> str:
        return f"seat {self.seat}: end side"


Action = Union[RollDice, Place, Undo, CorrectRoll, KeepRoll, EndSide, Begin, ChooseSide, Erase]


def action_to_json(action: Action) -> dict:
    if isinstance(action, RollDice):
        return {"type": "roll", "roll": str(action.roll)}
    if isinstance(action, CorrectRoll):
        return {"type": "correct", "roll": str(action.roll)}
    if isinstance(action, Place):
        return {"type": "place", "seat": action.seat, "placement": str(action.placement)}
    if isinstance(action, EndSide):
        return {"type": "end_side", "seat": action.seat}
    if isinstance(action, KeepRoll):
        return {"type": "keep"}
    if isinstance(action, Begin):
        return {"type": "begin", "seat": action.seat}
    if isinstance(action, ChooseSide):
        return {"type": "side", "seat": action.seat, "side": action.side}
    if isinstance(action, Erase):
        return {"type": "erase", "seat": action.seat, "field": action.field}
    return {"type": "undo", "seat": action.seat}


def _seat(data: dict) -> int:
    seat = data["seat"]
    if isinstance(seat, bool) or not isinstance(seat, int):
        raise InvalidInput(Reason("table.seat", v=json.dumps(seat)))
    return seat


def _symbols(games: Sequence[Game]) -> frozenset[str]:
    return frozenset().union(*(g.dice_spec().symbol_names for g in games))


def action_from_json(data: Any, symbols: Collection[str] = ()) -> Action:
    """An action from its JSON (`action_to_json`); `symbols`: the word faces a roll of the
    table's dice may show (`Table.symbols`)."""
    if not isinstance(data, dict) or "type" not in data:
        raise InvalidInput(Reason("app.action_type"))
    kind = data["type"]
    try:
        if kind == "roll":
            return RollDice(Roll.parse(str(data["roll"]), symbols))
        if kind == "correct":
            return CorrectRoll(Roll.parse(str(data["roll"]), symbols))
        if kind == "place":
            return Place(_seat(data), Placement.parse(str(data["placement"])))
        if kind == "undo":
            return Undo(_seat(data))
        if kind == "end_side":
            return EndSide(_seat(data))
        if kind == "keep":
            return KeepRoll()
        if kind == "begin":
            return Begin(_seat(data))
        if kind == "side":
            if not isinstance(data["side"], str):
                raise InvalidInput(Reason("table.side_name"))
            return ChooseSide(_seat(data), data["side"])
        if kind == "erase":
            field = str(data["field"]).strip().upper()
            row, at, col = field.partition("@")
            if not (row.isalpha() and at and col.isdigit()):
                raise InvalidInput(Reason("table.not_field", f=data["field"]))
            return Erase(_seat(data), f"{row}@{int(col)}")
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, InvalidInput):
            raise
        raise InvalidInput(Reason("table.malformed", kind=str(kind), why=str(exc))) from None
    raise InvalidInput(Reason("table.unknown_action", kind=str(kind)))


@dataclass(frozen=True)
class Standing:
    rank: int
    seat: int
    player: str
    score: Score


@dataclass(frozen=True)
class Table:
    games: tuple[Game, ...]          # one per seat (twenty one: each a different sheet)
    players: tuple[str, ...]
    sheets: tuple[Any, ...]
    roller: int = 0
    attempts: tuple[Roll, ...] = ()
    answers: tuple[Placement | None, ...] = ()
    before: tuple[Any, ...] = ()     # each seat's sheet before its answer (undo)
    turns: int = 0                   # completed turns
    kept: bool = False               # the roller has finished rolling this turn
    history: tuple[Action, ...] = field(default=(), compare=False)

    # -- building ------------------------------------------------------------------
    @classmethod
    def new(cls, games: Game | Sequence[Game], players: Sequence[str],
            sheets: Sequence[Any] | None = None) -> "Table":
        """A table at the start; `sheets` (one per seat) replaces the games' new sheets
        (The Choice: a player who starts on the back side)."""
        players = tuple(players)
        if isinstance(games, Game):
            games = (games,) * len(players)
        games = tuple(games)
        g = games[0]
        g.check_player_count(len(players))
        if len(games) != len(players):
            raise InvalidInput(Reason("table.layout_each"))
        if len({type(x) for x in games}) != 1:
            raise InvalidInput(Reason("table.same_game"))
        if sheets is None:
            if g.shared_sheet:
                sheets = (g.new_sheet(),) * len(players)
            else:
                sheets = tuple(x.new_sheet() for x in games)
        sheets = tuple(sheets)
        if len(sheets) != len(players):
            raise InvalidInput(Reason("table.sheet_each"))
        return cls(games, players, sheets, roller=g.first_roller(sheets),
                   answers=(None,) * len(players), before=(None,) * len(players))

    @property
    def game(self) -> Game:
        return self.games[0]

    @property
    def symbols(self) -> frozenset[str]:
        """The word faces a roll at this table may show (its games' declared symbols)."""
        return _symbols(self.games)

    # -- what is going on -------------------------------------------------------------
    @property
    def roll(self) -> Roll | None:
        """The roll players answer: the last attempt of this turn."""
        return self.attempts[-1] if self.attempts else None

    @property
    def roll_final(self) -> bool:
        """Whether the roller has finished rolling: the roll kept, answered by the roller,
        or the last attempt spent. Only a final roll is answered by the others."""
        return bool(self.attempts) and (
            self.kept or len(self.attempts) >= self.game.max_attempts)

    @property
    def still_rolling(self) -> bool:
        """A roll is on the table but the roller may still roll again."""
        return bool(self.attempts) and not self.roll_final

    def answers_roll(self, seat: int) -> bool:
        """Whether `seat` answers this turn's roll (everyone, unless the game says not)."""
        return self.games[seat].must_answer(self.role(seat))

    @property
    def turn_complete(self) -> bool:
        return bool(self.attempts) and all(
            a is not None for s, a in enumerate(self.answers) if self.answers_roll(s))

    @property
    def is_over(self) -> bool:
        """A sheet ends the game once the turn is complete (or before any roll: a table
        started from sheets of which one is finished is over at once)."""
        return (not self.attempts or self.turn_complete) and any(
            g.is_finished(s) for g, s in zip(self.games, self.sheets))

    @property
    def next_roller(self) -> int:
        """Who rolls next: the roller until the turn is complete, then the next seat."""
        if not self.turn_complete:
            return self.roller
        return self.game.roller_after(self.roller, self.sheets, len(self.players))

    def role(self, seat: int) -> str:
        return ROLLER if seat == self.roller else OTHER

    def pending(self) -> list[int]:
        """Seats that must answer the current roll now (empty before the first roll);
        while the roller is still rolling, only the roller (who may answer at once)."""
        if not self.attempts:
            return []
        return [s for s, a in enumerate(self.answers)
                if a is None and self.answers_roll(s) and self.may_answer(s)]

    def may_answer(self, seat: int) -> bool:
        """Whether `seat` may answer now: the roller at any time, the others once the
        roll is final."""
        return seat == self.roller or self.roll_final

    def may_reroll(self) -> bool:
        return self.still_rolling

    def legal(self, seat: int) -> LegalPlacements:
        self._check_seat(seat)
        if self.roll is None or self.answers[seat] is not None or not self.answers_roll(seat) \
                or not self.may_answer(seat):
            return LegalPlacements(tuple)
        return self.games[seat].legal(self.sheets[seat], self.roll, self.role(seat))

    def score(self, seat: int) -> Score:
        return self.games[seat].seat_score(self.sheets[seat], seat, final=self.is_over)

    def standings(self, scores: Sequence[Score] | None = None) -> list[Standing]:
        """Players by score, best first; equal scores share a rank. `scores`: the seats'
        scores (`score(s)` for each seat) when the caller has them already: the companion
        keeps them per sheet, since an action changes one sheet and scoring all of them for
        every state was a fifth of an action's time."""
        if scores is None:
            scores = [self.score(s) for s in range(len(self.players))]
        elif len(scores) != len(self.players):
            raise ValueError(f"{len(scores)} scores for {len(self.players)} seats")
        scored = sorted(((scores[s], s) for s in range(len(self.players))),
                        key=lambda t: (-t[0].total, t[1]))
        out: list[Standing] = []
        for i, (sc, seat) in enumerate(scored):
            rank = out[-1].rank if out and out[-1].score.total == sc.total else i + 1
            out.append(Standing(rank, seat, self.players[seat], sc))
        return out

    # -- acting (checked) ------------------------------------------------------------
    def apply(self, action: Action) -> "Table":
        """Apply one action after checking it; raises with the reason, table unchanged."""
        if isinstance(action, RollDice):
            nxt = self._roll(action.roll)
        elif isinstance(action, CorrectRoll):
            nxt = self._correct(action.roll)
        elif isinstance(action, KeepRoll):
            nxt = self._keep()
        elif isinstance(action, Place):
            nxt = self._place(action.seat, action.placement)
        elif isinstance(action, Undo):
            nxt = self._undo(action.seat)
        elif isinstance(action, EndSide):
            nxt = self._end_side(action.seat)
        elif isinstance(action, Begin):
            nxt = self._begin(action.seat)
        elif isinstance(action, ChooseSide):
            nxt = self._choose_side(action.seat, action.side)
        elif isinstance(action, Erase):
            nxt = self._erase(action.seat, *action.where)
        else:
            raise InvalidInput(f"unknown action {action!r}")
        return replace(nxt, history=self.history + (action,))

    def replay(self, actions: Sequence[Action], first_answer_keeps: bool = False) -> "Table":
        """The table after `actions`, each checked as `apply` checks it.

        `first_answer_keeps`: the log may come from before the keep step, when the first
        answer by anyone fixed the roll; an answer by another player to a roll still open
        is then read as the roller keeping the roll first (what that answer did then).
        Logs written since never hold such an answer (`apply` refuses it)."""
        table = self
        for action in actions:
            if (first_answer_keeps and isinstance(action, Place) and table.still_rolling
                    and action.seat != table.roller):
                table = table.apply(KeepRoll())
            table = table.apply(action)
        return table

    def _check_seat(self, seat: int) -> None:
        if not isinstance(seat, int) or not 0 <= seat < len(self.players):
            raise InvalidInput(Reason("table.no_seat_of", seat=seat, n=len(self.players)))

    def _roll(self, roll: Roll) -> "Table":
        if self.is_over:
            raise IllegalPlacement(Reason("table.over"))
        table = self
        if self.turn_complete:  # the next player's turn begins with this roll
            n = len(self.players)
            table = replace(self, roller=self.next_roller, attempts=(),
                            answers=(None,) * n, before=(None,) * n, turns=self.turns + 1,
                            kept=False)
        if table.attempts:
            if table.kept:
                raise IllegalPlacement(Reason("table.no_further_attempt",
                                              name=table.players[table.roller]))
            if len(table.attempts) >= table.game.max_attempts:
                raise IllegalPlacement(
                    Reason("table.attempts_one", game=table.game.title)
                    if table.game.max_attempts == 1 else
                    Reason("table.attempts", game=table.game.title, n=table.game.max_attempts))
            problem = table.game.reroll_problem(table.attempts[-1], roll)
        else:
            problem = table.game.roll_problem(roll)
        if problem:
            raise IllegalPlacement(problem)
        return replace(table, attempts=table.attempts + (roll,))

    def _correct(self, roll: Roll) -> "Table":
        if not self.attempts or self.turn_complete:
            raise IllegalPlacement(Reason("table.nothing_to_correct"))
        if any(a is not None for a in self.answers):
            raise IllegalPlacement(Reason("table.written_no_correct"))
        earlier = self.attempts[:-1]
        problem = (self.game.reroll_problem(earlier[-1], roll) if earlier
                   else self.game.roll_problem(roll))
        if problem:
            raise IllegalPlacement(problem)
        return replace(self, attempts=earlier + (roll,))

    def _keep(self) -> "Table":
        if not self.attempts or self.turn_complete:
            raise IllegalPlacement(Reason("table.not_rolled") if not self.attempts
                                   else Reason("table.nothing_to_keep"))
        if self.roll_final:
            raise IllegalPlacement(Reason("table.kept_already", name=self.players[self.roller]))
        return replace(self, kept=True)

    def _place(self, seat: int, placement: Placement) -> "Table":
        self._check_seat(seat)
        if self.roll is None:
            raise IllegalPlacement(Reason("table.not_rolled"))
        if self.answers[seat] is not None:
            raise IllegalPlacement(Reason("table.answered", name=self.players[seat]))
        game = self.games[seat]
        if not self.answers_roll(seat):
            raise IllegalPlacement(Reason("table.roller_only", game=game.title,
                                          name=self.players[self.roller]))
        if not self.may_answer(seat):
            raise IllegalPlacement(Reason("table.still_rolling", name=self.players[self.roller]))
        sheet = game.play(self.sheets[seat], self.roll, self.role(seat), placement)
        # the roller's own answer finishes the rolling
        return replace(self,
                       sheets=self._write(seat, sheet),
                       answers=_set(self.answers, seat, placement),
                       before=_set(self.before, seat, self.sheets[seat]),
                       kept=self.kept or seat == self.roller)

    def _write(self, seat: int, sheet: Any) -> tuple:
        """The sheets after `seat` writes `sheet` (on a shared pad, everybody's)."""
        if self.game.shared_sheet:
            return (sheet,) * len(self.players)
        return _set(self.sheets, seat, sheet)

    def _end_side(self, seat: int) -> "Table":
        self._check_seat(seat)
        if self.is_over:
            raise IllegalPlacement(Reason("table.over"))
        if self.roll is None or self.answers[seat] is None:
            raise IllegalPlacement(Reason("table.end_side_after", name=self.players[seat]))
        game = self.games[seat]
        problem = game.end_side_problem(self.sheets[seat])
        if problem:
            raise IllegalPlacement(problem)
        return replace(self, sheets=self._write(seat, game.end_side(self.sheets[seat])))

    def _begin(self, seat: int) -> "Table":
        self._check_seat(seat)
        if self.is_over:    # a table started from finished sheets: nothing is written after
            raise IllegalPlacement(Reason("table.over"))
        if self.attempts or self.turns:
            raise IllegalPlacement(Reason("table.begin_first"))
        return replace(self, roller=seat,
                       sheets=self.game.begin_with(self.sheets, seat))

    def start_sides(self, seat: int) -> tuple[str, ...]:
        """The sides `seat` may still choose to start on (empty once it has marks, and once the
        game is over)."""
        if self.is_over or self.answers[seat] is not None:
            return ()
        game = self.games[seat]
        return tuple(side for side in game.sides()
                     if game.start_side_problem(self.sheets[seat], side) is None)

    def _choose_side(self, seat: int, side: str) -> "Table":
        self._check_seat(seat)
        if self.is_over:
            raise IllegalPlacement(Reason("table.over"))
        game = self.games[seat]
        problem = game.start_side_problem(self.sheets[seat], side)
        if problem:
            raise IllegalPlacement(problem)
        if self.answers[seat] is not None:
            raise IllegalPlacement(Reason("table.side_answered", name=self.players[seat]))
        return replace(self, sheets=self._write(seat, game.start_on(self.sheets[seat], side)))

    def erasable(self, seat: int) -> list[str]:
        """The fields ("ROW@COL") whose number `seat` may erase now."""
        if self.is_over:
            return []
        answer = self.answers[seat]
        mine = {(m.row, m.col) for m in answer.marks} if answer is not None else set()
        return [f"{row}@{col}" for row, col in self.games[seat].erasable(self.sheets[seat])
                if (row, col) not in mine]

    def _erase(self, seat: int, row: str, col: int) -> "Table":
        self._check_seat(seat)
        if self.is_over:
            raise IllegalPlacement(Reason("table.over"))
        game = self.games[seat]
        problem = game.erase_problem(self.sheets[seat], row, col)
        if problem:
            raise IllegalPlacement(problem)
        answer = self.answers[seat]
        if answer is not None and any((m.row, m.col) == (row, col) for m in answer.marks):
            raise IllegalPlacement(Reason("table.erase_answer", f=f"{row}@{col}",
                                          name=self.players[seat]))
        before = self.before[seat]
        if before is not None:      # an undo of this roll's answer keeps the erasure
            before = game.erase(before, row, col)
        return replace(self, sheets=self._write(seat, game.erase(self.sheets[seat], row, col)),
                       before=_set(self.before, seat, before))

    def _undo(self, seat: int) -> "Table":
        self._check_seat(seat)
        if self.answers[seat] is None:
            raise IllegalPlacement(Reason("table.nothing_to_undo", name=self.players[seat]))
        return replace(self,
                       sheets=self._write(seat, self.before[seat]),
                       answers=_set(self.answers, seat, None),
                       before=_set(self.before, seat, None))

    # -- saving ----------------------------------------------------------------------
    def to_json(self) -> dict:
        """The whole state; `Table.from_json` rebuilds an equal table."""
        return {
            "game": self.game.name,
            "layouts": [g.layout.info.name for g in self.games],
            "players": list(self.players),
            "sheets": [g.sheet_to_json(s) for g, s in zip(self.games, self.sheets)],
            "roller": self.roller,
            "attempts": [str(r) for r in self.attempts],
            "answers": [None if a is None else str(a) for a in self.answers],
            "before": [None if b is None else g.sheet_to_json(b)
                       for g, b in zip(self.games, self.before)],
            "turns": self.turns,
            "kept": self.kept,
        }

    @classmethod
    def from_json(cls, data: dict, games: Sequence[Game]) -> "Table":
        games = tuple(games)
        return cls(
            games, tuple(data["players"]),
            tuple(g.sheet_from_json(s) for g, s in zip(games, data["sheets"])),
            roller=int(data["roller"]),
            attempts=tuple(Roll.parse(r, _symbols(games)) for r in data["attempts"]),
            answers=tuple(None if a is None else Placement.parse(a) for a in data["answers"]),
            before=tuple(None if b is None else g.sheet_from_json(b)
                         for g, b in zip(games, data["before"])),
            turns=int(data["turns"]), kept=bool(data.get("kept", False)))


def replace(table: "Table", **changes: Any) -> "Table":
    """`dataclasses.replace` without re-running `__init__`: a table is rebuilt several
    times per turn, and the fields are already valid."""
    new = object.__new__(Table)
    new.__dict__.update(table.__dict__)
    new.__dict__.update(changes)
    return new


def _set(values: tuple, index: int, value: Any) -> tuple:
    return values[:index] + (value,) + values[index + 1:]
