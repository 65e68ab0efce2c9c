"""Qwinto: three coloured rows, ascending left to right, no repeats in a column.

Rule text: shared/rules/qwinto.txt. The roller picks 1-3 of the orange, yellow and purple
dice; the sum may be written once by every player into a row whose colour was rolled.
The roller who writes nothing records a failed attempt (-5); the others may simply pass.
A number found wrong in a later round is erased and cannot be entered anywhere else: its
field is crossed out ("x"), holds no number and can never be written again.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any, Iterable

from ..dice import DiceSpec, Die, DieKind, Roll
from ..errors import InvalidLayout
from ..game import OTHER, ROLLER, Game, as_list, count_of, require, known_keys
from ..layouts import LayoutInfo, points, read_info, whole
from ..placement import ENTER, FAIL, PASS, Mark, Placement, Score, ScoreLine
from ..reasons import Reason, declare

declare({
    "qwinto.ended_rows": "{n} rows are full",
    "qwinto.ended_fails": "{n} failed attempts",
    "qwinto.greater": "{v} must be greater than the {w} to its left in the {c} row",
    "qwinto.smaller": "{v} must be smaller than the {w} to its right in the {c} row",
    "qwinto.column": "{v} already stands in column {p} (the {c} row)",
    "qwinto.fail_roller": "only the roller records a failed attempt; the others may simply pass",
    "qwinto.roller_must": "the roller must enter the sum or record a failed attempt",
    "qwinto.no_kind": "Qwinto has no '{kind}': enter the sum, pass or fail",
    "qwinto.no_row": "there is no row '{r}': the rows are {rows}",
    "qwinto.not_field": "column {p} of the {c} row is not a field to write in",
    "qwinto.not_rolled": "the {c} die was not rolled: {total} may only go into the {cor} row",
    "qwinto.holds": "column {p} of the {c} row already holds {v}",
    "qwinto.not_number": "the {c} row holds '{v}': write a number, x for an erased one, or "
                         "leave the field empty",
    "qwinto.crossed": "column {p} of the {c} row is crossed out: its number was erased",
    "qwinto.crossed_already": "column {p} of the {c} row is already crossed out",
    "qwinto.nothing_to_erase": "column {p} of the {c} row holds no number to erase",
    "qwinto.dice_count": "Qwinto is rolled with 1, 2 or 3 dice, not {n}",
    "qwinto.not_die": "'{die}' is not a Qwinto die: the dice are {cs}",
    "qwinto.one_each": "there is only one die of each colour",
    "qwinto.reroll": "the second attempt must roll all the dice of the first ({cs}) and no "
                     "others",
    "qwinto.p_sum": "{v} at column {p} of the {c} row is not a sum of 1-3 dice (1-{max})",
    "qwinto.p_greater": "{v} at column {p} must be greater than the {w} to its left in the "
                        "{c} row",
    "qwinto.p_twice": "{v} stands twice in column {p} (the {c} and {c2} rows)",
    "qwinto.p_fails": "{n} failed attempts: the game ends at the {m}th",
    "qwinto.l_row": "{c} row",
    "qwinto.d_full": "full: the number on the far right",
    "qwinto.d_none": "no number yet",
    "qwinto.d_one": "1 number, 1 point each",
    "qwinto.d_numbers": "{n} numbers, 1 point each",
    "qwinto.l_bonus": "column {p} bonus",
    "qwinto.d_pentagon": "the number in the {c} pentagon",
    "qwinto.l_fails": "failed attempts",
    "qwinto.d_fails": "{n} x {m}",
    # an uploaded layout's checks
    "qwinto.layout": "qwinto layout '{name}'",
    "qwinto.a_field": "{where}: a field",
    "qwinto.a_pentagon": "{where}: a pentagon",
    "qwinto.layout_rows": "{where}: needs exactly 3 rows (orange, yellow, purple)",
    "qwinto.layout_colours": "{where}: the rows must be the colours {cs}",
    "qwinto.layout_labels": "{where}: row labels must be three different letters",
    "qwinto.layout_distinct": "{where}: {c} fields must be distinct, left to right",
    "qwinto.layout_outside": "{where}: {c} fields lie outside 0..{n}",
    "qwinto.layout_pentagon": "{where}: a {c} pentagon is not on a field",
    "qwinto.layout_one_pentagon": "{where}: the 3-field column {p} needs exactly one pentagon",
    "qwinto.layout_pentagon_column": "{where}: column {p} has a pentagon but not 3 fields",
    # a sheet typed as JSON (the JSON's keys are kept as they are)
    "qwinto.sheet_object": "a Qwinto sheet must be a JSON object",
    "qwinto.sheet_rows": "'rows' must map each colour to its fields, e.g. {example}",
    "qwinto.unknown_rows": "unknown row(s) {rows}: use {keys}",
    "qwinto.the_row": "the {c} row",
    "qwinto.sheet_fails": "'failed_attempts' must be a whole number, 0 or more",
})

DICE_COLOURS = ("orange", "yellow", "purple")
MAX_COLUMNS = 40   # column positions a layout may have (the printed pad: 12)
MAX_VALUE = 99     # the largest number a layout may allow (three dice: 18)
CROSSED = "x"     # a field whose number was erased


@dataclass(frozen=True)
class QwintoRow:
    label: str
    colour: str
    fields: tuple[int, ...]      # column positions that can be written
    pentagons: tuple[int, ...]   # positions whose number is the column bonus


@dataclass(frozen=True)
class QwintoLayout:
    info: LayoutInfo
    columns: int
    rows: tuple[QwintoRow, ...]
    max_value: int
    failed_attempt_points: int
    failed_attempts_to_end: int
    full_rows_to_end: int

    @classmethod
    def parse(cls, data: Any) -> "QwintoLayout":
        info = read_info(data, "qwinto")
        name = Reason("qwinto.layout", name=info.name)

        def key(k: str) -> Reason:
            return Reason("layout.key", where=name, key=k)
        try:
            columns = whole(data["columns"], key("columns"), 1, MAX_COLUMNS)
            if not isinstance(data["rows"], list) or len(data["rows"]) != 3:
                raise InvalidLayout(Reason("qwinto.layout_rows", where=name))
            a_field = Reason("qwinto.a_field", where=name)
            a_pentagon = Reason("qwinto.a_pentagon", where=name)
            rows = tuple(
                QwintoRow(str(r["label"]).upper(), str(r["colour"]),
                          tuple(whole(p, a_field, 0, columns - 1) for p in r["fields"]),
                          tuple(whole(p, a_pentagon, 0, columns - 1)
                                for p in r.get("pentagons", [])))
                for r in data["rows"])
            layout = cls(info, columns, rows,
                         whole(data.get("max_value", 18), key("max_value"), 1, MAX_VALUE),
                         points(data.get("failed_attempt_points", -5),
                                key("failed_attempt_points")),
                         whole(data.get("failed_attempts_to_end", 4),
                               key("failed_attempts_to_end"), 1, 99),
                         whole(data.get("full_rows_to_end", 2), key("full_rows_to_end"), 1, 3))
        except InvalidLayout:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise InvalidLayout(Reason("layout.missing", where=name, field=str(exc))) from None
        layout._check()
        return layout

    def _check(self) -> None:
        name = Reason("qwinto.layout", name=self.info.name)
        if len(self.rows) != 3:
            raise InvalidLayout(Reason("qwinto.layout_rows", where=name))
        if sorted(r.colour for r in self.rows) != sorted(DICE_COLOURS):
            raise InvalidLayout(Reason("qwinto.layout_colours", where=name,
                                       cs=", ".join(DICE_COLOURS)))
        if len({r.label for r in self.rows}) != 3 or not all(r.label.isalpha() for r in self.rows):
            raise InvalidLayout(Reason("qwinto.layout_labels", where=name))
        for row in self.rows:
            if list(row.fields) != sorted(set(row.fields)) or not row.fields:
                raise InvalidLayout(Reason("qwinto.layout_distinct", where=name, c=row.colour))
            if row.fields[0] < 0 or row.fields[-1] >= self.columns:
                raise InvalidLayout(Reason("qwinto.layout_outside", where=name, c=row.colour,
                                           n=self.columns - 1))
            if not set(row.pentagons) <= set(row.fields):
                raise InvalidLayout(Reason("qwinto.layout_pentagon", where=name, c=row.colour))
        for col, members in self.column_members().items():
            pent = [r for r in members if col in self.rows[r].pentagons]
            if len(members) == 3 and len(pent) != 1:
                raise InvalidLayout(Reason("qwinto.layout_one_pentagon", where=name, p=col))
            if len(members) < 3 and pent:
                raise InvalidLayout(Reason("qwinto.layout_pentagon_column", where=name, p=col))

    def column_members(self) -> dict[int, tuple[int, ...]]:
        """Column position -> indices of the rows that have a field there."""
        out: dict[int, list[int]] = {}
        for i, row in enumerate(self.rows):
            for p in row.fields:
                out.setdefault(p, []).append(i)
        return {c: tuple(v) for c, v in sorted(out.items())}


@dataclass(frozen=True)
class QwintoSheet:
    """`rows[i][p]` is the number in row i at column position p, None (empty) or "x" (its
    number erased: crossed out)."""

    rows: tuple[tuple[int | str | None, ...], ...]
    failed_attempts: int = 0


class Qwinto(Game):
    name = "qwinto"
    title = "Qwinto"
    min_players, max_players = 1, 6
    max_attempts = 2
    writes_sum = True
    parse_layout = staticmethod(QwintoLayout.parse)

    def __init__(self, layout: QwintoLayout) -> None:
        super().__init__(layout)
        self._by_label = {r.label: i for i, r in enumerate(layout.rows)}
        self._by_colour = {r.colour: i for i, r in enumerate(layout.rows)}
        self._columns = layout.column_members()

    # -- sheets --------------------------------------------------------------------
    def new_sheet(self) -> QwintoSheet:
        empty = (None,) * self.layout.columns
        return QwintoSheet(tuple(empty for _ in self.layout.rows))

    def sheet_to_json(self, sheet: QwintoSheet) -> dict:
        return {"layout": self.layout.info.name,
                "rows": {row.colour: [sheet.rows[i][p] for p in row.fields]
                         for i, row in enumerate(self.layout.rows)},
                "failed_attempts": sheet.failed_attempts}

    def sheet_from_json(self, data: Any) -> QwintoSheet:
        require(isinstance(data, dict), Reason("qwinto.sheet_object"))
        known_keys(self, data)
        rows_in = data.get("rows", {})
        require(isinstance(rows_in, dict),
                Reason("qwinto.sheet_rows", example='{"orange": [null, 3, ...]}'))
        unknown = set(rows_in) - set(self._by_colour)
        require(not unknown, Reason("qwinto.unknown_rows", rows=", ".join(sorted(unknown)),
                                    keys=", ".join(self._by_colour)))
        rows = []
        for row in self.layout.rows:
            values = as_list(rows_in.get(row.colour, [None] * len(row.fields)),
                             len(row.fields), Reason("qwinto.the_row", c=row.colour))
            cells: list[int | None] = [None] * self.layout.columns
            for p, v in zip(row.fields, values):
                require(v is None or v == CROSSED
                        or (isinstance(v, int) and not isinstance(v, bool)),
                        Reason("qwinto.not_number", c=row.colour, v=v))
                cells[p] = v
            rows.append(tuple(cells))
        fails = data.get("failed_attempts", 0)
        require(isinstance(fails, int) and not isinstance(fails, bool) and fails >= 0,
                Reason("qwinto.sheet_fails"))
        return QwintoSheet(tuple(rows), fails)

    def problems(self, sheet: QwintoSheet) -> list[str]:
        out = []
        lay = self.layout
        for i, row in enumerate(lay.rows):
            filled = [(p, v) for p in row.fields if isinstance(v := sheet.rows[i][p], int)]
            for p, v in filled:
                if not 1 <= v <= lay.max_value:
                    out.append(Reason("qwinto.p_sum", v=v, p=p, c=row.colour, max=lay.max_value))
            for (p1, v1), (p2, v2) in zip(filled, filled[1:]):
                if v2 <= v1:
                    out.append(Reason("qwinto.p_greater", v=v2, p=p2, w=v1, c=row.colour))
        for col, members in self._columns.items():
            seen: dict[int, int] = {}
            for r in members:
                v = sheet.rows[r][col]
                if not isinstance(v, int):
                    continue
                if v in seen:
                    out.append(Reason("qwinto.p_twice", v=v, p=col, c=lay.rows[seen[v]].colour,
                                      c2=lay.rows[r].colour))
                seen[v] = r
        if sheet.failed_attempts > lay.failed_attempts_to_end:
            out.append(Reason("qwinto.p_fails", n=sheet.failed_attempts,
                              m=lay.failed_attempts_to_end))
        return out

    # -- dice ----------------------------------------------------------------------
    def dice_spec(self) -> DiceSpec:
        return DiceSpec(tuple(DieKind(c, (1, 2, 3, 4, 5, 6)) for c in DICE_COLOURS), 1, 3,
                        repeat_colours=False)

    def roll_problem(self, roll: Roll) -> str | None:
        if not 1 <= len(roll) <= 3:
            return Reason("qwinto.dice_count", n=len(roll))
        colours = roll.colours
        for die in roll:
            if die.colour not in DICE_COLOURS:
                return Reason("qwinto.not_die", die=die, cs=", ".join(DICE_COLOURS))
            if not isinstance(die.face, int) or not 1 <= die.face <= 6:
                return Reason("game.face", die=die)
        if len(set(colours)) != len(colours):
            return Reason("qwinto.one_each")
        return None

    def reroll_problem(self, first: Roll, second: Roll) -> str | None:
        problem = self.roll_problem(second)
        if problem:
            return problem
        if sorted(first.colours) != sorted(second.colours):
            return Reason("qwinto.reroll", cs=", ".join(sorted(first.colours)))
        return None

    def random_roll(self, rng: random.Random, previous: Roll | None = None) -> Roll:
        colours = previous.colours if previous else \
            rng.sample(DICE_COLOURS, rng.randint(1, 3))
        return Roll(Die(c, rng.randint(1, 6)) for c in colours)

    # -- placements ----------------------------------------------------------------
    def _fits(self, sheet: QwintoSheet, r: int, p: int, v: int) -> str | None:
        """Why v may not go at row r, position p (field known empty), or None."""
        row = self.layout.rows[r]
        cells = sheet.rows[r]
        for q in row.fields:
            w = cells[q]
            if not isinstance(w, int):
                continue
            if q < p and w >= v:
                return Reason("qwinto.greater", v=v, w=w, c=row.colour)
            if q > p and w <= v:
                return Reason("qwinto.smaller", v=v, w=w, c=row.colour)
        for other in self._columns[p]:
            if other != r and sheet.rows[other][p] == v:
                return Reason("qwinto.column", v=v, p=p, c=self.layout.rows[other].colour)
        return None

    def _legal(self, sheet: QwintoSheet, roll: Roll, role: str) -> Iterable[Placement]:
        total = roll.total
        seen = set()
        for colour in roll.colours:
            r = self._by_colour.get(colour)
            if r is None or r in seen:
                continue
            seen.add(r)
            row = self.layout.rows[r]
            cells = sheet.rows[r]
            # the open interval between the nearest filled neighbours is where v fits
            low = 0
            for p in row.fields:
                w = cells[p]
                if w == CROSSED:
                    continue
                if w is not None:
                    if w >= total:
                        break
                    low = w
                    continue
                if low >= total:
                    break
                if not any(sheet.rows[o][p] == total for o in self._columns[p] if o != r):
                    # nothing to the right may be <= total
                    if self._right_ok(cells, row.fields, p, total):
                        yield Placement(ENTER, (Mark(row.label, p, total),))
        yield Placement.special(FAIL if role == ROLLER else PASS)

    @staticmethod
    def _right_ok(cells, fields, p, v) -> bool:
        """Every number to the right of p is greater than v (all of them, not only the
        nearest: a typed-in sheet may already break the ascending rule)."""
        return all(cells[q] > v for q in fields if q > p and isinstance(cells[q], int))

    def apply(self, sheet: QwintoSheet, placement: Placement) -> QwintoSheet:
        if placement.kind == FAIL:
            return replace(sheet, failed_attempts=sheet.failed_attempts + 1)
        if placement.kind == PASS:
            return sheet
        (mark,) = placement.marks
        r = self._by_label[mark.row]
        row = list(sheet.rows[r])
        row[mark.col] = mark.value
        rows = list(sheet.rows)
        rows[r] = tuple(row)
        return replace(sheet, rows=tuple(rows))

    def why_illegal(self, sheet: QwintoSheet, roll: Roll, role: str,
                    placement: Placement) -> str | None:
        if placement.kind == FAIL:
            return None if role == ROLLER else \
                Reason("qwinto.fail_roller")
        if placement.kind == PASS:
            return None if role == OTHER else \
                Reason("qwinto.roller_must")
        if placement.kind != ENTER:
            return Reason("qwinto.no_kind", kind=placement.kind)
        if len(placement.marks) != 1:
            return Reason("game.one_field")
        (mark,) = placement.marks
        r = self._by_label.get(mark.row)
        if r is None:
            return Reason("qwinto.no_row", r=mark.row, rows=", ".join(self._by_label))
        row = self.layout.rows[r]
        if mark.col not in row.fields:
            return Reason("qwinto.not_field", p=mark.col, c=row.colour)
        if mark.value != roll.total:
            return Reason("game.sum", total=roll.total, v=mark.value)
        if row.colour not in roll.colours:
            return Reason("qwinto.not_rolled", c=row.colour, total=roll.total,
                          cor=" or ".join(c for c in roll.colours))
        if sheet.rows[r][mark.col] == CROSSED:
            return Reason("qwinto.crossed", p=mark.col, c=row.colour)
        if sheet.rows[r][mark.col] is not None:
            return Reason("qwinto.holds", p=mark.col, c=row.colour, v=sheet.rows[r][mark.col])
        return self._fits(sheet, r, mark.col, mark.value)

    def dead_fields(self, sheet: QwintoSheet) -> list[tuple[str, int]]:
        """Empty fields no number can ever fill (Tim's purple field between 6 and 7)."""
        out = []
        for r, row in enumerate(self.layout.rows):
            for p in row.fields:
                if sheet.rows[r][p] is None and not any(
                        self._fits(sheet, r, p, v) is None
                        for v in range(1, self.layout.max_value + 1)):
                    out.append((row.label, p))
        return out

    # -- erasing a wrong number -------------------------------------------------------
    def erase_problem(self, sheet: QwintoSheet, row: str, col: int) -> str | None:
        r = self._by_label.get(row)
        if r is None:
            return Reason("qwinto.no_row", r=row, rows=", ".join(self._by_label))
        lay = self.layout.rows[r]
        if col not in lay.fields:
            return Reason("qwinto.not_field", p=col, c=lay.colour)
        v = sheet.rows[r][col]
        if v == CROSSED:
            return Reason("qwinto.crossed_already", p=col, c=lay.colour)
        if v is None:
            return Reason("qwinto.nothing_to_erase", p=col, c=lay.colour)
        return None

    def erasable(self, sheet: QwintoSheet) -> list[tuple[str, int]]:
        return [(row.label, p) for r, row in enumerate(self.layout.rows) for p in row.fields
                if isinstance(sheet.rows[r][p], int)]

    def erase(self, sheet: QwintoSheet, row: str, col: int) -> QwintoSheet:
        r = self._by_label[row]
        cells = list(sheet.rows[r])
        cells[col] = CROSSED
        rows = list(sheet.rows)
        rows[r] = tuple(cells)
        return replace(sheet, rows=tuple(rows))

    # -- the sheet drawn ---------------------------------------------------------------
    def grid(self, data: dict) -> dict:
        lay = self.layout
        rows = []
        for row in lay.rows:
            values = dict(zip(row.fields, data["rows"][row.colour]))
            rows.append({"label": row.label, "colour": row.colour, "cells": [
                {"row": row.label, "col": p, "value": values.get(p), "colour": row.colour,
                 "printed": None, "shape": "pentagon" if p in row.pentagons else "square"}
                if p in row.fields else None
                for p in range(lay.columns)]})
        return {"columns": lay.columns, "rows": rows, "extras": [
            {"key": "failed_attempts", "label": "failed attempts",
             "value": data["failed_attempts"], "max": lay.failed_attempts_to_end,
             "points": lay.failed_attempt_points}]}

    def sheet_from_grid(self, data: dict, cells: dict, extras: dict) -> dict:
        for row in self.layout.rows:
            data["rows"][row.colour] = [cells.get(f"{row.label}@{p}") for p in row.fields]
        data["failed_attempts"] = count_of(extras.get("failed_attempts", 0),
                                           Reason("qwinto.l_fails"))
        return data

    # -- scoring and the end -------------------------------------------------------
    def _row_full(self, sheet: QwintoSheet, r: int) -> bool:
        """Every field holds a number (a crossed-out field never does)."""
        return all(isinstance(sheet.rows[r][p], int) for p in self.layout.rows[r].fields)

    def score(self, sheet: QwintoSheet, final: bool = False) -> Score:
        lines = []
        lay = self.layout
        for r, row in enumerate(lay.rows):
            values = [v for p in row.fields if isinstance(v := sheet.rows[r][p], int)]
            if self._row_full(sheet, r):
                lines.append(ScoreLine(Reason("qwinto.l_row", c=row.colour), values[-1],
                                       Reason("qwinto.d_full")))
            else:
                lines.append(ScoreLine(Reason("qwinto.l_row", c=row.colour), len(values),
                                       Reason("qwinto.d_none") if not values
                                       else Reason("qwinto.d_one") if len(values) == 1
                                       else Reason("qwinto.d_numbers", n=len(values))))
        for col, members in self._columns.items():
            if len(members) != 3:
                continue
            if all(isinstance(sheet.rows[r][col], int) for r in members):
                (pr,) = [r for r in members if col in lay.rows[r].pentagons]
                lines.append(ScoreLine(Reason("qwinto.l_bonus", p=col), sheet.rows[pr][col],
                                       Reason("qwinto.d_pentagon", c=lay.rows[pr].colour)))
        if sheet.failed_attempts:
            lines.append(ScoreLine(Reason("qwinto.l_fails"),
                                   sheet.failed_attempts * lay.failed_attempt_points,
                                   Reason("qwinto.d_fails", n=sheet.failed_attempts,
                                          m=lay.failed_attempt_points)))
        return Score(lines)

    def end_reason(self, sheet: QwintoSheet) -> str | None:
        full = sum(self._row_full(sheet, r) for r in range(len(self.layout.rows)))
        if full >= self.layout.full_rows_to_end:
            return Reason("qwinto.ended_rows", n=full)
        if sheet.failed_attempts >= self.layout.failed_attempts_to_end:
            return Reason("qwinto.ended_fails", n=sheet.failed_attempts)
        return None

    def is_finished(self, sheet: QwintoSheet) -> bool:
        return self.end_reason(sheet) is not None

    def score_bounds(self) -> tuple[int, int]:
        lay = self.layout
        n3 = sum(1 for m in self._columns.values() if len(m) == 3)
        return (lay.failed_attempts_to_end * lay.failed_attempt_points,
                lay.max_value * (len(lay.rows) + n3))
