"""The advisor's hints for one seat (routes on `api_base.bp`, under `/api`):

- `GET /tables/<code>/advice?seat=N` -> every legal placement of seat N for the current
  roll, best first, each with its expected final score, a reason and its marks (so the
  page can shade the fields), the dice choices when N is the roller who may roll
  again (and before the roll, for the player who rolls next in a game whose roller
  chooses the dice: Qwinto's colours), and what the figures are (`figure`: "points",
  "chance" or "relative").

Only the player of that seat gets its hints (and the table's creator for a seat nobody
has claimed, whose sheet the creator writes): another player's hints are refused with
403. The advice comes from `engine.advice` with a 200 ms CPU budget; each table's
evaluators are built once and kept on the app (Knister's line tables take about 80 ms).
"""
from __future__ import annotations

import time

from flask import current_app, jsonify, request

from engine.advice import DEFAULT_BUDGET_MS, advise, colour_choices, evaluator_for

from .api_base import ApiError, bp, lang, load, viewer
from .bounded import Bounded
from .reasons import translate

EVALUATORS_KEPT = 32   # (game, layout, players) whose evaluators are kept built


def _evaluator(game, players: int):
    cache = current_app.extensions.setdefault("advice_evaluators", Bounded(EVALUATORS_KEPT))
    return cache.get_or_make((game.name, game.layout.info.name, players),
                             lambda: evaluator_for(game, players))


def _worded(answer: dict) -> dict:
    """An option or dice choice with its reason in the request's language (the engine's
    reasons are codes with parameters: `companion.reasons`)."""
    return dict(answer, reason=translate(answer["reason"], lang()))


@bp.get("/tables/<code>/advice")
def advice(code: str):
    rec, seq, table = load(code)
    seat = request.args.get("seat", type=int)
    if seat is None or not 0 <= seat < len(table.players):
        raise ApiError(400, f"name a seat 0-{len(table.players) - 1}: ?seat=N")
    mine, creator = viewer(rec)
    if seat != mine and not (creator and not rec.seats[seat].claimed):
        raise ApiError(403, "hints are shown only to the player whose sheet it is")
    game = table.games[seat]
    evaluator = _evaluator(game, len(table.players))
    # what the figures are (engine.advice.types.FIGURES): the page words them by it
    out = {"seat": seat, "seq": seq, "options": [], "dice": [], "best": None,
           "figure": evaluator.figure}
    legal = table.legal(seat)
    if not legal:
        # before the roll, the player who rolls next and chooses the dice (Qwinto's colours):
        # which to roll, ranked
        if seat == table.next_roller and not table.is_over and (
                table.roll is None or table.turn_complete):
            out["dice"] = [_worded(c.to_json()) for c in
                           colour_choices(game, table.sheets[seat], evaluator)]
        return jsonify(out)
    roller = seat == table.roller
    left = game.max_attempts - len(table.attempts) if roller and table.may_reroll() else 0
    result = advise(game, table.sheets[seat], table.roll, table.role(seat), attempts_left=left,
                    players=len(table.players), seed=seq, budget_ms=DEFAULT_BUDGET_MS,
                    clock=time.process_time, evaluator=evaluator)
    out["options"] = [_worded(dict(o.to_json(), marks=[str(m) for m in o.placement.marks],
                                   parts=o.placement.to_json())) for o in result.options]
    out["dice"] = [_worded(d.to_json()) for d in result.dice]
    out["best"] = str(result.best.placement)
    return jsonify(out)
