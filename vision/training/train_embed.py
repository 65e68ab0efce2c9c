"""Train the face embedding for teaching and export it to ONNX (train extra: torch, onnx, tqdm).

    python -m vision.training.train_embed --device cuda --workers 16 --max-seconds 285 \
        --out models/face_embed.onnx      # GPU (H200, 16 cores): ~3 min
    python -m vision.training.train_embed --device cpu --preset cpu --threads 2 --max-seconds 2300 \
        --out models/face_embed.onnx      # 2 CPU cores: <= 40 min, a much weaker model

The embedding maps the reader's crop of a die to a unit vector such that crops of one face of one
design lie together whatever the rotation, light, colours and table, and different faces apart;
teaching (``vision.teach``) keeps a few examples per face as prototypes. The data (procedural
designs, the seen special designs, real pip dice, "not a die"; the held-out designs it cannot
produce), the loss and the net: ``vision/training/embed/`` and ``models/README_face_embed.md``.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from ..read import model_path
from .embed.dataset import build_dataset, render_dataset
from .embed.fit import train
from .embed.net import export_onnx, exported_width, halve_weights

OUT = model_path("face_embed.onnx")  # where teaching loads it from (vision.embedding.EMBED_MODEL)
PRESETS = {  # designs, renders per face, real crops per die, not-a-die crops, steps, batch
    "gpu": dict(designs=10000, per_face=5, real_per_die=10, not_die=15000, steps=6000, batch=1024),
    "cpu": dict(designs=1200, per_face=5, real_per_die=4, not_die=3000, steps=1500, batch=96),
    "tiny": dict(designs=40, per_face=3, real_per_die=1, not_die=100, steps=50, batch=32),
}


def main(argv=None) -> int:
    from .data import default_data_root

    ap = argparse.ArgumentParser(prog="python -m vision.training.train_embed",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--preset", choices=sorted(PRESETS), default=None,
                    help="sizes: gpu (default with --device cuda), cpu (2 cores, ~35 min), tiny (a "
                         "smoke test)")
    ap.add_argument("--device", default="cpu", help="cpu or cuda")
    ap.add_argument("--data", type=Path, default=default_data_root(),
                    help="folder of labelled real sets")
    ap.add_argument("--designs", type=int, default=None)
    ap.add_argument("--per-face", type=int, default=None, help="renders per face of each design")
    ap.add_argument("--real-per-die", type=int, default=None,
                    help="crops per real die (0: no real photos)")
    ap.add_argument("--seen-per-face", type=int, default=0,
                    help="extra renders per face of each seen design (special_dice.SEEN_DESIGNS), "
                         "beyond their tenth of the random designs")
    ap.add_argument("--renders", type=str, default="",
                    help="comma-separated folders of photoreal special-dice renders "
                         "(vision.training.render3d --dice kuh_vadis|the_choice): their dice join "
                         "their seen design's face classes")
    ap.add_argument("--render-per-die", type=int, default=6,
                    help="jittered crops per die of --renders")
    ap.add_argument("--not-die", type=int, default=None)
    ap.add_argument("--steps", type=int, default=None)
    ap.add_argument("--batch", type=int, default=None)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="rendering processes")
    ap.add_argument("--threads", type=int, default=None, help="torch CPU threads")
    ap.add_argument("--supcon", type=int, default=1,
                    help="1: add the in-batch supervised contrastive loss "
                    "over whole designs (default); 0: CosFace only")
    ap.add_argument("--max-seconds", type=float, default=None,
                    help="wall-time budget of the whole run: fewer steps when the machine is "
                         "slower (the steps done are in the metadata; --steps N without it "
                         "reproduces a run)")
    ap.add_argument("--cache", type=Path, default=None,
                    help="npz to reuse/store the rendered crops")
    ap.add_argument("--build-only", action="store_true",
                    help="render the crops into --cache and stop (several trainings can then share "
                         "them)")
    ap.add_argument("--init", type=Path, default=None,
                    help="fine-tune this exported embedding (e.g. models/face_embed.onnx) instead "
                         "of starting afresh")
    ap.add_argument("--width", type=float, default=None,
                    help="channel multiplier of the net (default 1.0, or --init's; the shipped "
                         "model: 2.0; cost per die ~ width squared)")
    ap.add_argument("--half-weights", action="store_true",
                    help="store the weights as float16 (half the file; the net computes in "
                         "float32)")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    if args.width is None:
        args.width = exported_width(args.init) if args.init else 1.0
    preset = PRESETS[args.preset or ("gpu" if args.device.startswith("cuda") else "cpu")]
    cfg = {k: (getattr(args, k) if getattr(args, k) is not None else v) for k, v in preset.items()}
    t0 = time.time()
    if args.cache and args.cache.is_file():
        z = np.load(args.cache)
        X, Y, n_classes, info = z["X"], z["Y"], int(z["n_classes"]), json.loads(str(z["info"]))
    else:
        X, Y, n_classes, info = build_dataset(cfg["designs"], cfg["per_face"], args.data,
                                              cfg["real_per_die"], cfg["not_die"], args.seed,
                                              args.workers, seen_per_face=args.seen_per_face)
        if args.cache:
            args.cache.parent.mkdir(parents=True, exist_ok=True)
            np.savez(args.cache, X=X, Y=Y, n_classes=n_classes, info=json.dumps(info))
    renders = [Path(f) for f in args.renders.split(",") if f]
    if renders and not args.build_only:   # not cached: the renders are made apart
        Xr, Yr, rinfo = render_dataset(renders, args.render_per_die, args.seed)
        X, Y, info = np.concatenate([X, Xr]), np.concatenate([Y, Yr]), {**info, **rinfo}
    t_data = time.time() - t0
    if args.build_only:
        if not args.cache:
            ap.error("--build-only needs --cache")
        print(f"dataset: {len(Y)} crops of {n_classes} classes in {t_data:.0f} s, stored in "
              f"{args.cache}", file=sys.stderr)
        return 0
    print(f"dataset: {len(Y)} crops of {n_classes} classes in {t_data:.0f} s: {info}",
          file=sys.stderr)
    budget = args.max_seconds - (time.time() - t0) - 20 if args.max_seconds else None
    net, not_die, stats = train(X, Y, n_classes, cfg["steps"], cfg["batch"], args.seed, args.device,
                                threads=args.threads, lr=args.lr, budget_s=budget, init=args.init,
                                width=args.width,
                                episodes=(info["designs"], info["renders_per_face"])
                                if args.supcon and info["renders_per_face"] >= 2 else None)
    info = {**info, **stats, "supcon": bool(args.supcon), "seed": args.seed, "steps": cfg["steps"],
            "batch": cfg["batch"], "classes": n_classes, "width": args.width, "device": args.device,
            "data_s": round(t_data), "train_s": round(time.time() - t0 - t_data),
            "not_die_centre": [round(float(v), 5) for v in not_die]}
    mid = export_onnx(net, args.out, info)
    if args.half_weights:
        halve_weights(args.out, args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size // 1024} kB, {mid}) in "
          f"{time.time() - t0:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
