"""Write the advisor's shipped tables (engine/advice/tables/).

- twenty_one_rows.json: for a row printed 6 5 4 3 2 1 with the bonus of the built-in
  layouts, the expected points still to come in every row state
  (`engine.advice.twenty_one.solve_row`, about 3 s each): alone (no cost per turn) and
  at a table (TABLE_TURN_COST per turn).
- knister.json: the weights of each combination's points (rows and columns, diagonals)
  and the calibration from line value to final points per number of filled fields,
  fitted on 2,000 seeded games of the table's own play (seeds 0-1999). With
  `--search-knister` the weights are searched again first: each weight in turn is
  multiplied by 1.6 or 0.6 (then 1.5 or 0.67) and kept when the mean of 500 seeded solo
  games (seeds 0-499) rises by more than 0.3 points; the shipped weights came from
  such a search (57.0 -> 63.2 points on seeds 10000-10799).

tests/engine/test_advice.py checks the twenty one file against a fresh solve.

    python bench/advisor_tables.py [--search-knister]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.advice.knister import (KnisterEvaluator, fit_calibration, play_table,  # noqa: E402
                                   shipped)
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


def knister_mean(game, weights, seeds) -> float:
    evaluator = KnisterEvaluator(game, {"weights": weights})
    return statistics.mean(play_table(evaluator, s) for s in seeds)


def search_knister(game, weights: dict) -> dict:
    seeds = range(500)
    best = knister_mean(game, weights, seeds)
    print(f"knister weights: start {best:.2f}")
    for factors in ((1.6, 0.6), (1.5, 0.67)):
        for kind in ("lines", "diagonals"):
            for combo in list(weights[kind]):
                for f in factors:
                    trial = json.loads(json.dumps(weights))
                    trial[kind][combo] = round(trial[kind][combo] * f, 3)
                    mean = knister_mean(game, trial, seeds)
                    if mean > best + 0.3:
                        best, weights = mean, trial
                        print(f"  {kind} {combo} x{f}: {best:.2f}")
    return weights


def knister(search: bool) -> None:
    game = load_game("knister")
    weights = shipped()["weights"]
    if search:
        weights = search_knister(game, weights)
    evaluator = KnisterEvaluator(game, {"weights": weights})
    data = {"weights": weights, "calibration": fit_calibration(evaluator, range(2000))}
    out = TABLES / "knister.json"
    out.write_text(json.dumps(data, indent=1), encoding="utf-8")
    mean = knister_mean(game, weights, range(10000, 10800))
    print(f"wrote {out} (table alone: {mean:.1f} points on seeds 10000-10799)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--search-knister", action="store_true",
                        help="search the Knister weights again before fitting")
    args = parser.parse_args()
    twenty_one()
    knister(args.search_knister)


if __name__ == "__main__":
    main()
