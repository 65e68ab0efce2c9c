"""How a found die is matched to a labelled one (shared by the benchmark and the training data).

* ``box_kind == "die"`` (the label covers the whole die): IoU >= 0.3.
* ``box_kind == "pips"`` (matteop65: the label covers only the pips of the top face, so a correct
  whole-die box has a low IoU with it, e.g. below 0.1 for a one): at least half of the labelled
  pip box lies inside the found box, the centre of the pip box lies in the central 60 % of the
  found box (not 50 %: on an oblique view the whole-die box also covers side faces, so the top
  face sits off-centre), and the found box does not hold the pip-box centres of two labelled
  dice (a box around two dice matches neither).

Matching is one-to-one, greedy by score.
"""
from __future__ import annotations

from ..find import box_iou

__all__ = ["match_score", "matches", "greedy_match"]


def _inside_fraction(label, box) -> float:
    ix = max(0.0, min(label[2], box[2]) - max(label[0], box[0]))
    iy = max(0.0, min(label[3], box[3]) - max(label[1], box[1]))
    area = max(1e-6, (label[2] - label[0]) * (label[3] - label[1]))
    return ix * iy / area


def match_score(label_box, box_kind: str, box) -> float:
    """A score in [0, 1]; > 0 means the found ``box`` matches the labelled one."""
    if box_kind == "pips":
        frac = _inside_fraction(label_box, box)
        cx, cy = (label_box[0] + label_box[2]) / 2, (label_box[1] + label_box[3]) / 2
        bx, by = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        w, h = max(1.0, box[2] - box[0]), max(1.0, box[3] - box[1])
        central = abs(cx - bx) <= 0.3 * w and abs(cy - by) <= 0.3 * h
        return frac if frac >= 0.5 and central else 0.0
    iou = box_iou(label_box, box)
    return iou if iou >= 0.3 else 0.0


def matches(label_box, box_kind: str, box) -> bool:
    return match_score(label_box, box_kind, box) > 0


def _holds_two(box, centres) -> bool:
    return sum(box[0] <= x <= box[2] and box[1] <= y <= box[3] for x, y in centres) >= 2


def greedy_match(labels, boxes) -> list[tuple[int, int]]:
    """One-to-one pairs (label index, box index); ``labels`` are (box, box_kind) pairs."""
    cand = []
    pip_centres = [((lb[0] + lb[2]) / 2, (lb[1] + lb[3]) / 2) for lb, kind in labels
                   if kind == "pips"]
    for i, (lb, kind) in enumerate(labels):
        for j, b in enumerate(boxes):
            if kind == "pips" and _holds_two(b, pip_centres):
                continue
            s = match_score(lb, kind, b)
            if s > 0:
                cand.append((s, i, j))
    cand.sort(reverse=True)
    used_l, used_b, pairs = set(), set(), []
    for s, i, j in cand:
        if i not in used_l and j not in used_b:
            used_l.add(i)
            used_b.add(j)
            pairs.append((i, j))
    return pairs


def reads_of_hidden_dice(readable, hidden, boxes) -> set[int]:
    """Indices of the ``boxes`` that count neither way: found where a labelled die lies whose
    top face is mostly hidden (``hidden``, like ``readable``: (box, box_kind) pairs), once the
    readable dice have had their pick. The readable dice are matched first: a die lying on a
    hidden one overlaps it, and matched the other way round the hidden die would take the box
    of the die on top, which would then count as missed."""
    taken = {j for _, j in greedy_match(readable, boxes)}
    rest = [j for j in range(len(boxes)) if j not in taken]
    return {rest[j] for _, j in greedy_match(hidden, [boxes[j] for j in rest])}
