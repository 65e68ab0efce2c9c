"""8-bit copies of the shipped readers for the settled tier (train extra: onnx).

    python -m vision.training.quantize embed [--scenes 20] [--seed 20261206]
    python -m vision.training.quantize readers [--scenes 120] [--seed 20261206]

``embed`` writes ``models/face_embed_int8.onnx`` from ``models/face_embed.onnx``. A taught set's
settled reading embeds an unsure die up to fifteen times more (quarter turns, the ink-contrast
view, its top face cut out square: ``vision.dice_set.DiceSetReader``), and those embeddings
were most of its time. The float model stays the one that teaches and makes each box's first
reading, so a dice set taught before reads with it as it did, and which boxes are dice does not
depend on the copy (``vision.embedding.view_embedder``). Calibration: the crops the reader
embeds as further views (box crops in their quarter turns, ink-contrast views) of 2-D scenes of
the seen special designs and of pip dice (``vision.training.special_dice``,
``vision.training.synth``).

``readers`` writes ``models/dice_face_int8.onnx`` and ``models/dice_face_big_int8.onnx`` from the
pip readers, which ``vision.read.load_session`` then loads in their place (the float files stay:
training fine-tunes them, ``--init``, and they are what the copies are made from).
Calibration: the crops each reader reads while the settled tier (``vision.pipeline.DiceReader``)
reads seeded 2-D scenes of pip dice, recorded as the readers receive them.

How: onnxruntime's static quantization, weights int8 per output channel, activations uint8 per
tensor from their min-max over the calibration inputs, quantize/dequantize pairs; the first
convolution (on the standardised pixels) and the fully connected head stay in float, where 8
bits moved the outputs most. About a third of the time a crop on one core. None of the renders
or photos the benchmarks read is calibrated on; deterministic for a seed (the written files are
the same to the byte). A copy's metadata keeps its model's and adds ``quantized_from``: the
float embedding's ``model_id``, or a reader file's ``vision.read.file_id``, checked before a copy
is used. Figures: ``models/README_face_embed.md`` and ``models/README.md``, "8-bit copies".
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

from ..embedding import EMBED_MODEL, FaceEmbedder, quarter_turns
from ..face_colour import ink_contrast_view
from ..read import BIG_MODEL, DEFAULT_MODEL, eight_bit_path, file_id, load_session, standardise


def calibration_crops(embedder: FaceEmbedder, scenes: int, seed: int) -> np.ndarray:
    """(n, size, size, 3) uint8 crops as the taught reader embeds them: each labelled die's box
    crop in its four quarter turns, and its ink-contrast view, from ``scenes`` 2-D scenes of each
    seen special design and ``scenes`` of pip dice."""
    from .special_dice import SEEN_DESIGNS, render_special_scene
    from .synth import render_scene

    rng = np.random.default_rng(seed)
    crops = []
    for design in SEEN_DESIGNS:
        for _ in range(scenes):
            scene = render_special_scene(rng, design)
            crops.append(embedder.crops(scene.image, [d.box for d in scene.dice]))
    for _ in range(scenes):
        scene = render_scene(rng)
        crops.append(embedder.crops(scene.image, [d.box for d in scene.dice]))
    boxes = np.concatenate([c for c in crops if len(c)])
    views = np.stack([ink_contrast_view(c) for c in boxes])
    return np.concatenate([quarter_turns(boxes), views])


def quantize(model: Path, out: Path, x: np.ndarray, added: dict, batch: int = 32) -> None:
    """Write ``model``'s 8-bit copy to ``out``, calibrated on the model inputs ``x`` (float32,
    standardised as the model reads them), its metadata the model's with ``added``."""
    import onnx
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                          quantize_static)
    from onnxruntime.quantization.shape_inference import quant_pre_process

    float_model = onnx.load(str(model))
    name = float_model.graph.input[0].name

    class Batches(CalibrationDataReader):
        def __init__(self):
            self.i = 0

        def get_next(self):   # whole batches only (the histogram calibrators need them)
            if self.i + batch > len(x):
                return None
            self.i += batch
            return {name: x[self.i - batch:self.i]}

    meta = {p.key: p.value for p in float_model.metadata_props}
    with tempfile.TemporaryDirectory() as tmp:
        pre = Path(tmp) / "pre.onnx"
        quant_pre_process(str(model), str(pre))
        nodes = onnx.load(str(pre)).graph.node
        first_conv = next(n.name for n in nodes if n.op_type == "Conv")
        keep_float = [first_conv] + [n.name for n in nodes if n.op_type == "Gemm"]
        quantize_static(str(pre), str(out), Batches(), quant_format=QuantFormat.QDQ,
                        per_channel=True, activation_type=QuantType.QUInt8,
                        weight_type=QuantType.QInt8, nodes_to_exclude=keep_float)
    q = onnx.load(str(out))
    del q.metadata_props[:]
    for k, v in {**meta, **added}.items():
        q.metadata_props.add(key=k, value=v)
    onnx.save(q, str(out))


def _how(calibration_inputs: int) -> str:
    return json.dumps({"format": "QDQ", "weights": "int8 per channel",
                       "activations": "uint8 per tensor, min-max",
                       "float": "the first convolution, the head",
                       "calibration_crops": int(calibration_inputs)})


def quantize_embedding(embedder: FaceEmbedder, out: Path, crops: np.ndarray) -> None:
    """The face embedding's copy: named after the float model's ``model_id``."""
    quantize(embedder.path, out, standardise(crops), {"quantized_from": embedder.model_id,
                                                      "model_id": embedder.model_id + "-int8",
                                                      "quantization": _how(len(crops))})


class Recording:
    """A face reader's session that keeps every input it is given (``inputs``)."""

    def __init__(self, session):
        self.session, self.inputs = session, []

    def __getattr__(self, name):
        return getattr(self.session, name)

    def run(self, outputs, feed):
        self.inputs.append(np.array(next(iter(feed.values())), np.float32))
        return self.session.run(outputs, feed)


def reader_inputs(scenes: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """What the settled tier's two pip readers (``DEFAULT_MODEL``, ``BIG_MODEL``, float) are given
    while it reads ``scenes`` seeded 2-D scenes of pip dice: candidates, views, further looks."""
    from ..pipeline import DiceReader
    from ..read import Vote
    from .synth import render_scene

    first = Recording(load_session(DEFAULT_MODEL, 1, eight_bit=False))
    big = Recording(load_session(BIG_MODEL, 1, "larger face reader", eight_bit=False))
    reader = DiceReader(session=Vote((first, big)), threads=1)
    rng = np.random.default_rng(seed)
    for _ in range(scenes):
        reader(render_scene(rng).image)
    return np.concatenate(first.inputs), np.concatenate(big.inputs)


def per_crop_ms(embedder: FaceEmbedder, crops: np.ndarray, batch: int = 8) -> float:
    """Median wall-clock ms a crop over batches of ``batch`` (about an unsure die's views)."""
    import time
    embedder(crops[:batch])
    times = []
    for i in range(0, len(crops) - batch + 1, batch):
        t0 = time.perf_counter()
        embedder(crops[i:i + batch])
        times.append((time.perf_counter() - t0) * 1000 / batch)
    return float(np.median(times))


def _embed(args) -> None:
    embedder = FaceEmbedder(args.model or EMBED_MODEL)
    out = args.out or eight_bit_path(embedder.path)
    crops = calibration_crops(embedder, args.scenes or 20, args.seed)
    quantize_embedding(embedder, out, crops)
    q = FaceEmbedder(out)
    cos = (embedder(crops) * q(crops)).sum(1)
    ms = [per_crop_ms(e, crops[:512]) for e in (embedder, q)]
    print(f"{out}: {out.stat().st_size / 1e6:.2f} MB, calibrated on {len(crops)} crops; "
          f"cosine to the float embedding on them: min {cos.min():.4f}, "
          f"median {np.median(cos):.5f}; one thread, batches of 8: float {ms[0]:.2f} ms a crop, "
          f"8-bit {ms[1]:.2f} ms")


def _readers(args) -> None:
    inputs = reader_inputs(args.scenes or 120, args.seed)
    for model, x in zip((DEFAULT_MODEL, BIG_MODEL), inputs):
        out = eight_bit_path(model)
        quantize(model, out, x, {"quantized_from": file_id(model),
                                 "quantization": _how(len(x))})
        a = load_session(model, 1, eight_bit=False)
        b = load_session(out, 1, eight_bit=False)
        name = a.get_inputs()[0].name
        pa, pb = (np.asarray(s.run(None, {name: x})[0]).argmax(1) for s in (a, b))
        print(f"{out}: {out.stat().st_size / 1e6:.2f} MB, calibrated on {len(x)} crops; the "
              f"same class as the float model for {np.mean(pa == pb):.2%} of them")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("which", choices=["embed", "readers"])
    ap.add_argument("--model", type=Path, default=None, help="embed: the float embedding")
    ap.add_argument("--out", type=Path, default=None, help="embed: where its copy goes")
    ap.add_argument("--scenes", type=int, default=None,
                    help="calibration scenes (embed: 20 per design and of pip dice; readers: 120)")
    ap.add_argument("--seed", type=int, default=20261206)
    args = ap.parse_args(argv)
    (_embed if args.which == "embed" else _readers)(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
