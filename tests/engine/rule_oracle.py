"""Naive, independent statements of the placement rules, used to build and cross-check
the perft fixtures. Written straight from the rule texts, with no code shared with the
engine beyond reading the layout data: slow and obvious on purpose."""
from itertools import combinations


def qwinto(layout, rows, dice, role):
    """rows: {colour: {position: value}}; dice: [(colour, face)]."""
    total = sum(f for _, f in dice)
    out = set()
    for row in layout["rows"]:
        if row["colour"] not in {c for c, _ in dice}:
            continue
        filled = rows[row["colour"]]
        for p in row["fields"]:
            if p in filled:
                continue
            if any(q < p and v >= total for q, v in filled.items()):
                continue
            if any(q > p and v <= total for q, v in filled.items()):
                continue
            if any(other["colour"] != row["colour"] and rows[other["colour"]].get(p) == total
                   for other in layout["rows"]):
                continue
            out.add(f"{row['label']}{total}@{p}")
    out.add("fail" if role == "roller" else "pass")
    return out


def knister(grid, dice):
    total = sum(f for _, f in dice)
    return {f"{'ABCDE'[r]}{total}@{c}" for r in range(5) for c in range(5)
            if grid[r][c] is None}


def twenty_one(layout, rows, dice):
    current = next((r for r, row in enumerate(rows) if None in row), None)
    if current is None:
        return set()
    lay = layout["rows"][current]
    singles = []
    for colour, face in dice:
        p = lay["colours"].index(colour)
        if rows[current][p] is None and face <= lay["numbers"][p]:
            singles.append(f"{lay['label']}{face}@{p}")
    out = {"cross"}
    for k in range(1, len(singles) + 1):
        for combo in combinations(sorted(singles), k):
            out.add(" ".join(sorted(combo, key=lambda m: (m[0], int(m.split("@")[1]),
                                                         m))))
    return out
