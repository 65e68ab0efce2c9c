"""Seeded random games through the public API (tests, benchmarks, the demo).

The random generator is passed in, never global: the same seed replays the same game.
"""
from __future__ import annotations

import random
from typing import Sequence

from .game import Game
from .table import KeepRoll, Place, RollDice, Table


def random_turn(table: Table, rng: random.Random) -> Table:
    """One whole turn: the roller rolls (maybe twice) and keeps the roll, every seat
    answers at random."""
    game = table.game
    roll = game.random_roll(rng)
    table = table.apply(RollDice(roll))
    while table.may_reroll() and rng.random() < 0.3:
        table = table.apply(RollDice(game.random_roll(rng, table.roll)))
    if table.still_rolling:
        table = table.apply(KeepRoll())
    for seat in table.pending():
        options = list(table.legal(seat))
        table = table.apply(Place(seat, rng.choice(options)))
    return table


def random_game(games: Game | Sequence[Game], players: int, seed: int,
                max_turns: int = 10_000) -> Table:
    rng = random.Random(seed)
    table = Table.new(games, [f"P{i + 1}" for i in range(players)])
    for _ in range(max_turns):
        if table.is_over:
            return table
        table = random_turn(table, rng)
    raise RuntimeError(f"game did not end within {max_turns} turns (seed {seed})")


def random_sheets(game: Game, players: int, seed: int, max_turns: int = 10_000) -> list:
    """A random game on the unchecked core alone (`legal` + `apply`), as a bot or a
    simulation would run it: the same dice and choices as a table would see, without
    the table's bookkeeping. Returns the final sheets. Games whose turns need the
    table's own rules (a shared pad, sides) are played with `random_game` instead."""
    rng = random.Random(seed)
    sheets = [game.new_sheet() for _ in range(players)]
    roller = 0
    for _ in range(max_turns):
        roll = game.random_roll(rng)
        if game.max_attempts > 1 and rng.random() < 0.3:
            roll = game.random_roll(rng, roll)
        for seat in range(players):
            role = "roller" if seat == roller else "other"
            sheets[seat] = game.apply(sheets[seat],
                                      rng.choice(list(game.legal(sheets[seat], roll, role))))
        if any(game.is_finished(s) for s in sheets):
            return sheets
        roller = (roller + 1) % players
    raise RuntimeError(f"game did not end within {max_turns} turns (seed {seed})")
