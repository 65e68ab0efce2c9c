"""Write twenty one's shipped advisor table (engine/advice/tables/twenty_one_rows.json).

For a row printed 6 5 4 3 2 1 with the bonus of the built-in layouts, the expected points
still to come in every row state (`engine.advice.twenty_one.solve_row`, about 3 s each):
alone (no cost per turn) and at a table (TABLE_TURN_COST per turn).
tests/engine/test_advice.py checks the file against a fresh solve. Knister's table is
written by bench/knister_values.py.

    python bench/advisor_tables.py
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.advice.twenty_one import TABLE_TURN_COST, solve_row, tables_json  # noqa: E402
from engine.registry import load_game  # noqa: E402

TABLES = ROOT / "engine" / "advice" / "tables"


def twenty_one() -> None:
    numbers = (6, 5, 4, 3, 2, 1)
    bonus = load_game("twenty_one").layout.exact_hit_bonus
    tables = [tables_json(*solve_row(numbers, bonus, cost), cost)
              for cost in (0.0, TABLE_TURN_COST)]
    data = {"numbers": list(numbers), "bonus": list(bonus), "tables": tables}
    out = TABLES / "twenty_one_rows.json"
    out.write_text(json.dumps(data), encoding="utf-8")
    print(f"wrote {out} ({len(tables[0]['F'])} row states, {len(tables[0]['R'])} re-roll "
          f"states, for {len(tables)} costs per turn)")


def main() -> None:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    twenty_one()


if __name__ == "__main__":
    main()
