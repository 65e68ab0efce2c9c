"""Write the advisor's shipped table: twenty one's solved row values.

engine/advice/tables/twenty_one_rows.json holds, for a row printed 6 5 4 3 2 1 with the
bonus of the built-in layouts, the expected points still to come in every row state
(`engine.advice.twenty_one.solve_row`, about 3 s each): alone (no cost per turn) and at
a table (TABLE_TURN_COST per turn). tests/engine/test_advice.py checks that the shipped
file equals a fresh solve.

    python bench/advisor_tables.py
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.advice.twenty_one import TABLE_TURN_COST, solve_row, tables_json  # noqa: E402
from engine.registry import load_game  # noqa: E402


def main() -> None:
    numbers = (6, 5, 4, 3, 2, 1)
    bonus = load_game("twenty_one").layout.exact_hit_bonus
    tables = [tables_json(*solve_row(numbers, bonus, cost), cost)
              for cost in (0.0, TABLE_TURN_COST)]
    data = {"numbers": list(numbers), "bonus": list(bonus), "tables": tables}
    out = ROOT / "engine" / "advice" / "tables" / "twenty_one_rows.json"
    out.write_text(json.dumps(data), encoding="utf-8")
    print(f"wrote {out} ({len(tables[0]['F'])} row states, {len(tables[0]['R'])} re-roll "
          f"states, for {len(tables)} costs per turn)")


if __name__ == "__main__":
    main()
