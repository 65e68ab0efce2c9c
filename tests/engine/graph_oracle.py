"""Naive statements of the graph games' rules, to check the engine against.

Written independently of engine/games/{kuh_vadis,the_choice}.py and deliberately the
other way round: the engine goes from the dice to the marks, this goes from every
candidate set of marks to "can the dice make it?". Slow, simple, from the rule text.
Only the layout data (colours, numbers, rows and offsets, pad symbols) is shared.
"""
from __future__ import annotations

from itertools import combinations, permutations

# -- Kuh Vadis -------------------------------------------------------------------------


def kv_touching(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a != b and abs(a[0] - b[0]) <= 1 and abs(a[1] - b[1]) <= 1


def kv_reached(squares: set, start: tuple[int, int]) -> set:
    """Every square of `squares` joined to `start` by touching squares of `squares`."""
    reached = {start}
    frontier = [start]
    while frontier:
        sq = frontier.pop()
        for cand in squares:
            if cand not in reached and kv_touching(sq, cand):
                reached.add(cand)
                frontier.append(cand)
    return reached


def kv_blocked(owner: dict, starts: list, player: str) -> bool:
    """No path over squares that are not the opponent's joins all three starts."""
    other = "O" if player == "X" else "X"
    open_squares = {sq for sq, o in owner.items() if o != other}
    reached = kv_reached(open_squares, starts[0])
    return not all(s in reached for s in starts)


def kv_connected(owner: dict, starts: list, player: str) -> bool:
    own = {sq for sq, o in owner.items() if o == player}
    reached = kv_reached(own, starts[0])
    return all(s in reached for s in starts)


def kv_legal(symbols: dict, owner: dict, chain, faces: list) -> set[str]:
    """Texts of the legal placements for the roller (game not over)."""
    out = {"pass"}
    allowed = set()
    cows = faces.count("cow")
    if cows >= 2:
        allowed.add("cow")
    for n in range(1, 6):
        if faces.count(n) >= 3:
            allowed.add(n)
    for (r, c), sym in symbols.items():
        if sym in allowed and owner[(r, c)] is None:
            if chain is None or kv_touching(chain, (r, c)):
                out.add(f"{'ABCDEFG'[r]}{sym}@{c}")
    return out


# -- The Choice ------------------------------------------------------------------------


def hex_neighbours(rows: list[list[int]], offsets: list[int]) -> dict:
    """Number -> numbers sharing an edge (centres one space apart)."""
    centre = {}
    for r, (row, off) in enumerate(zip(rows, offsets)):
        for i, v in enumerate(row):
            centre[v] = (r, i + off / 2)
    out = {}
    for v, (r, x) in centre.items():
        out[v] = {w for w, (r2, x2) in centre.items()
                  if w != v and ((r2 == r and abs(x2 - x) == 1) or
                                 (abs(r2 - r) == 1 and abs(x2 - x) == 0.5))}
    return out


def ring_connected(positions: set[int], size: int = 16) -> bool:
    if not positions:
        return True
    start = next(iter(positions))
    seen = {start}
    todo = [start]
    while todo:
        p = todo.pop()
        for q in ((p + 1) % size, (p - 1) % size):
            if q in positions and q not in seen:
                seen.add(q)
                todo.append(q)
    return seen == positions


def dice_counts(dice: list[tuple[str, int]], ring_colours: list[str], numbers: list[int]):
    """Every number of dice that can make these marks (each die once)."""
    found = set()
    idx = range(len(dice))

    def go(k, ring_left, nums_left, free, used):
        if not ring_left and not nums_left:
            found.add(used)
            return
        if ring_left:
            colour = ring_left[0]
            for d in free:
                if dice[d][0] == colour:
                    go(k, ring_left[1:], nums_left, free - {d}, used + 1)
            return
        value = nums_left[0]
        for size in range(1, len(free) + 1):
            for group in combinations(sorted(free), size):
                if sum(dice[d][1] for d in group) == value:
                    go(k, ring_left, nums_left[1:], free - set(group), used + size)

    go(0, list(ring_colours), list(numbers), frozenset(idx), 0)
    return found


def choice_legal(ring: list[str], rows: list[list[int]], offsets: list[int],
                 crossed: set[int], line: list[int], misthrows: int,
                 dice: list[tuple[str, int]], role: str) -> set[str]:
    """Texts (without dice labels) of every legal placement, as the engine writes them:
    ring marks by position, then numbers in drawing order (" > " between marks when two
    or more numbers), the misthrow box last; or sorted when at most one number."""
    needed = 3 if role == "roller" else 2
    numbers = [v for row in rows for v in row]
    cell = {v: i for i, v in enumerate(numbers)}
    touch = hex_neighbours(rows, offsets)
    colours = {c for c, _ in dice}
    sums = {sum(dice[d][1] for d in g) for k in (1, 2, 3)
            for g in combinations(range(len(dice)), k)}
    ring_free = [p for p in range(16) if p not in crossed and ring[p] in colours]
    num_free = [v for v in numbers if v not in line and v in sums]
    out = {"misthrow"}
    for n_ring in range(0, 4):
        for ring_set in combinations(ring_free, n_ring):
            if not ring_connected(set(crossed) | set(ring_set)):
                continue
            for n_num in range(0, 4 - n_ring):
                if n_ring + n_num == 0:
                    continue
                for seq in permutations(num_free, n_num):
                    prev = line[-1] if line else None
                    ok = True
                    for v in seq:
                        if prev is not None and v not in touch[prev]:
                            ok = False
                            break
                        prev = v
                    if not ok:
                        continue
                    for used in dice_counts(dice, [ring[p] for p in ring_set], list(seq)):
                        miss = used < needed
                        rmarks = [f"R{ring[p]}@{p}" for p in ring_set]
                        nmarks = [f"N{v}@{cell[v]}" for v in seq]
                        mmarks = [f"Mx@{misthrows}"] if miss else []
                        if len(seq) >= 2:
                            out.add(" > ".join(rmarks + nmarks + mmarks))
                        else:
                            out.add(" ".join(mmarks + nmarks + rmarks))
    return out
