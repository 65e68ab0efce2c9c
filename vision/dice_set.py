"""A taught dice set and the reader that uses it.

``DiceSet`` is what ``vision.teach.teach`` builds from a few labelled crops per face: the
prototypes (embeddings by the learned face embedding, ``vision.embedding.FaceEmbedder``, of every
example, a few box jitters and their quarter turns), their labels, "not a die" prototypes, where
the colour of a face lives (``"face"`` or ``"ink"``) and the colour measured for each named colour
under the table's light, plus the taught crops themselves. It is stored as one ``.npz`` file
(``save``/``load``, format ``dice-set/3``, ~100-300 kB) that names the embedding model it was made
with (``model_id``): a file made with other weights is refused with the reason (teach again), never
read with stale prototypes.

``DiceSetReader(dice_set)(image) -> vision.dice.Roll``: the finder's candidates (as in
``vision.pipeline.DiceReader``), each embedded and compared with the prototypes (cosine
similarity): a candidate is a die when its best similarity reaches the set's ``die_threshold``
(fitted on the teaching examples, leave-one-out), beats every "not a die" prototype, and its die
region fills the crop (a box much larger than the die it holds is not that die's box); boxes
much smaller than the other dice found are dropped (pips, specks); its value is the label of the
most similar prototypes (softmax over each label's mean similarity of its 5 nearest prototypes;
a die read with under 99 % confidence is read in its four quarter turns and the mean decides), its
colour from the nearest taught colours of the part of the face that carries colour, measured on
the face as the photo's white shows it (never looked up from the value). Value and colour are
named together (``DiceSet.name_faces``): the faces taught, number and colour, are the ones a
die is expected to show, and a face not taught is named only when it is clearly seen. Without
taught colours the body colour is named against the palette, as the shipped reader does.

``reader_for(path, base=None)`` is what ``dice-companion read --dice-set FILE`` calls.
"""
from __future__ import annotations

import io
import json
import math
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

from .colour import GENERAL, Calibration, ColourNamer, Palette, scene_white
from .detect import drop_side_faces
from .find import DieFinder, box_area, box_intersection, iou_matrix, same_die
from .dice import Die, Roll
from .pipeline import as_bgr, find_candidates
from .read import CONTEXT, crop_square, mean_over_turns
from .embedding import FaceEmbedder, default_embedder, view_embedder
from .face_colour import CROP, MIN_INK, face_features, ink_contrast_view

__all__ = ["DiceSet", "DiceSetReader", "reader_for", "FORMAT", "StaleDiceSet", "teaching_problem"]

FORMAT = "dice-set/3"
OLDER_FORMATS = {"dice-set/1": "hand-made embedding",
                 "dice-set/2": "ink colours without the face's contrast"}
TAU = 0.05  # softmax temperature over cosine similarities
# a label's similarity: the mean of its TOP_K most similar prototypes (steadier than the best one)
TOP_K = 5
MIN_BOX = 16  # pixels: the shorter side of a box worth reading
MIN_REL_SIDE = 0.6  # a die much smaller than the others on the table is a pip or a speck
# boxes sharing this much of the smaller one hold one die (the learned embedding reads a
SAME_DIE_SHARE = 0.4
# box 0.2 of a side off as that die, so the finder's shifted boxes around one die all score high)
SAME_SCORE = 0.03  # similarities this close: the smaller of two boxes around one die is the die's
# ...if its side is at least this share of the larger one's (a box of the die with some
INNER_MIN_SIDE = 0.6
# a camera frame's box is read as the last frame's box at its place (IoU at least REUSE_IOU) when
# their crops differ by at most REUSE_DIFF grey levels on average: a resting die under the same
# light (the tracker reads only still frames). A die turned to another face in place, or a hand
# over it, changes its crop by far more
REUSE_IOU = 0.8
REUSE_DIFF = 4.0
# table around it is 1.2-1.6 die sides; a pip's box
# inside the die, which the embedding may also read as a
# face, is a fifth of it and must not take the die's place)
MIN_DIE_SIDE, MAX_DIE_SIDE = 0.45, 0.95  # the die region's side / crop side (a good box: 0.6-0.9)
# die threshold: factor x typical leave-one-out similarity
THRESHOLD_FACTOR, THRESHOLD_RANGE = 0.7, (0.3, 0.8)
# a teaching photo is judged (teaching_problem) only where the set reads this share of the photos
# taught before right, each read by the rest
RELIABLE = 0.8
# the spread of a taught colour's measurements in carrier units, for a file that does not say
COLOUR_SIGMA = 0.08
COLOUR_SIGMAS = (0.04, 0.06, 0.08, 0.12, 0.16, 0.24, 0.32, 0.48)  # fitted among these
# a face (value and colour) that no example was taught with weighs at least this much beside a
# taught one when a die's value and colour are named together (``DiceSet.name_faces``; the weight
# itself is estimated from the examples: ``untaught_weight``)
UNTAUGHT_FACE = 0.05


class StaleDiceSet(ValueError):
    """A dice-set file made with another embedding model (or the old hand-made embedding)."""


def teaching_problem(taught: "DiceSet", new_group: int) -> str | None:
    """Why the example ``new_group`` of ``taught`` (the set taught with it) would make the set
    worse, or None: leave one example out (``DiceSet.read_by_the_others``), the other examples
    of its face read it as another face (a wrong face tapped, a photo of another face). An
    example whose face has no other example cannot be judged. Whether a new example makes an
    earlier one read wrong was tried as a second rule and refused good photos (with 1-3 photos
    a face, an example near the edge of its face flips with any new photo of a neighbour: 8 of
    18 close-ups of Kuh Vadis dice refused, 27 Nov 2026). It judges only where the photos
    taught before are read right by the rest at least ``RELIABLE`` of the time."""
    labels = dict(zip(taught.groups, taught.values))
    label = labels[new_group]
    seen = taught.read_by_the_others().get(new_group)
    # the photos taught before, each read by the rest of them: a set that misreads those cannot
    # judge a new one either (docs/vision-special.md, "Judging a teaching photo")
    before = taught.read_by_the_others(without=(new_group,))
    right = sum(str(v) == str(labels[g]) for g, v in before.items())
    if not before or right < RELIABLE * len(before):
        return None
    if seen is not None and str(seen) != str(label):
        return (f"this photo looks like {seen}, not {label}, next to the photos taught so far: "
                f"check the face you chose, or take the photo again")
    return None


def shipped_reads_better(taught: "DiceSet", shipped: dict,
                         smaller: tuple[dict, dict] | None = None) -> tuple[int, int, int] | None:
    """``(shipped right, taught right, readings judged)`` when the shipped reader reads the
    taught photos clearly better than the taught set reads them with each photo left out, else
    None.

    ``shipped``: per example (group), the face the shipped reader reads on it, for a set whose
    faces it can name. Only the examples the taught set can judge left out count
    (``DiceSet.read_by_the_others``: a face with one photo cannot be judged). Why left out: a
    set taught from photos reads those photos right by construction, which says nothing of a new
    roll. ``smaller``: (the shipped reader's, the taught set's left-out) readings per example of
    the photo shrunk to the size a table's camera sees a die at (``companion.teaching
    .shipped_check``), judged beside the photos as they are. "Clearly": among the readings the
    two make differently, the shipped reader is right on ``b`` and the taught set on ``c``, and
    ``b - c`` exceeds twice the spread that chance alone gives such a difference (McNemar's
    test, ``2 * sqrt(b + c)``), so that a photo or two of difference on a few dozen does not
    throw teaching away. Photoreal renders of one Kuh Vadis set (pips and a cow head;
    docs/vision-special.md, "Photoreal renders of one table's dice"): left out, the taught set
    reads 19 of its 36 photos right and the shipped reader 28; on other renders of the set they
    read 76.7 % and 92.8 % of the values."""
    label = dict(zip(taught.groups, taught.values))
    left_out = taught.read_by_the_others()
    judged = [g for g in left_out if g in shipped]
    # (shipped's face, the taught set's face, the true face) per reading
    readings = [(shipped[g], left_out[g], label[g]) for g in judged]
    if smaller is not None:
        small_shipped, small_taught = smaller
        readings += [(small_shipped[g], small_taught[g], label[g]) for g in judged
                     if g in small_shipped and small_taught.get(g) is not None]
    ok = [(str(s) == str(t), str(m) == str(t)) for s, m, t in readings]
    b = sum(s and not m for s, m in ok)
    c = sum(m and not s for s, m in ok)
    if b - c <= 2 * math.sqrt(b + c):
        return None
    return sum(s for s, _ in ok), sum(m for _, m in ok), len(ok)


def _lab_to_bgr(lab) -> tuple[int, int, int]:
    import cv2
    a = np.array(lab, np.float32).reshape(1, 1, 3)
    return tuple(int(v) for v in np.clip(cv2.cvtColor(a, cv2.COLOR_LAB2BGR)[0, 0] * 255, 0, 255))


def colour_vectors(labs) -> np.ndarray:
    """(n, 3) points of the HSV cone for Lab colours: (S cos H, S sin H, V / 2). Hue decides among
    saturated colours (Lab's blue-to-purple is not uniform), saturation and value for grey."""
    import cv2
    lab = np.asarray(labs, np.float32).reshape(-1, 1, 3)
    bgr = np.clip(cv2.cvtColor(lab, cv2.COLOR_LAB2BGR), 0, 1)
    hsv = cv2.cvtColor(bgr, cv2.COLOR_BGR2HSV).reshape(-1, 3)  # float: H in degrees
    h, s, v = np.radians(hsv[:, 0]), hsv[:, 1], hsv[:, 2]
    return np.stack([s * np.cos(h), s * np.sin(h), 0.5 * v], 1).astype(np.float64)


INK_CONTRAST_SCALE = 120.0  # Lab a*/b* units of (ink - face) per unit of the HSV cone


def carrier_vectors(source: str, face_labs, ink_labs) -> np.ndarray:
    """The points a face's colour is named by. A coloured face: its colour on the HSV cone
    (``colour_vectors``). A coloured symbol: the ink's colour on the cone *and* the ink's hue shift
    from the face it is printed on (Lab a*, b* of ink minus face). A thin symbol's measured colour
    mixes with the face around it (grey ink on wood reads brownish), but it still lies on the other
    side of the face than a yellow or a green ink: dev seeds 77-83 of the wood design, 300 dice
    each, colour right 92.7-99.3 % (mean 97.8) on the cone alone, 95.4-99.7 % (mean 98.7) with the
    shift, never worse on a seed (docs/vision-special.md)."""
    face = np.asarray(face_labs, np.float64).reshape(-1, 3)
    if source != "ink":
        return colour_vectors(face)
    ink = np.asarray(ink_labs, np.float64).reshape(-1, 3)
    return np.concatenate([colour_vectors(ink), (ink - face)[:, 1:] / INK_CONTRAST_SCALE], 1)


def untaught_weight(faces: list, n_values: int, n_colours: int) -> float:
    """How much a (value, colour) face that no example shows weighs beside a taught one, from
    the examples' faces (one entry per example): the share of examples whose face no other
    example shows is the chance that the next die shows a face not taught yet (Good and Turing's
    estimate of the unseen share), spread over the faces not taught, against the rest spread
    over the taught ones; at least ``UNTAUGHT_FACE``, at most 1 (no preference). A set taught
    with each face once (every face seen once) says nothing of what is missing: 1; a set whose
    faces were each taught several times: near ``UNTAUGHT_FACE``."""
    counts = Counter(faces)
    missing = n_values * n_colours - len(counts)
    if not counts or missing <= 0:
        return 1.0
    unseen = sum(1 for k in counts.values() if k == 1) / len(faces)
    if unseen >= 1.0:
        return 1.0
    ratio = (unseen / missing) / ((1.0 - unseen) / len(counts))
    return float(np.clip(ratio, UNTAUGHT_FACE, 1.0))


def _fit_colour_sigma(carrier: np.ndarray, labels: list) -> float:
    """The spread (``COLOUR_SIGMAS``) under which the taught examples' colours are likeliest, each
    named against the colours' means without it (leave one out): a set's colour confidences say
    how far its colours can be told apart. ``COLOUR_SIGMA`` when no colour has two examples."""
    labels = np.asarray(labels)
    names = sorted(set(labels))
    x = np.asarray(carrier, np.float64)
    usable = [i for i in range(len(x)) if (labels == labels[i]).sum() >= 2]
    if len(names) < 2 or not usable:
        return COLOUR_SIGMA
    d2 = []
    for i in usable:
        rest = np.arange(len(x)) != i
        means = np.array([x[rest & (labels == n)].mean(0) if (rest & (labels == n)).any()
                          else np.full(x.shape[1], np.inf) for n in names])
        d2.append(((means - x[i]) ** 2).sum(1))
    d2 = np.array(d2)
    truth = np.array([names.index(labels[i]) for i in usable])
    best, best_ll = COLOUR_SIGMA, -np.inf
    for s in COLOUR_SIGMAS:
        z = -d2 / (2 * s * s)
        z -= z.max(1, keepdims=True)
        ll = float((z[np.arange(len(z)), truth] - np.log(np.exp(z).sum(1))).sum())
        if ll > best_ll:
            best, best_ll = s, ll
    return best


def _separation(x: np.ndarray, labels: list) -> float:
    """Between-label share of the variance of the colours x (n, 3)."""
    x = np.asarray(x, np.float64)
    total = ((x - x.mean(0)) ** 2).sum()
    if total <= 1e-9:
        return 0.0
    within = 0.0
    for lab in set(labels):
        xi = x[[i for i, v in enumerate(labels) if v == lab]]
        within += ((xi - xi.mean(0)) ** 2).sum()
    return float(1 - within / total)


@dataclass(frozen=True)
class DiceSet:
    embeddings: np.ndarray  # (N, D) float32 prototypes (unit vectors)
    values: tuple  # label of each prototype (int or str)
    groups: tuple[int, ...]  # taught example each prototype comes from (its jitters and turns)
    negatives: np.ndarray  # (M, D) "not a die" prototypes
    colour_source: str | None  # "face", "vivid", "ink" or None (no colours taught)
    # name -> mean carrier vector (carrier_vectors)
    colours: tuple[tuple[str, tuple[float, ...]], ...]
    die_threshold: float
    model_id: str  # the embedding model the prototypes were made with
    # taught crops
    example_crops: np.ndarray = field(default_factory=lambda: np.zeros((0, 48, 48, 3), np.uint8))
    example_values: tuple = ()
    info: dict = field(default_factory=dict)
    # the (value, colour) faces the examples were taught with: what a die of the set can show
    faces: tuple = ()
    # its colours were measured on each photo's white (vision.colour.scene_white), and are read
    # so; a file from before keeps its colours as the photos showed them
    white: bool = False
    # the spread of a taught colour's measurements (carrier units; colour_probabilities): fitted
    # on the examples, leave one out, so that a set whose colours are hard to tell apart names
    # them with less confidence
    colour_sigma: float = COLOUR_SIGMA
    # how much a face not taught weighs beside a taught one (untaught_weight)
    untaught: float = 1.0
    # how many dice the game rolls, each with its own faces' colours (The Choice: 3), or None: a
    # value taught in that many colours has no other face
    dice: int | None = None
    # prototypes of the examples' top faces cut out square (vision.top_face), in the order of
    # ``embeddings`` (same values and groups), and the locator that cut them; None: a set taught
    # without the locator, read as before
    top_embeddings: np.ndarray | None = None
    top_model: str = ""

    # ---- building -------------------------------------------------------------------------------
    @classmethod
    def build(cls, embeddings, values, groups, negatives, face_labs, ink_labs, colour_labels,
              colour_names=None,
              model_id: str = "unknown", example_crops=None, example_values=(),
              vivid_labs=None, source_from=None, dice=None) -> "DiceSet":
        """``vivid_labs``: each example's ``FaceFeatures.vivid_lab`` (None: the colour source is
        chosen between the face's median and the ink). The source is the measure whose colours
        the taught names explain best (``_separation``), judged on ``source_from`` when given
        (the face, ink and vivid Labs of the photos as they are, where the measures are taken on
        each photo's white: which part of a face carries its colour is the design's, not the
        light's)."""
        named = [(i, c) for i, c in enumerate(colour_labels) if c]
        source, colours, sigma = None, (), COLOUR_SIGMA
        if named:
            idx = [i for i, _ in named]
            labels = [c for _, c in named]
            measures = {"face": np.asarray(face_labs), "ink": np.asarray(ink_labs)}
            if vivid_labs is not None:
                measures["vivid"] = np.asarray(vivid_labs)
            judged = measures
            if source_from is not None:
                judged = dict(zip(("face", "ink", "vivid"), map(np.asarray, source_from)))
                judged = {k: judged[k] for k in measures}
            source = "face"
            if len(set(labels)) >= 2:
                split = {k: _separation(m[idx], labels) for k, m in judged.items()}
                source = max(split, key=lambda k: (split[k], k == "face"))
            face_of = measures["vivid" if source == "vivid" else "face"]
            carrier = carrier_vectors(source, face_of[idx], np.asarray(ink_labs)[idx])
            order = list(colour_names) if colour_names else sorted(set(labels))
            colours = tuple((n,
                             tuple(float(v)
                                   for v in np.mean(carrier[[k for k, c in enumerate(labels)
                                                             if c == n]], 0)))
                            for n in order if n in labels)
            sigma = _fit_colour_sigma(carrier, labels)
        ds = cls(np.asarray(embeddings, np.float32), tuple(values), tuple(int(g) for g in groups),
                 np.asarray(negatives, np.float32).reshape(-1, np.asarray(embeddings).shape[1]),
                 source, colours, 0.0, model_id,
                 np.zeros((0, 48, 48, 3), np.uint8) if example_crops is None
                 else np.asarray(example_crops), tuple(example_values),
                 faces=tuple(sorted({(v, c) for v, c in zip(example_values, colour_labels) if c},
                                    key=str)),
                 colour_sigma=sigma, dice=dice,
                 untaught=untaught_weight([(v, c) for v, c in zip(example_values, colour_labels)
                                           if c], len(set(example_values)), len(colours)))
        return replace(ds, die_threshold=ds._fit_threshold())

    def _fit_threshold(self) -> float:
        """Leave-one-out: how similar a taught face is to the other examples of its label."""
        emb = self.embeddings
        groups = np.array(self.groups)
        vals = np.array([str(v) for v in self.values])
        best = []
        for g in np.unique(groups):
            mine = groups == g
            others = ~mine & (vals == vals[mine][0])
            if not others.any():
                continue
            best.append(float((emb[mine] @ emb[others].T).max(1).min()))
        if not best:
            return 0.5
        # a typical taught face is this similar to the other examples of its face; a few bad
        # teaching crops must not lower the bar for everything
        return float(np.clip(THRESHOLD_FACTOR * np.median(best), *THRESHOLD_RANGE))

    def with_info(self, **info) -> "DiceSet":
        return replace(self, info={**self.info, **info})

    @property
    def labels(self) -> tuple:
        out = []
        for v in self.values:
            if v not in out:
                out.append(v)
        return tuple(out)

    def classify(self, emb: np.ndarray, top: bool = False):
        """For embeddings (k, D): (probabilities over ``labels`` (k, L), best similarity, best "not
        a die"). ``top``: the embeddings are of top faces cut out square, read against the
        examples' top faces (``top_embeddings``)."""
        labels = self.labels
        proto_label = np.array([labels.index(v) for v in self.values])
        sims = emb @ (self.top_embeddings if top else self.embeddings).T
        per_label = np.full((len(emb), len(labels)), -1.0, np.float32)
        for j in range(len(labels)):
            s = sims[:, proto_label == j]
            k = min(TOP_K, s.shape[1])
            # the mean of its k nearest prototypes
            per_label[:, j] = -np.sort(-s, axis=1)[:, :k].mean(1)
        z = (per_label - per_label.max(1, keepdims=True)) / TAU
        p = np.exp(z)
        p /= p.sum(1, keepdims=True)
        neg = self.negatives
        neg_best = (emb @ neg.T).max(1) if len(neg) else np.full(len(emb), -1.0, np.float32)
        # is it a die: its best prototype (as the threshold was fitted)
        return p, sims.max(1), neg_best

    def read_by_the_others(self, without=()) -> dict[int, object]:
        """Leave one example out: for each taught example (group) whose face has other examples,
        the face that the other examples' prototypes read its own upright, unjittered crop as
        (the mean of the ``TOP_K`` nearest prototypes of each face, as ``classify`` reads).
        ``without``: examples left out of everything (neither read nor reading)."""
        groups = np.array(self.groups)
        out: dict[int, object] = {}
        for g in dict.fromkeys(self.groups):
            if g in without:
                continue
            first = int(np.flatnonzero(groups == g)[0])  # the example's own crop, turned by 0
            seen = self.read_left_out(g, self.embeddings[first], without)
            if seen is not None:
                out[int(g)] = seen
        return out

    def read_left_out(self, g: int, emb: np.ndarray, without=()):
        """The face the prototypes of every example but ``g`` (and ``without``) read the
        embedding ``emb`` as, or None when no other example shows ``g``'s face: how the set
        reads a view of example ``g`` it was not taught with."""
        groups = np.array(self.groups)
        vals = np.array([str(v) for v in self.values])
        labels = self.labels
        label_of = np.array([labels.index(v) for v in self.values])
        mine = groups == g
        others = ~mine & ~np.isin(groups, list(without))
        if not (others & (vals == vals[np.flatnonzero(mine)[0]])).any():
            return None
        sims = self.embeddings[others] @ np.asarray(emb, np.float32)
        scores = [np.sort(sims[label_of[others] == j])[::-1][:TOP_K].mean()
                  if (label_of[others] == j).any() else -1.0 for j in range(len(labels))]
        return labels[int(np.argmax(scores))]

    def colour_probabilities(self, face_labs, ink_labs) -> np.ndarray:
        """(k, C): each die's probability of each taught colour (``colours``' order), from the
        carrier's measured colour. ``face_labs``: the face's colour as the set measures it
        (``vivid_lab`` for a "vivid" set)."""
        if not self.colours:
            raise ValueError("this dice set has no taught colours")
        x = carrier_vectors(self.colour_source, face_labs, ink_labs)
        ref = np.array([c for _, c in self.colours], np.float64)
        d = np.sqrt(((x[:, None, :] - ref[None, :, :]) ** 2).sum(-1))
        z = -(d ** 2) / (2 * self.colour_sigma ** 2)
        z -= z.max(1, keepdims=True)
        p = np.exp(z)
        return p / p.sum(1, keepdims=True)

    def name_colours(self, face_labs, ink_labs):
        """(names, confidences) from the carrier's measured colours (taught colours only), each
        die's colour on its own (``name_faces`` names value and colour together)."""
        p = self.colour_probabilities(face_labs, ink_labs)
        idx = p.argmax(1)
        return [self.colours[i][0] for i in idx], [float(p[k, i]) for k, i in enumerate(idx)]

    def name_faces(self, p: np.ndarray, face_labs, ink_labs, values=None):
        """(values, value confidences, colours, colour confidences) of dice whose value
        probabilities over ``labels`` are ``p`` (k, L), their value and colour named together:
        each face (value, colour) weighs its value's probability times its colour's
        (``colour_probabilities``), a face the set was not taught (``faces``) ``untaught``
        times that (``untaught_weight``: from 1 for a set whose every face was photographed once
        to ``UNTAUGHT_FACE`` for one whose faces were each photographed several times), and
        ``UNTAUGHT_FACE`` times for a value already taught in as many colours as the game has
        dice (``dice``: The Choice's three dice show a 3 in at most three colours). Why:
        the value and the colour are two looks at one face, and the faces a set's dice can show
        are few (The Choice: 18 of the 36 pairs); a washed-out purple read as grey on a 3 is
        named purple when grey was taught on no 3. An untaught face is still named where its
        evidence outweighs the taught ones (a face the player did not photograph).
        ``values``: a value already decided for some dice (None where not), whose colour is then
        named among that value's faces. A set without taught faces (no colours, or a file from
        before they were kept) names the colours on their own. The confidences are the chosen
        value's and colour's shares of the weights."""
        q = self.colour_probabilities(face_labs, ink_labs)
        labels = self.labels
        names = [n for n, _ in self.colours]
        taught = {(str(v), c) for v, c in self.faces}
        # a value shown in as many colours as there are dice has no other face
        full = {str(v) for v in labels
                if self.dice and sum(str(t) == str(v) for t, _ in self.faces) >= self.dice}
        w = np.array([[1.0 if not taught or (str(v), c) in taught
                       else UNTAUGHT_FACE if str(v) in full else self.untaught
                       for c in names] for v in labels])
        joint = np.asarray(p, np.float64)[:, :, None] * q[:, None, :] * w[None]   # (k, L, C)
        out_v, out_vc, out_c, out_cc = [], [], [], []
        for k in range(len(joint)):
            jk = joint[k]
            if values is not None and values[k] is not None and values[k] in labels:
                jk = np.zeros_like(jk)
                jk[labels.index(values[k])] = joint[k][labels.index(values[k])]
            total = max(float(jk.sum()), 1e-300)
            i, j = np.unravel_index(int(jk.argmax()), jk.shape)
            out_v.append(labels[i])
            out_vc.append(float(jk[i].sum() / total))
            out_c.append(names[j])
            out_cc.append(float(jk[:, j].sum() / total))
        return out_v, out_vc, out_c, out_cc

    # ---- storage --------------------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        Path(path).write_bytes(self.to_bytes())

    def to_bytes(self) -> bytes:
        """The file's bytes (``save`` writes them)."""
        meta = {"format": FORMAT, "model_id": self.model_id, "values": list(self.values),
                "groups": list(self.groups), "colour_source": self.colour_source,
                "colours": [[n, list(c)] for n, c in self.colours],
                "die_threshold": self.die_threshold, "example_values": list(self.example_values),
                "faces": [list(f) for f in self.faces], "white": self.white,
                "colour_sigma": self.colour_sigma, "untaught": self.untaught, "dice": self.dice,
                "top_model": self.top_model, "info": self.info}
        arrays = {"embeddings": self.embeddings.astype(np.float16),
                  "negatives": self.negatives.astype(np.float16),
                  "example_crops": self.example_crops.astype(np.uint8)}
        if self.top_embeddings is not None:
            arrays["top_embeddings"] = self.top_embeddings.astype(np.float16)
        buf = io.BytesIO()
        np.savez_compressed(buf, meta=np.frombuffer(json.dumps(meta).encode(), np.uint8),
                            **arrays)
        return buf.getvalue()

    @classmethod
    def load(cls, path: str | Path, model_id: str | None = None) -> "DiceSet":
        """The stored set; ``model_id``: the embedding model that will read with it
        (``StaleDiceSet`` if the file was made with another one)."""
        p = Path(path)
        try:
            z = np.load(p, allow_pickle=False)
            meta = json.loads(bytes(z["meta"]).decode())
        except FileNotFoundError:
            raise
        except Exception:  # not an npz, or not ours: numpy's reason ("allow_pickle=...")
            # would only mislead a user
            raise ValueError(f"{p}: not a dice-set file (dice sets are written by "
                             f"`dice-companion teach`)") from None
        fmt = meta.get("format")
        if fmt in OLDER_FORMATS:
            raise StaleDiceSet(f"{p}: made by an older version ({OLDER_FORMATS[fmt]}, {fmt}); "
                               "teach these dice again with `dice-companion teach`")
        if fmt != FORMAT:
            raise ValueError(f"{p}: not a dice-set file (format {fmt!r}, expected {FORMAT})")
        if model_id is not None and meta.get("model_id") != model_id:
            raise StaleDiceSet(f"{p}: taught with the face embedding {meta.get('model_id')!r}, but "
                               f"this reader's model is {model_id!r} (models/face_embed.onnx "
                               "changed); teach these dice again with `dice-companion teach`")
        try:
            emb = z["embeddings"].astype(np.float32)
            neg = z["negatives"].astype(np.float32)
            crops = z["example_crops"]
        except KeyError as exc:
            raise ValueError(f"{p}: dice-set file without {exc}") from None
        if emb.ndim != 2 or len(meta["values"]) != len(emb) or len(meta["groups"]) != len(emb):
            raise ValueError(f"{p}: dice-set arrays do not match their labels")
        emb /= np.maximum(np.linalg.norm(emb, axis=1, keepdims=True), 1e-6)
        top = z["top_embeddings"].astype(np.float32) if "top_embeddings" in z.files else None
        if top is not None:
            if top.shape != emb.shape:
                raise ValueError(f"{p}: dice-set top faces do not match their labels")
            top /= np.maximum(np.linalg.norm(top, axis=1, keepdims=True), 1e-6)
        colours = tuple((str(n), tuple(float(v) for v in c)) for n, c in meta.get("colours", []))
        return cls(emb, tuple(meta["values"]), tuple(meta["groups"]), neg.reshape(-1, emb.shape[1]),
                   meta.get("colour_source"), colours, float(meta["die_threshold"]),
                   str(meta["model_id"]), crops,
                   tuple(meta.get("example_values", ())), meta.get("info", {}),
                   tuple((v, str(c)) for v, c in meta.get("faces", [])),
                   bool(meta.get("white", False)),
                   float(meta.get("colour_sigma", COLOUR_SIGMA)),
                   float(meta.get("untaught", 1.0)),
                   int(meta["dice"]) if meta.get("dice") else None,
                   top, str(meta.get("top_model", "")) if top is not None else "")


@dataclass
class DiceSetReader:
    """``DiceSetReader(dice_set)(image) -> Roll`` using a taught dice set (see the module's
    text)."""
    dice_set: DiceSet
    palette: Palette = GENERAL
    calibration: Calibration | None = None
    work_size: int = 640
    overlap: float = 0.3
    embedder: FaceEmbedder | None = None
    # the further views of the unsure dice (quarter turns, ink contrast, top faces): by default
    # the embedder's 8-bit copy where one ships (vision.embedding.view_embedder); the first
    # reading of every box, which decides what is a die, stays with ``embedder``
    views: FaceEmbedder | None = None
    # read each die the first reading is unsure of in its four quarter turns (see _turned)
    turns: bool = True
    turn_below: float = 0.99  # ...the dice whose first value confidence is below this
    # ...and also as their ink's colour contrast (ink_contrast_view), see _turned
    contrast: bool = True
    # the learned detector's boxes (vision.detect), or "opencv" (vision.find)
    find_with: str = "detector"
    # the detector's ONNX session (default: the shipped model)
    detector_session: object | None = None
    # drop weak detector boxes leaning on a surer die: an oblique die's side faces
    # (vision.detect.drop_side_faces, as the pip reader does; docs/vision-special.md)
    side_faces: bool = True
    # for a set of pip faces (1-6): the shipped pip reader (vision.read.FaceReader), whose value
    # stands where it is at least pip_sure sure (see _pip_values)
    pip_reader: object | None = None
    pip_sure: float = 0.4
    # a box of the last frame read again whose crop has not changed (a resting die in a stream)
    # keeps its reading instead of being embedded again (camera_frame; see _seen_before)
    reuse: bool = False
    # read each die's value from its top face cut out square (vision.top_face), where the set
    # was taught so and the locator that cut its examples is the one at hand (see _top_read)
    top_faces: bool = True
    # the top-face locator (default: the shipped models/top_face.onnx)
    locator: object | None = None
    finder: object = field(init=False)
    _last: list = field(init=False, default_factory=list, repr=False)

    def __post_init__(self):
        if self.find_with == "detector":
            from .detect import DieDetector
            self.finder = DieDetector(self.detector_session)
        elif self.find_with == "opencv":
            self.finder = DieFinder(self.work_size)
        else:
            raise ValueError(f"find_with must be 'opencv' or 'detector', not {self.find_with!r}")
        if self.embedder is None:
            self.embedder = default_embedder()
        if self.views is None:
            self.views = view_embedder(self.embedder)
        if self.top_faces and self.dice_set.top_embeddings is not None and self.locator is None:
            from .top_face import default_locator_or_none
            self.locator = default_locator_or_none()
        if self.embedder.model_id != self.dice_set.model_id:
            raise StaleDiceSet("this dice set was taught with the face embedding "
                               f"{self.dice_set.model_id!r}, the reader's model is "
                               f"{self.embedder.model_id!r}: teach the dice again")

    def with_calibration(self, calibration: Calibration | None) -> "DiceSetReader":
        return replace(self, calibration=calibration, detector_session=self._detector_session())

    def camera_frame(self) -> "DiceSetReader":
        """The same taught dice read as a camera frame is read: one embedding per box, no quarter
        turns and no ink-contrast view of the unsure dice. Those cost up to eight more embeddings
        a die (~2.6 ms each) and are most of a frame's time; in a stream the tracker's vote over
        the still frames does their work, and the frame a roll settles on is read once more by
        this reader (the companion's ``TableReader``). Shares this reader's embedder and
        detector session."""
        return replace(self, turns=False, contrast=False, reuse=True, top_faces=False,
                       detector_session=self._detector_session())

    def _detector_session(self):
        """The session this reader's detector runs on (a copy made by ``replace`` reuses it
        instead of loading the model again)."""
        return getattr(self.finder, "session", None) or self.detector_session

    def read_boxes(self, bgr: np.ndarray, boxes):
        """For boxes in ``bgr``, each around one die: (values, value confidences, die scores, is-die
        flags, face Labs, ink Labs); unsure dice are read in their quarter turns too."""
        p, best, is_die, face_labs, ink_labs = self._read(bgr, boxes)
        values, conf = self._valued(bgr, boxes, p)[:2]
        return values, conf, best, is_die, face_labs, ink_labs

    def _values(self, p: np.ndarray):
        labels = self.dice_set.labels
        return [labels[int(j)] for j in p.argmax(1)], [float(row.max()) for row in p]

    def _valued(self, bgr: np.ndarray, boxes, p: np.ndarray, faces=None):
        """(values, value confidences, value probabilities, decided) of the dice in ``boxes``,
        ``p`` their first reading: the probabilities once the unsure dice are read turned too
        (``_turned``), and for each die the value the pip reader decided (``_pip_values``) or
        None. ``faces``: the boxes' top faces when already located (``_named``). A die whose
        value the pip reader decided keeps its first reading: its value stands whatever the
        set reads, and its colour is named among that value's faces, which a positive scale of
        its probabilities does not change (``DiceSet.name_faces``); the further views, up to
        fifteen embeddings a die, are spent on the others."""
        pips = self._pip_values(bgr, boxes)
        rest = [i for i, d in enumerate(pips) if d is None]
        if rest:
            sub = [boxes[i] for i in rest]
            read = (self._top_read(bgr, sub, p[rest], None if faces is None
                                   else [faces[i] for i in rest]) if self._reads_top_faces
                    else self._turned(bgr, sub, p[rest]))
            p = np.array(p, copy=True)
            p[rest] = read
        values, conf = self._values(p)
        for i, d in enumerate(pips):
            if d is not None:
                values[i], conf[i] = d
        return values, conf, p, [None if d is None else d[0] for d in pips]

    def _named(self, bgr: np.ndarray, boxes, p: np.ndarray, face_labs, ink_labs):
        """(values, value confidences, colours, colour confidences) of the dice in ``boxes`` of a
        set with taught colours, value and colour named together (``DiceSet.name_faces``)."""
        faces = None
        if self._reads_top_faces and len(boxes):   # located once, for values and colours
            faces = self.locator(bgr, list(boxes))
        values, conf, p, decided = self._valued(bgr, boxes, p, faces)
        if not len(boxes):
            return [], [], [], []
        if faces is not None:   # the colours of the top faces, as the set was taught
            face_labs, ink_labs = self._top_colours(bgr, boxes, faces)
        v, vc, names, cconf = self.dice_set.name_faces(p, face_labs, ink_labs, decided)
        keep = [d is not None for d in decided]   # the pip reader's value and confidence stand
        return ([values[i] if keep[i] else v[i] for i in range(len(v))],
                [conf[i] if keep[i] else vc[i] for i in range(len(v))], names, cconf)

    def name_boxes(self, bgr: np.ndarray, boxes):
        """For boxes in ``bgr``, each around one die of a set with taught colours: (values, value
        confidences, colours, colour confidences), as a roll names them."""
        p, _, _, face_labs, ink_labs = self._read(bgr, boxes)
        return self._named(bgr, boxes, p, face_labs, ink_labs)

    def _pip_values(self, bgr: np.ndarray, boxes) -> list:
        """Per die, (value, confidence) the pip reader decided, or None where it leaves the die
        to the taught set (or there is no pip reader). Teaching must not read pip dice worse
        than the shipped reader does untaught: where the pip reader is at least ``pip_sure``
        sure of a value (its probabilities over 1-6) that the set was taught, that value stands;
        the taught set reads the dice it doubts. Taught alone, sets of 5 real dice a value read
        other real sets up to 7 points worse than the shipped reader; with this rule no pair is
        read worse (``bench/vision_special.py --only real``, docs/vision-special.md "Real
        photos"). 0.4 was chosen on two sets the shipped reader never saw (epanemu_own,
        tomitomi3_crops: 0.25-0.5 measured) and holds on the others."""
        if self.pip_reader is None or not len(boxes):
            return [None] * len(boxes)
        probs = np.asarray(self.pip_reader(bgr, list(boxes)).probs)[:, 1:]
        probs = probs / np.maximum(probs.sum(1, keepdims=True), 1e-12)
        taught = set(self.dice_set.labels)
        out: list = [None] * len(boxes)
        for i, row in enumerate(probs):
            v = int(row.argmax()) + 1
            if row[v - 1] >= self.pip_sure and v in taught:
                out[i] = (v, float(row[v - 1]))
        return out

    @property
    def _reads_top_faces(self) -> bool:
        return bool(self.top_faces and self.dice_set.top_embeddings is not None
                    and self.locator is not None
                    and getattr(self.locator, "model_id", None) == self.dice_set.top_model)

    def _white(self, bgr: np.ndarray):
        """crop -> crop: a set with taught colours measures them on the photo's white, as it was
        taught (docs/vision-special.md, "Colours on the photo's white"); else as they are."""
        if self.dice_set.white and self.dice_set.colours:
            lut = scene_white(bgr).lut_u8()   # one table for every crop of the frame
            return lambda crop: cv2.LUT(crop, lut)
        return lambda crop: crop

    def _top_colours(self, bgr: np.ndarray, boxes, faces):
        """(face Labs, ink Labs) of the dice in ``boxes`` measured on their top faces ``faces``
        cut out square (the box's crop where there is none), on the photo's white where the set
        was taught so: a side face's colour is not the die's face colour."""
        from .top_face import top_face_crops

        white = self._white(bgr)
        crops = top_face_crops(bgr, list(boxes), CROP, CONTEXT, self.locator, faces)[0]
        feats = [face_features(white(c)) for c in crops]
        vivid = self.dice_set.colour_source == "vivid"
        return (np.array([f.vivid_lab if vivid else f.face_lab for f in feats]),
                np.array([f.ink_lab for f in feats]))

    def _top_read(self, bgr: np.ndarray, boxes, p: np.ndarray, faces=None) -> np.ndarray:
        """The value probabilities of the dice in ``boxes``: the mean of the box's reading
        (``_turned``) and the reading of its top face cut out square (``vision.top_face``)
        against the examples' top faces, the face read as the box is (its quarter turns and
        ink-contrast view where unsure). The face shows a die seen obliquely as the embedding
        knows faces, without its side faces; the box reads dice seen from above as taught sets
        were always read. Together they read photoreal dice at 20-50 degrees far better than the
        box alone, and the 2-D designs within two dice of it (docs/vision-special.md, "Top faces
        cut out square", where the other ways of combining them measured are). A box whose face
        the locator does not find keeps the box's reading, and so does a die the box reads
        surely (``turn_below``): where the box was sure, the face changed no reading measured.
        ``faces``: the boxes' top faces when already located."""
        from .top_face import top_face_crops

        q = self._turned(bgr, boxes, p)
        unsure = [i for i in range(len(q)) if q[i].max() < self.turn_below]
        if not unsure:
            return q
        crops, found = top_face_crops(bgr, [boxes[i] for i in unsure], self.embedder.size,
                                      self.embedder.context, self.locator,
                                      None if faces is None else [faces[i] for i in unsure])
        idx = [i for i, f in zip(unsure, found) if f]
        if not idx:
            return q
        tops = crops[[k for k, f in enumerate(found) if f]]
        r = self._turned(bgr, [boxes[i] for i in idx],
                         self.dice_set.classify(self.views(tops), top=True)[0], tops, True)
        q = np.array(q, copy=True)
        q[idx] = (q[idx] + r) / 2
        return q

    def _turned(self, bgr: np.ndarray, boxes, p: np.ndarray, crops=None,
                top: bool = False) -> np.ndarray:
        """``p`` with the rows under ``turn_below`` replaced by the mean over the die's four quarter
        turns. The prototypes hold every taught face in its four quarter turns, so each turn of the
        die meets its own prototypes; the embedding's mistakes differ from turn to turn (Roman III
        and VI, a numeral in wood grain), the face does not: +1-3 points on numerals and Roman
        numerals (docs/vision-special.md). Only unsure dice: a sure reading stays as it is. With
        ``contrast`` they are also read as their ink's colour contrast and the two readings are
        averaged (``vision.face_colour.ink_contrast_view``: a faint coloured symbol on wood).
        ``crops``: the boxes' crops when they are not the embedder's crops of ``boxes`` (the top
        faces cut out square, read against the examples' top faces with ``top``)."""
        unsure = [i for i in range(len(p)) if p[i].max() < self.turn_below] if self.turns else []
        if not unsure:
            return p
        out = np.array(p, copy=True)
        crops = (self.embedder.crops(bgr, [boxes[i] for i in unsure]) if crops is None
                 else crops[unsure])
        read = lambda c: self.dice_set.classify(self.views(c), top=top)[0]  # noqa: E731
        out[unsure] = mean_over_turns(p[unsure], crops, read)
        if self.contrast:
            # the same dice seen as their ink's colour contrast (ink_contrast_view), read the same
            # way (in quarter turns where that reading is unsure too), and the two readings averaged
            views = np.stack([ink_contrast_view(c) for c in crops])
            q = read(views)
            again = np.flatnonzero(q.max(1) < self.turn_below)
            if len(again):
                q[again] = mean_over_turns(q[again], views[again], read)
            out[unsure] = (out[unsure] + q) / 2
        return out

    def _seen_before(self, bgr: np.ndarray, boxes) -> list:
        """For each box, the kept reading ``(box, crop, face features, (p, best, neg))`` of the
        last frame at the same place (IoU at least ``REUSE_IOU``: the detector's boxes move by a
        pixel or two from frame to frame) when what its box holds has not changed: this frame's
        crop of that box is the crop the reading was made from, up to sensor noise (mean
        absolute difference at most ``REUSE_DIFF`` grey levels); else None. Only with
        ``reuse``."""
        out: list = [None] * len(boxes)
        if not self.reuse or not self._last or not len(boxes):
            return out
        last_boxes = np.array([kept[0] for kept in self._last], np.float32)
        iou = iou_matrix(np.asarray(boxes, np.float32).reshape(-1, 4), last_boxes)
        for i in range(len(boxes)):
            j = int(iou[i].argmax())
            if iou[i, j] < REUSE_IOU:
                continue
            box, crop = self._last[j][:2]
            now = self.embedder.crops(bgr, [box])[0].astype(np.int16)
            if float(np.abs(now - crop).mean()) <= REUSE_DIFF:
                out[i] = self._last[j]
        return out

    def _read(self, bgr: np.ndarray, boxes, fitting_only: bool = False):
        """One reading of every box: (label probabilities, die scores, is-die flags, face Labs, ink
        Labs). The face Labs are measured as the set's colour source says (its most colourful
        pixels for ``"vivid"``, else the face's median).

        ``fitting_only``: embed only the boxes whose face features fit a die (the others cannot be
        dice anyway: uniform probabilities, score -1). A frame's finder proposes ~80 boxes of which
        ~15 fit; the embedding is the reader's main cost (~2.6 ms a box on one core)."""
        if len(boxes) == 0:
            return (np.zeros((0, len(self.dice_set.labels))), np.zeros(0), np.zeros(0, bool),
                    np.zeros((0, 3)), np.zeros((0, 3)))
        seen = self._seen_before(bgr, boxes)
        white = self._white(bgr)
        feats = [seen[i][2] if seen[i] is not None
                 else face_features(white(crop_square(bgr, b, CROP, CONTEXT)))
                 for i, b in enumerate(boxes)]
        # the die region fills a good box; much smaller: a box around a die and the table; the whole
        # crop: the "face" found is the table (a box much larger than a small die)
        # and every face has a symbol: a crop without ink is table, not a die
        # (the detector's boxes are die-shaped by training: only the ink is asked of them)
        sized = self.find_with != "detector"
        fits = np.array([(not sized or MIN_DIE_SIDE <= f.die_side <= MAX_DIE_SIDE)
                         and f.ink_fraction >= MIN_INK
                         for f in feats])
        read = np.flatnonzero(fits) if fitting_only else np.arange(len(boxes))
        n_labels = len(self.dice_set.labels)
        p = np.full((len(boxes), n_labels), 1.0 / n_labels)
        best = np.full(len(boxes), -1.0)
        neg = np.zeros(len(boxes))
        for i in read:
            if seen[i] is not None:
                p[i], best[i], neg[i] = seen[i][3]
        new = [i for i in read if seen[i] is None]
        crops = self.embedder.crops(bgr, [boxes[i] for i in new])
        if new:
            p[new], best[new], neg[new] = self.dice_set.classify(self.embedder(crops))
        if self.reuse:   # each reading with the box and crop it was made from
            made = {i: (tuple(boxes[i]), crop, feats[i], (p[i], best[i], neg[i]))
                    for i, crop in zip(new, crops)}
            self._last = [seen[i] if seen[i] is not None else made[i] for i in read]
        is_die = (best >= self.dice_set.die_threshold) & (best > neg) & fits
        vivid = self.dice_set.colour_source == "vivid"
        return (p, best, is_die, np.array([f.vivid_lab if vivid else f.face_lab for f in feats]),
                np.array([f.ink_lab for f in feats]))

    def __call__(self, image) -> Roll:
        t0 = time.perf_counter()
        bgr = as_bgr(image)
        found, scores = find_candidates(self.finder, bgr)
        t1 = time.perf_counter()
        # boxes under MIN_BOX pixels are pips and specks (and unreadable as dice): not embedded
        small = [min(b[2] - b[0], b[3] - b[1]) < MIN_BOX for b in found.boxes]
        p, best, is_die, face_labs, ink_labs = self._read(bgr,
                                                          [b for b, sm in zip(found.boxes, small)
                                                           if not sm],
                                                          fitting_only=True)
        if any(small):
            keep = [i for i, sm in enumerate(small) if not sm]
            found = replace(found, boxes=tuple(found.boxes[i] for i in keep))
            scores = None if scores is None else scores[keep]
        dice = [int(i) for i in np.flatnonzero(is_die)]
        if scores is not None and self.side_faces:
            # before one box per die is chosen: the weak box is not the die's own
            dice = drop_side_faces(found.boxes, scores, dice)
        dice = set(dice)
        kept: list[int] = []
        for i in np.argsort(-best, kind="stable"):
            if i not in dice:
                continue
            bi = found.boxes[i]
            clash = next((n for n, k in enumerate(kept)
                          if same_die(bi, found.boxes[k], self.overlap, SAME_DIE_SHARE)), None)
            if clash is None:
                kept.append(int(i))
            else:
                # one die, two boxes scoring alike (the
                # embedding reads a die in a box with some table
                # around it as well as in its own box): the
                # box inside the other, the die's own, stays,
                # so that a resting die keeps one box from frame to frame
                k = kept[clash]
                bk = found.boxes[k]
                if INNER_MIN_SIDE ** 2 * box_area(bk) <= box_area(bi) < 0.8 * box_area(bk) \
                        and box_intersection(bi, bk) >= 0.8 * box_area(bi) \
                        and best[i] >= best[k] - SAME_SCORE:
                    kept[clash] = int(i)
        if len(kept) >= 2:  # dice on one table have about the same size: drop the much smaller
            sides = {k: ((found.boxes[k][2] - found.boxes[k][0])
                         * (found.boxes[k][3] - found.boxes[k][1])) ** 0.5
                     for k in kept}
            typical = float(np.median(list(sides.values())))
            kept = [k for k in kept if sides[k] >= MIN_REL_SIDE * typical]
        kept.sort(key=lambda k: (found.boxes[k][1], found.boxes[k][0]))
        boxes = [found.boxes[k] for k in kept]
        if self.dice_set.colours:
            values, conf, names, cconf = self._named(bgr, boxes, p[kept], face_labs[kept],
                                                     ink_labs[kept])
        else:
            values, conf = self._valued(bgr, boxes, p[kept])[:2]
        t2 = time.perf_counter()
        if self.dice_set.colours:
            src = ink_labs if self.dice_set.colour_source == "ink" else face_labs
            measured = [_lab_to_bgr(src[k]) for k in kept]
        else:
            col = ColourNamer(self.palette, self.calibration)(bgr, boxes)
            names, cconf, measured = col.names, col.confidences, col.measured_bgr
        dice = tuple(Die(tuple(int(v) for v in found.boxes[k]), values[j], conf[j], names[j],
                         float(cconf[j]), tuple(int(v) for v in measured[j]), float(best[k]))
                     for j, k in enumerate(kept))
        t3 = time.perf_counter()
        return Roll(bgr.shape[1], bgr.shape[0], dice, found.elapsed_ms, (t2 - t1) * 1000,
                    (t3 - t2) * 1000, (t3 - t0) * 1000, len(found.boxes))

    def calibrate(self, image) -> Calibration:
        """Light calibration against the palette (used when the dice set has no taught colours)."""
        from .colour import calibrate
        roll = self.with_calibration(None)(image)
        if not roll.dice:
            raise ValueError("no dice found in the calibration photo")
        return calibrate([d.colour_bgr for d in roll.dice], self.palette)


def reader_for(path: str | Path, palette: Palette = GENERAL, calibration: Calibration | None = None,
               work_size: int = 640, embedder: FaceEmbedder | None = None) -> DiceSetReader:
    """The reader of a stored dice set (``FileNotFoundError`` or ``ValueError`` with the reason; a
    set made with another embedding model: ``StaleDiceSet``, a ``ValueError``)."""
    embedder = embedder or default_embedder()
    return DiceSetReader(DiceSet.load(path, embedder.model_id), palette, calibration, work_size,
                         embedder=embedder)
