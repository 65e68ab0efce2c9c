"""A taught dice set and the reader that uses it.

``DiceSet`` is what ``vision.teach.teach`` builds from a few labelled crops per face: the aligned
ink maps of the examples (their embeddings and quarter turns are recomputed on load, so the file
stays small and never goes stale), their labels, "not a die" examples, where the colour of a face
lives (``"face"`` or ``"ink"``) and the colour measured for each named colour under the table's
light. It is stored as one ``.npz`` file (``save``/``load``), a few hundred kB at most.

``DiceSetReader(dice_set)(image) -> vision.pipeline.Roll``: the finder's candidates (as in
``vision.pipeline.DiceReader``), each embedded and compared with the prototypes (cosine
similarity): a candidate is a die when its best similarity reaches the set's ``die_threshold``
(fitted on the teaching examples, leave-one-out), beats every "not a die" prototype, and its die
region fills the crop (a box much larger than the die it holds is not that die's box); boxes
much smaller than the other dice found are dropped (pips, specks); its value
is the label of the most similar prototypes (softmax over the best similarity of each label), its
colour the nearest taught colour of the part of the face that carries colour, read on its own
(never looked up from the value). Without taught colours the body colour is named against the
palette, as the shipped reader does.

``reader_for(path, base=None)`` is what ``dice-companion read --dice-set FILE`` calls.
"""
from __future__ import annotations

import io
import json
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from .colour import GENERAL, Calibration, ColourNamer, Palette
from .find import DieFinder, box_iou
from .pipeline import Die, Roll, as_bgr
from .read import CONTEXT, crop_square
from .teach import ALIGNED, CROP, MIN_INK, N_POSES, embed_aligned, face_features, rotations

__all__ = ["DiceSet", "DiceSetReader", "reader_for", "FORMAT"]

FORMAT = "dice-set/1"
TAU = 0.02  # softmax temperature over cosine similarities
MIN_BOX = 16  # pixels: the shorter side of a box worth reading
MIN_REL_SIDE = 0.6  # a die much smaller than the others on the table is a pip or a speck
MIN_DIE_SIDE, MAX_DIE_SIDE = 0.45, 0.95  # the die region's side / crop side (a good box: 0.6-0.9)


def _lab_to_bgr(lab) -> tuple[int, int, int]:
    import cv2
    a = np.array(lab, np.float32).reshape(1, 1, 3)
    return tuple(int(v) for v in np.clip(cv2.cvtColor(a, cv2.COLOR_LAB2BGR)[0, 0] * 255, 0, 255))


def _colour_distance(lab, ref) -> np.ndarray:
    d = np.asarray(lab, np.float64)[:, None, :] - np.asarray(ref, np.float64)[None, :, :]
    d[..., 0] *= 0.5  # light level changes across the table more than hue
    return np.sqrt((d ** 2).sum(-1))


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
    aligned: np.ndarray  # (n, ALIGNED, ALIGNED) float32 ink maps of the examples
    values: tuple  # label of each example (int or str)
    negatives: np.ndarray  # (m, ALIGNED, ALIGNED) "not a die"
    colour_source: str | None  # "face", "ink" or None (no colours taught)
    colours: tuple[tuple[str, tuple[float, float, float]], ...]  # name -> measured Lab
    die_threshold: float
    groups: tuple[int, ...] = ()  # example i comes from taught crop groups[i] (a crop and its jitters)
    info: dict = field(default_factory=dict)

    # ---- building -------------------------------------------------------------------------------
    @classmethod
    def build(cls, aligned, values, negatives, face_labs, ink_labs, colour_labels, colour_names=None,
              groups=None) -> "DiceSet":
        values = tuple(values)
        groups = tuple(int(g) for g in groups) if groups is not None else tuple(range(len(values)))
        named = [(i, c) for i, c in enumerate(colour_labels) if c]
        source, colours = None, ()
        if named:
            idx = [i for i, _ in named]
            labels = [c for _, c in named]
            if len(set(labels)) >= 2:
                sf = _separation(face_labs[idx], labels)
                si = _separation(ink_labs[idx], labels)
                source = "ink" if si > sf else "face"
            else:
                source = "face"
            carrier = (ink_labs if source == "ink" else face_labs)[idx]
            order = list(colour_names) if colour_names else sorted(set(labels))
            colours = tuple((n, tuple(float(v) for v in np.mean(carrier[[k for k, c in enumerate(labels) if c == n]], 0)))
                            for n in order if n in labels)
        ds = cls(np.asarray(aligned, np.float32), values, np.asarray(negatives, np.float32), source, colours, 0.0,
                 groups)
        return replace(ds, die_threshold=ds._fit_threshold())

    def _fit_threshold(self) -> float:
        """Leave-one-out: how similar a taught face is to the other examples of its label."""
        emb = self.embeddings()
        n_ex = len(self.values)
        # examples come in groups (one crop and its jitters, same label): leave the whole group out
        groups = self.groups or tuple(range(n_ex))
        best = []
        for g in set(groups):
            inside = np.array([groups[i] == g for i in range(n_ex)])
            mask = np.repeat(~inside, N_POSES)
            mine = np.repeat(inside, N_POSES)
            same = np.repeat(np.array([self.values[i] == self.values[np.argmax(inside)] for i in range(n_ex)]), N_POSES)
            if not (mask & same).any():
                continue
            sims = emb[mine] @ emb[mask & same].T
            best.append(float(sims.max(1).min()))
        if not best:
            return 0.6
        # a typical taught face is this similar to the other examples of its face; a few bad
        # teaching crops must not lower the bar for everything (junk on the table scores 0.4-0.75)
        return float(np.clip(0.75 * np.median(best), 0.55, 0.85))

    def with_info(self, **info) -> "DiceSet":
        return replace(self, info={**self.info, **info})

    # ---- prototypes -----------------------------------------------------------------------------
    def embeddings(self) -> np.ndarray:
        """(N_POSES * n, D): every example in all its poses (cached)."""
        cache = self.__dict__.get("_emb")
        if cache is None:
            cache = np.stack([embed_aligned(r) for a in self.aligned for r in rotations(a)])
            object.__setattr__(self, "_emb", cache)
        return cache

    def negative_embeddings(self) -> np.ndarray:
        cache = self.__dict__.get("_neg")
        if cache is None:
            cache = np.stack([embed_aligned(r) for a in self.negatives for r in rotations(a)]) if len(self.negatives) \
                else np.zeros((0, self.embeddings().shape[1]), np.float32)
            object.__setattr__(self, "_neg", cache)
        return cache

    @property
    def labels(self) -> tuple:
        out = []
        for v in self.values:
            if v not in out:
                out.append(v)
        return tuple(out)

    def classify(self, emb: np.ndarray):
        """For embeddings (k, D): (probabilities over ``labels`` (k, L), best similarity, best "not a die")."""
        protos = self.embeddings()
        labels = self.labels
        proto_label = np.repeat(np.array([labels.index(v) for v in self.values]), N_POSES)
        sims = emb @ protos.T
        per_label = np.full((len(emb), len(labels)), -1.0, np.float32)
        for j in range(len(labels)):
            per_label[:, j] = sims[:, proto_label == j].max(1)
        z = (per_label - per_label.max(1, keepdims=True)) / TAU
        p = np.exp(z)
        p /= p.sum(1, keepdims=True)
        neg = self.negative_embeddings()
        neg_best = (emb @ neg.T).max(1) if len(neg) else np.full(len(emb), -1.0, np.float32)
        return p, per_label.max(1), neg_best

    def name_colours(self, face_labs, ink_labs):
        """(names, confidences) from the carrier's measured colours (taught colours only)."""
        if not self.colours:
            raise ValueError("this dice set has no taught colours")
        lab = np.asarray(ink_labs if self.colour_source == "ink" else face_labs, np.float64).reshape(-1, 3)
        d = _colour_distance(lab, [c for _, c in self.colours])
        z = -(d ** 2) / (2 * 10.0 ** 2)
        z -= z.max(1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(1, keepdims=True)
        idx = p.argmax(1)
        return [self.colours[i][0] for i in idx], [float(p[k, i]) for k, i in enumerate(idx)]

    # ---- storage --------------------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        meta = {"format": FORMAT, "values": list(self.values), "colour_source": self.colour_source,
                "colours": [[n, list(c)] for n, c in self.colours], "die_threshold": self.die_threshold,
                "info": self.info, "aligned": ALIGNED, "crop": CROP, "groups": list(self.groups)}
        buf = io.BytesIO()
        np.savez_compressed(buf, meta=np.frombuffer(json.dumps(meta).encode(), np.uint8),
                            aligned=np.round(self.aligned * 255).astype(np.uint8),
                            negatives=np.round(self.negatives * 255).astype(np.uint8))
        Path(path).write_bytes(buf.getvalue())

    @classmethod
    def load(cls, path: str | Path) -> "DiceSet":
        p = Path(path)
        try:
            z = np.load(p, allow_pickle=False)
            meta = json.loads(bytes(z["meta"]).decode())
            aligned = z["aligned"].astype(np.float32) / 255
            negatives = z["negatives"].astype(np.float32) / 255
        except FileNotFoundError:
            raise
        except Exception as exc:  # not an npz, or not ours
            raise ValueError(f"{p}: not a dice-set file ({exc.__class__.__name__}: {exc})") from None
        if meta.get("format") != FORMAT:
            raise ValueError(f"{p}: not a dice-set file (format {meta.get('format')!r}, expected {FORMAT})")
        if aligned.ndim != 3 or aligned.shape[1:] != (ALIGNED, ALIGNED) or len(meta["values"]) != len(aligned):
            raise ValueError(f"{p}: dice-set arrays do not match their labels")
        colours = tuple((str(n), tuple(float(v) for v in c)) for n, c in meta.get("colours", []))
        return cls(aligned, tuple(meta["values"]), negatives.reshape(-1, ALIGNED, ALIGNED), meta.get("colour_source"),
                   colours, float(meta["die_threshold"]), tuple(meta.get("groups", ())), meta.get("info", {}))


@dataclass
class DiceSetReader:
    """``DiceSetReader(dice_set)(image) -> Roll`` using a taught dice set (see the module's text)."""
    dice_set: DiceSet
    palette: Palette = GENERAL
    calibration: Calibration | None = None
    work_size: int = 640
    overlap: float = 0.3
    finder: DieFinder = field(init=False)

    def __post_init__(self):
        self.finder = DieFinder(self.work_size)

    def with_calibration(self, calibration: Calibration | None) -> "DiceSetReader":
        return DiceSetReader(self.dice_set, self.palette, calibration, self.work_size, self.overlap)

    def read_boxes(self, bgr: np.ndarray, boxes):
        """For boxes in ``bgr``: (values, value confidences, die scores, is-die flags, face Labs, ink Labs)."""
        crops = [crop_square(bgr, b, CROP, CONTEXT) for b in boxes]
        feats = [face_features(c) for c in crops]
        if not feats:
            return [], [], np.zeros(0), np.zeros(0, bool), np.zeros((0, 3)), np.zeros((0, 3))
        emb = np.stack([embed_aligned(f.aligned) for f in feats])
        p, best, neg = self.dice_set.classify(emb)
        labels = self.dice_set.labels
        values = [labels[int(j)] for j in p.argmax(1)]
        conf = [float(p[k].max()) for k in range(len(p))]
        # the die region fills a good box; much smaller: a box around a die and the table; the whole
        # crop: the "face" found is the table (a box much larger than a small die)
        # and every face has a symbol: a crop without ink is table, not a die
        fits = np.array([MIN_DIE_SIDE <= f.die_side <= MAX_DIE_SIDE and f.ink_fraction >= MIN_INK for f in feats])
        is_die = (best >= self.dice_set.die_threshold) & (best > neg) & fits
        return (values, conf, best, is_die, np.array([f.face_lab for f in feats]),
                np.array([f.ink_lab for f in feats]))

    def __call__(self, image) -> Roll:
        t0 = time.perf_counter()
        bgr = as_bgr(image)
        found = self.finder(bgr)
        t1 = time.perf_counter()
        # boxes under MIN_BOX pixels are pips and specks (and unreadable as dice): not embedded
        small = [min(b[2] - b[0], b[3] - b[1]) < MIN_BOX for b in found.boxes]
        values, conf, best, is_die, face_labs, ink_labs = self.read_boxes(
            bgr, [b for b, sm in zip(found.boxes, small) if not sm])
        if any(small):
            keep = [i for i, sm in enumerate(small) if not sm]
            found = replace(found, boxes=tuple(found.boxes[i] for i in keep))
        kept: list[int] = []
        for i in np.argsort(-best, kind="stable"):
            if not is_die[i]:
                continue
            bi = found.boxes[i]
            clash = False
            for k in kept:
                bk = found.boxes[k]
                ix = max(0, min(bi[2], bk[2]) - max(bi[0], bk[0]))
                iy = max(0, min(bi[3], bk[3]) - max(bi[1], bk[1]))
                smaller = min((bi[2] - bi[0]) * (bi[3] - bi[1]), (bk[2] - bk[0]) * (bk[3] - bk[1]))
                if box_iou(bi, bk) >= self.overlap or (smaller > 0 and ix * iy / smaller >= 0.6):
                    clash = True
                    break
            if not clash:
                kept.append(int(i))
        if len(kept) >= 2:  # dice on one table have about the same size: drop the much smaller
            sides = {k: ((found.boxes[k][2] - found.boxes[k][0]) * (found.boxes[k][3] - found.boxes[k][1])) ** 0.5
                     for k in kept}
            typical = float(np.median(list(sides.values())))
            kept = [k for k in kept if sides[k] >= MIN_REL_SIDE * typical]
        kept.sort(key=lambda k: (found.boxes[k][1], found.boxes[k][0]))
        t2 = time.perf_counter()
        boxes = [found.boxes[k] for k in kept]
        if self.dice_set.colours:
            names, cconf = self.dice_set.name_colours(face_labs[kept], ink_labs[kept]) if kept else ([], [])
            src = ink_labs if self.dice_set.colour_source == "ink" else face_labs
            measured = [_lab_to_bgr(src[k]) for k in kept]
        else:
            col = ColourNamer(self.palette, self.calibration)(bgr, boxes)
            names, cconf, measured = col.names, col.confidences, col.measured_bgr
        dice = tuple(Die(tuple(int(v) for v in found.boxes[k]), values[k], conf[k], names[j], float(cconf[j]),
                         tuple(int(v) for v in measured[j]), float(best[k]))
                     for j, k in enumerate(kept))
        t3 = time.perf_counter()
        return Roll(bgr.shape[1], bgr.shape[0], dice, found.elapsed_ms, (t2 - t1) * 1000, (t3 - t2) * 1000,
                    (t3 - t0) * 1000, len(found.boxes))

    def calibrate(self, image) -> Calibration:
        """Light calibration against the palette (used when the dice set has no taught colours)."""
        from .colour import calibrate
        roll = self.with_calibration(None)(image)
        if not roll.dice:
            raise ValueError("no dice found in the calibration photo")
        return calibrate([d.colour_bgr for d in roll.dice], self.palette)


def reader_for(path: str | Path, palette: Palette = GENERAL, calibration: Calibration | None = None,
               work_size: int = 640) -> DiceSetReader:
    """The reader of a stored dice set (``FileNotFoundError`` or ``ValueError`` with the reason)."""
    return DiceSetReader(DiceSet.load(path), palette, calibration, work_size)
