"""Quantize the face embedding to 8 bits for the taught reader's further views (train extra: onnx).

    python -m vision.training.quantize_embed [--scenes 20] [--seed 20261206] \
        [--model models/face_embed.onnx] [--out models/face_embed_int8.onnx]

A taught set's settled reading embeds an unsure die up to fifteen times more (quarter turns, the
ink-contrast view, its top face cut out square: ``vision.dice_set.DiceSetReader``), and those
embeddings are most of its time. The same weights in 8 bits (onnxruntime's static quantization:
weights per output channel, activations per tensor from their min-max on the calibration crops,
quantize/dequantize pairs; the first convolution, on the standardised pixels, and the head stay in
float, where 8 bits moved the embeddings most) embed a crop in about a third of the time on one
core (``models/README_face_embed.md``, "8-bit copy for further views"). The float model
stays the one that teaches and makes each box's first reading, so a dice set taught before reads
with it as it did, and which boxes are dice does not depend on the copy.

Calibration: the crops the reader embeds (box crops, their quarter turns and ink-contrast views)
of 2-D scenes of the seen special designs and of pip dice (``vision.training.special_dice``,
``vision.training.synth``), drawn from ``--seed``; none of the photoreal renders or real photos
the benchmarks read. Deterministic for a seed (the calibration data and onnxruntime's min-max
ranges). The copy's metadata keeps the float model's and adds ``quantized_from`` (the float
model's ``model_id``), which ``vision.embedding.view_embedder`` checks before using it.
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
from ..read import model_path, standardise

OUT = model_path("face_embed_int8.onnx")   # vision.embedding.VIEW_MODEL


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


def quantize(model: Path, out: Path, crops: np.ndarray, batch: int = 32) -> None:
    import onnx
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                          quantize_static)
    from onnxruntime.quantization.shape_inference import quant_pre_process

    x = standardise(crops)

    class Batches(CalibrationDataReader):
        def __init__(self):
            self.i = 0

        def get_next(self):   # whole batches only (the histogram calibrators need them)
            if self.i + batch > len(x):
                return None
            self.i += batch
            return {"crops": x[self.i - batch:self.i]}

    float_model = onnx.load(str(model))
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
    for k, v in {**meta, "quantized_from": meta.get("model_id", "unknown"),
                 "model_id": meta.get("model_id", "unknown") + "-int8",
                 "quantization": json.dumps({"format": "QDQ", "weights": "int8 per channel",
                                             "activations": "uint8 per tensor, min-max",
                                             "float": "the first convolution, the head",
                                             "calibration_crops": int(len(crops))})}.items():
        q.metadata_props.add(key=k, value=v)
    onnx.save(q, str(out))


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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", type=Path, default=EMBED_MODEL)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--scenes", type=int, default=20, help="2-D scenes per design and of pip dice")
    ap.add_argument("--seed", type=int, default=20261206)
    args = ap.parse_args(argv)
    embedder = FaceEmbedder(args.model)
    crops = calibration_crops(embedder, args.scenes, args.seed)
    quantize(args.model, args.out, crops)
    q = FaceEmbedder(args.out)
    cos = (embedder(crops) * q(crops)).sum(1)
    ms = [per_crop_ms(e, crops[:512]) for e in (embedder, q)]
    print(f"{args.out}: {args.out.stat().st_size / 1e6:.2f} MB, calibrated on {len(crops)} crops; "
          f"cosine to the float embedding on them: min {cos.min():.4f}, "
          f"median {np.median(cos):.5f}; one thread, batches of 8: float {ms[0]:.2f} ms a crop, "
          f"8-bit {ms[1]:.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
