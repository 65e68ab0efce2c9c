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

from ..dice import Die, Roll
from ..errors import InvalidInput, InvalidLayout
from ..game import OTHER, ROLLER, Game, as_list, require
from ..layouts import LayoutInfo, points, read_info, whole
from ..placement import ENTER, FAIL, PASS, Mark, Placement, Score, ScoreLine

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
        name = f"qwinto layout '{info.name}'"
        try:
            columns = whole(data["columns"], f"{name}: 'columns'", 1, MAX_COLUMNS)
            if not isinstance(data["rows"], list) or len(data["rows"]) != 3:
                raise InvalidLayout(f"{name}: needs exactly 3 rows (orange, yellow, purple)")
            rows = tuple(
                QwintoRow(str(r["label"]).upper(), str(r["colour"]),
                          tuple(whole(p, f"{name}: a field", 0, columns - 1) for p in r["fields"]),
                          tuple(whole(p, f"{name}: a pentagon", 0, columns - 1)
                                for p in r.get("pentagons", [])))
                for r in data["rows"])
            layout = cls(info, columns, rows,
                         whole(data.get("max_value", 18), f"{name}: 'max_value'", 1, MAX_VALUE),
                         points(data.get("failed_attempt_points", -5),
                                f"{name}: 'failed_attempt_points'"),
                         whole(data.get("failed_attempts_to_end", 4),
                               f"{name}: 'failed_attempts_to_end'", 1, 99),
                         whole(data.get("full_rows_to_end", 2), f"{name}: 'full_rows_to_end'", 1, 3))
        except InvalidLayout:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise InvalidLayout(f"qwinto layout '{info.name}': missing or bad field {exc}") from None
        layout._check()
        return layout

    def _check(self) -> None:
        name = f"qwinto layout '{self.info.name}'"
        if len(self.rows) != 3:
            raise InvalidLayout(f"{name}: needs exactly 3 rows (orange, yellow, purple)")
        if sorted(r.colour for r in self.rows) != sorted(DICE_COLOURS):
            raise InvalidLayout(f"{name}: the rows must be the colours {', '.join(DICE_COLOURS)}")
        if len({r.label for r in self.rows}) != 3 or not all(r.label.isalpha() for r in self.rows):
            raise InvalidLayout(f"{name}: row labels must be three different letters")
        for row in self.rows:
            if list(row.fields) != sorted(set(row.fields)) or not row.fields:
                raise InvalidLayout(f"{name}: {row.colour} fields must be distinct, left to right")
            if row.fields[0] < 0 or row.fields[-1] >= self.columns:
                raise InvalidLayout(f"{name}: {row.colour} fields lie outside 0..{self.columns - 1}")
            if not set(row.pentagons) <= set(row.fields):
                raise InvalidLayout(f"{name}: a {row.colour} pentagon is not on a field")
        for col, members in self.column_members().items():
            pent = [r for r in members if col in self.rows[r].pentagons]
            if len(members) == 3 and len(pent) != 1:
                raise InvalidLayout(f"{name}: the 3-field column {col} needs exactly one pentagon")
            if len(members) < 3 and pent:
                raise InvalidLayout(f"{name}: column {col} has a pentagon but not 3 fields")

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
        require(isinstance(data, dict), "a Qwinto sheet must be a JSON object")
        rows_in = data.get("rows", {})
        require(isinstance(rows_in, dict),
                "'rows' must map each colour to its fields, e.g. {\"orange\": [null, 3, ...]}")
        unknown = set(rows_in) - set(self._by_colour)
        require(not unknown, f"unknown row(s) {', '.join(sorted(unknown))}: "
                             f"use {', '.join(self._by_colour)}")
        rows = []
        for row in self.layout.rows:
            values = as_list(rows_in.get(row.colour, [None] * len(row.fields)),
                             len(row.fields), f"the {row.colour} row")
            cells: list[int | None] = [None] * self.layout.columns
            for p, v in zip(row.fields, values):
                require(v is None or v == CROSSED or (isinstance(v, int) and not isinstance(v, bool)),
                        f"the {row.colour} row holds '{v}': write a number, x for an erased "
                        f"one, or leave the field empty")
                cells[p] = v
            rows.append(tuple(cells))
        fails = data.get("failed_attempts", 0)
        require(isinstance(fails, int) and not isinstance(fails, bool) and fails >= 0,
                "'failed_attempts' must be a whole number, 0 or more")
        return QwintoSheet(tuple(rows), fails)

    def problems(self, sheet: QwintoSheet) -> list[str]:
        out = []
        lay = self.layout
        for i, row in enumerate(lay.rows):
            filled = [(p, v) for p in row.fields if isinstance(v := sheet.rows[i][p], int)]
            for p, v in filled:
                if not 1 <= v <= lay.max_value:
                    out.append(f"{v} at column {p} of the {row.colour} row is not a sum "
                               f"of 1-3 dice (1-{lay.max_value})")
            for (p1, v1), (p2, v2) in zip(filled, filled[1:]):
                if v2 <= v1:
                    out.append(f"{v2} at column {p2} must be greater than the {v1} to its "
                               f"left in the {row.colour} row")
        for col, members in self._columns.items():
            seen: dict[int, int] = {}
            for r in members:
                v = sheet.rows[r][col]
                if not isinstance(v, int):
                    continue
                if v in seen:
                    out.append(f"{v} stands twice in column {col} (the "
                               f"{lay.rows[seen[v]].colour} and {lay.rows[r].colour} rows)")
                seen[v] = r
        if sheet.failed_attempts > lay.failed_attempts_to_end:
            out.append(f"{sheet.failed_attempts} failed attempts: the game ends at the "
                       f"{lay.failed_attempts_to_end}th")
        return out

    # -- dice ----------------------------------------------------------------------
    def roll_problem(self, roll: Roll) -> str | None:
        if not 1 <= len(roll) <= 3:
            return f"Qwinto is rolled with 1, 2 or 3 dice, not {len(roll)}"
        colours = roll.colours
        for die in roll:
            if die.colour not in DICE_COLOURS:
                return f"'{die}' is not a Qwinto die: the dice are {', '.join(DICE_COLOURS)}"
            if not isinstance(die.face, int) or not 1 <= die.face <= 6:
                return f"'{die}' does not show a face 1-6"
        if len(set(colours)) != len(colours):
            return "there is only one die of each colour"
        return None

    def reroll_problem(self, first: Roll, second: Roll) -> str | None:
        problem = self.roll_problem(second)
        if problem:
            return problem
        if sorted(first.colours) != sorted(second.colours):
            return ("the second attempt must roll all the dice of the first "
                    f"({', '.join(sorted(first.colours))}) and no others")
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
                return f"{v} must be greater than the {w} to its left in the {row.colour} row"
            if q > p and w <= v:
                return f"{v} must be smaller than the {w} to its right in the {row.colour} row"
        for other in self._columns[p]:
            if other != r and sheet.rows[other][p] == v:
                return (f"{v} already stands in column {p} "
                        f"(the {self.layout.rows[other].colour} row)")
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
                "only the roller records a failed attempt; the others may simply pass"
        if placement.kind == PASS:
            return None if role == OTHER else \
                "the roller must enter the sum or record a failed attempt"
        if placement.kind != ENTER:
            return f"Qwinto has no '{placement.kind}': enter the sum, pass or fail"
        if len(placement.marks) != 1:
            return "the sum is written into exactly one field"
        (mark,) = placement.marks
        r = self._by_label.get(mark.row)
        if r is None:
            return f"there is no row '{mark.row}': the rows are {', '.join(self._by_label)}"
        row = self.layout.rows[r]
        if mark.col not in row.fields:
            return f"column {mark.col} of the {row.colour} row is not a field to write in"
        if mark.value != roll.total:
            return f"the dice add up to {roll.total}, not {mark.value}"
        if row.colour not in roll.colours:
            return (f"the {row.colour} die was not rolled: {roll.total} may only go into the "
                    f"{' or '.join(c for c in roll.colours)} row")
        if sheet.rows[r][mark.col] == CROSSED:
            return (f"column {mark.col} of the {row.colour} row is crossed out: its number was "
                    f"erased")
        if sheet.rows[r][mark.col] is not None:
            return f"column {mark.col} of the {row.colour} row already holds {sheet.rows[r][mark.col]}"
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
            return f"there is no row '{row}': the rows are {', '.join(self._by_label)}"
        lay = self.layout.rows[r]
        if col not in lay.fields:
            return f"column {col} of the {lay.colour} row is not a field to write in"
        v = sheet.rows[r][col]
        if v == CROSSED:
            return f"column {col} of the {lay.colour} row is already crossed out"
        if v is None:
            return f"column {col} of the {lay.colour} row holds no number to erase"
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
                lines.append(ScoreLine(f"{row.colour} row", values[-1],
                                       "full: the number on the far right"))
            else:
                lines.append(ScoreLine(f"{row.colour} row", len(values),
                                       f"{len(values)} number{'s' * (len(values) != 1)}, 1 point each"))
        for col, members in self._columns.items():
            if len(members) != 3:
                continue
            if all(isinstance(sheet.rows[r][col], int) for r in members):
                (pr,) = [r for r in members if col in lay.rows[r].pentagons]
                lines.append(ScoreLine(f"column {col} bonus", sheet.rows[pr][col],
                                       f"the number in the {lay.rows[pr].colour} pentagon"))
        if sheet.failed_attempts:
            lines.append(ScoreLine("failed attempts",
                                   sheet.failed_attempts * lay.failed_attempt_points,
                                   f"{sheet.failed_attempts} x {lay.failed_attempt_points}"))
        return Score(lines)

    def is_finished(self, sheet: QwintoSheet) -> bool:
        full = sum(self._row_full(sheet, r) for r in range(len(self.layout.rows)))
        return (full >= self.layout.full_rows_to_end
                or sheet.failed_attempts >= self.layout.failed_attempts_to_end)

    def score_bounds(self) -> tuple[int, int]:
        lay = self.layout
        n3 = sum(1 for m in self._columns.values() if len(m) == 3)
        return (lay.failed_attempts_to_end * lay.failed_attempt_points,
                lay.max_value * (len(lay.rows) + n3))
