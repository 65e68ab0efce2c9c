"""Speed of the dice reader: median and p90 ms per image, one thread and all cores, peak memory,
and how many images took longer than issue 17's budget (15 ms a camera frame, 150 ms a photo).

    python bench/vision_speed.py [--images 40] [--dice 10] [--model M.onnx] [--frames]
                                 [--find detector|opencv] [--detector M.onnx] [--no-colours]
                                 [--photos DIR [DIR ...]] [--every-box] [--float]

The images are synthetic scenes (``vision.training.synth``, fixed seed) with ``--dice`` dice each,
at 640x640 and 1280x720, encoded as JPEG and decoded once up front: the time is that of
``DiceReader.__call__`` on a BGR array (find + read + colour). Each configuration runs in its own
child process so that the thread settings and the peak memory (ru_maxrss) are its own.
Each line is followed by the median time of each stage (``Roll``'s stage times). ``--frames``
times the reader as camera frames are read (the companion, ``watch``): no quarter
turns, the other boxes of a die read surely not read again, no rotated outlines; the default is a
photo's reading, outlines included. ``--no-colours`` reads as for a game whose dice do not differ
by colour (Knister, Kuh Vadis: ``DiceReader(name_colours=False)``, as the companion reads them).
``--float`` reads with the face readers' float weights instead of their shipped 8-bit copies.
``--every-box`` reads every box with both face readers of the settled tier
(``DiceReader.screen_die=None``), to time what the screen saves. ``--photos`` times real
labelled photos instead (folders of ``images/`` + ``labels.csv``, such as
``../shared/data/dice/epanemu_own``), every photo of them, read as its camera took it
(``vision.training.data.as_taken``) and at its own size: real rolls are more crowded and less
sure than the synthetic scenes, so their dice take more second views.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


# issue 17's budgets on one thread: a camera frame, a photo or settled roll (the settled tier)
FRAME_BUDGET_MS = 15.0
PHOTO_BUDGET_MS = 150.0


def real_photos(folders: list[str]) -> list:
    """Every photo of the labelled folders, decoded once and read back to the shape its camera
    took."""
    import cv2

    from vision.training.data import as_taken, load_folder

    out = []
    for folder in folders:
        for im in load_folder(folder):
            bgr = cv2.imread(str(im.path), cv2.IMREAD_COLOR)
            if bgr is not None:
                out.append(as_taken(im, bgr)[1])
    return out


def child(size: tuple[int, int], threads: int, n_images: int, n_dice: int, model: str | None,
          frames: bool = False, find: str | None = None, detector: str | None = None,
          colours: bool = True, photos: list[str] | None = None,
          every_box: bool = False, eight_bit: bool = True) -> dict:
    import cv2
    import numpy as np

    from vision.pipeline import CAMERA_FRAME, DiceReader
    from vision.read import load_session, load_settled_session
    from vision.training.synth import render_scene

    cv2.setNumThreads(threads)
    rng = np.random.default_rng(7)
    # the scenes as a camera's or a phone's JPEG gives them (quality 90)
    images = real_photos(photos) if photos else \
        [cv2.imdecode(cv2.imencode(".jpg", render_scene(rng, size=size, n_dice=n_dice).image,
                                   [cv2.IMWRITE_JPEG_QUALITY, 90])[1], cv2.IMREAD_COLOR)
         for _ in range(n_images)]
    # photos: the settled tier's two face readers voted together; frames: the shipped one alone
    session = (load_session(model, threads=threads, eight_bit=eight_bit) if model
               else load_session(threads=threads, eight_bit=eight_bit) if frames
               else load_settled_session(threads=threads, eight_bit=eight_bit))
    kw = {"find_with": find} if find else {}
    kw["name_colours"] = colours
    if every_box:
        kw["screen_die"] = None
    if detector:
        kw["detector_session"] = load_session(detector, threads=threads)
    else:  # the shipped detector on the same number of threads as the face reader
        kw["threads"] = threads
    # camera frames are read as the companion reads them (companion/reader.py): no quarter turns, no
    # second reading around a sure die, no second look, no rotated outlines
    if frames:
        reader = DiceReader(session, outlines=False, **CAMERA_FRAME, **kw)
    else:
        reader = DiceReader(session, **kw)
    for im in images[:3]:  # warm-up
        reader(im)
    times, found, stages = [], [], []
    for im in images:
        t0 = time.perf_counter()
        roll = reader(im)
        times.append((time.perf_counter() - t0) * 1000)
        found.append(len(roll.dice))
        stages.append((roll.find_ms, roll.read_ms, roll.colour_ms, roll.candidates))
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    sizes = sorted({f"{im.shape[1]}x{im.shape[0]}" for im in images})
    return {"size": ",".join(sizes) if photos else f"{size[1]}x{size[0]}", "threads": threads,
            "images": len(images),
            "median_ms": float(np.median(times)), "p90_ms": float(np.percentile(times, 90)),
            "max_ms": float(np.max(times)),
            "over_budget": int(sum(t > (FRAME_BUDGET_MS if frames else PHOTO_BUDGET_MS)
                                   for t in times)),
            "mean_dice_found": float(np.mean(found)), "peak_mb": peak_mb,
            "stage_median_ms": [float(v) for v in np.median(np.array(stages), 0)[:3]],
            "boxes_read": float(np.median(np.array(stages)[:, 3]))}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--images", type=int, default=40)
    ap.add_argument("--dice", type=int, default=10)
    ap.add_argument("--model", default=None)
    ap.add_argument("--frames", action="store_true", help="read as camera frames are read")
    ap.add_argument("--find", choices=["opencv", "detector"], default=None,
                    help="how dice are found (default: the reader's default)")
    ap.add_argument("--detector", default=None,
                    help="another detector model (with --find detector)")
    ap.add_argument("--no-colours", action="store_true",
                    help="name no colours, as for Knister's and Kuh Vadis' dice")
    ap.add_argument("--photos", nargs="+", default=None, metavar="DIR",
                    help="time these folders of real labelled photos instead of synthetic scenes")
    ap.add_argument("--every-box", action="store_true",
                    help="photos: both face readers read every box (DiceReader.screen_die=None), "
                         "to time what leaving the first reader's no-dice to it saves")
    ap.add_argument("--float", action="store_true",
                    help="the face readers' float weights, not their shipped 8-bit copies "
                         "(vision.read.load_session), to compare them")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        h, w, threads = (int(v) for v in args.child.split(","))
        print(json.dumps(child((h, w), threads, args.images, args.dice, args.model, args.frames,
                               args.find, args.detector, not args.no_colours, args.photos,
                               args.every_box, not args.float)))
        return 0
    cores = os.cpu_count() or 1
    what = (f"real photos of {', '.join(args.photos)}" if args.photos else
            f"{args.images} synthetic images per size, {args.dice} dice each")
    print(f"{what}, {cores} cores, read as {'camera frames' if args.frames else 'photos'}"
          f"{', no colours named' if args.no_colours else ''}"
          f"{', every box read by both readers' if args.every_box else ''}"
          f"{', float face readers' if args.float else ''}")
    for h, w in ((0, 0),) if args.photos else ((640, 640), (720, 1280)):
        for threads in (1, cores):
            cmd = [sys.executable, __file__, "--child", f"{h},{w},{threads}",
                   "--images", str(args.images),
                   "--dice", str(args.dice)] + (["--model", args.model] if args.model else []) + \
                (["--frames"] if args.frames else []) + \
                (["--find", args.find] if args.find else []) + \
                (["--detector", args.detector] if args.detector else []) + \
                (["--no-colours"] if args.no_colours else []) + \
                (["--every-box"] if args.every_box else []) + \
                (["--float"] if args.float else []) + \
                (["--photos", *args.photos] if args.photos else [])
            out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
            r = json.loads(out.strip().splitlines()[-1])
            if args.photos:
                print(f"{r['images']} photos ({r['size']})")
            held = " (the decoded photos held included)" if args.photos else ""
            print(f"{'photos' if args.photos else r['size']:>9}  threads {r['threads']}: median "
                  f"{r['median_ms']:6.1f} ms  p90 {r['p90_ms']:6.1f} ms  (dice found per image "
                  f"{r['mean_dice_found']:.1f})  peak memory {r['peak_mb']:.0f} MB{held}")
            budget = FRAME_BUDGET_MS if args.frames else PHOTO_BUDGET_MS
            print(f"{'':>9}  over {budget:.0f} ms: {r['over_budget']} of {r['images']} "
                  f"(the longest {r['max_ms']:.1f} ms)")
            f, rd, c = r["stage_median_ms"]
            print(f"{'':>9}  stages (medians): find {f:.1f} ms, read {rd:.1f} ms "
                  f"({r['boxes_read']:.0f} boxes), colour {c:.1f} ms, the rest (rotated "
                  f"rectangles, results) {r['median_ms'] - f - rd - c:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
