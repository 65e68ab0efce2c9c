"""`dice-companion read IMAGE... [--game G] [--json] [--draw OUT.png]`: read dice from photos.

Each image is read on its own: one that cannot be read gives a one-line error on stderr and the
others are still read; the exit code is then 2. With several images, ``--draw OUT.png`` writes
``OUT-1.png``, ``OUT-2.png``, ... (one per image, in order).
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from companion.cli import EXIT_BAD_INPUT, EXIT_OK, BadInput, count
from companion.commands._common import output_file, read_json
from companion.commands.teach import dice_set_reader


def game_names() -> list[str]:
    """The games `--game` may name: every known game (`engine.registry.GAMES`, not imported)."""
    from engine.registry import GAMES
    return sorted(GAMES)


def palette_for(game: str | None):
    """vision's palette for a game's dice, from the dice the game declares (as a table's reader
    names them: `companion.reader.declared_palette`); without a game, everyday colour names."""
    from vision.colour import GENERAL
    if game is None:
        return GENERAL
    from companion.games import dice_spec
    from companion.reader import declared_palette
    return declared_palette(dice_spec(game))


def symbol_sides(game: str | None) -> dict:
    """face -> symbol of a game's dice as it declares them (`companion.reader.symbol_faces`:
    Kuh Vadis' cow is on the sixth face, which the pip reader reads as 6); empty without a
    game."""
    if game is None:
        return {}
    from companion.games import dice_spec
    from companion.reader import symbol_faces
    return symbol_faces(dice_spec(game)["symbol_sides"])


def as_game_faces(roll, symbol_at: dict):
    """`roll` with its faces named as the game names them (`companion.reader.game_face`), as
    a table of the game shows them, in the dice's votes too."""
    if not symbol_at:
        return roll
    from dataclasses import replace

    from companion.reader import game_face
    return replace(roll, dice=tuple(
        replace(d, value=game_face(d.value, symbol_at),
                value_votes=tuple((game_face(v, symbol_at), n) for v, n in d.value_votes))
        for d in roll.dice))


# a picture whose shorter side is under this many pixels is said to be small: a 64x48 copy of a
# sample photo gave one die of its three, and nothing said why
SMALL_PICTURE = 200


def dice_text(dice) -> str:
    """The dice read, in words: "no dice", "1 die: 3 red", "2 dice: 3 red, 5 blue"; a die
    whose face the reader was unsure of: "(check)", for the player to look at."""
    if not dice:
        return "no dice"
    named = ", ".join(f"{d.value} {d.colour}" + (" (check)" if d.check_face else "")
                      for d in dice)
    return f"{count(len(dice), 'die', 'dice')}: {named}"


def register(subparsers) -> None:
    p = subparsers.add_parser("read", help="read the dice in photos (value and colour of each die)",
                              description=__doc__.splitlines()[0])
    p.add_argument("images", nargs="+", metavar="IMAGE", help="photo files (JPEG, PNG, ...)")
    p.add_argument("--game", choices=game_names(), default=None,
                   help="name colours with this game's palette (default: everyday colour "
                        "names) and faces as it names them (Kuh Vadis' sixth face: cow)")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object per image (JSON Lines)")
    p.add_argument("--draw", metavar="OUT.png", type=Path,
                   help="write the image with the dice drawn on it")
    p.add_argument("--calibration", metavar="CAL.json", type=Path,
                   help="a stored light calibration (see --calibrate)")
    p.add_argument("--calibrate", metavar="CAL.json", type=Path,
                   help="learn the table's light from the first image and store it in CAL.json")
    p.add_argument("--model", type=Path, default=None,
                   help="face reader ONNX model, read alone (default: the two shipped ones "
                        "voted together)")
    p.add_argument("--dice-set", metavar="FILE", type=Path,
                   help="read faces with a taught dice set (see teach)")
    p.add_argument("--find", choices=["detector", "opencv"], default=None,
                   help="how dice are found: the learned detector (default) or the OpenCV finder")
    p.set_defaults(func=run)


def _draw_path(base: Path, index: int, count: int) -> Path:
    if count == 1:
        return base
    return base.with_name(f"{base.stem}-{index + 1}{base.suffix or '.png'}")


def _draw_paths(base: Path, images: list[str]) -> list[Path]:
    """The drawings' files, checked before any photo is read: OpenCV must have a writer for
    their extension (else `cv2.imwrite` raises after the dice are printed), their folder must
    exist (`output_file`), and none may be one of the photos (it would be overwritten by its
    own drawing)."""
    import cv2

    output_file(base, "drawing")
    outs = [_draw_path(base, n, len(images)) for n in range(len(images))]
    if not cv2.haveImageWriter(str(outs[0])):
        raise BadInput(f"{outs[0]}: cannot write the drawing: not an image file name "
                       f"(give e.g. out.png or out.jpg)")
    photos = {Path(p).resolve() for p in images}
    for out in outs:
        if out.resolve() in photos:
            raise BadInput(f"{out}: is one of the photos: the drawing would overwrite it")
    return outs


def _from_onnxruntime(exc: BaseException) -> bool:
    """Whether `exc` is one of onnxruntime's own errors (they derive from Exception alone, in
    its `onnxruntime.capi.onnxruntime_pybind11_state` module): a model it cannot use."""
    return type(exc).__module__.split(".")[0] == "onnxruntime"


def face_model(path: Path):
    """The face reader session of `--model`, tried once on two blank crops before any photo
    is read: a file that exists but is not a face reader (text, empty, another ONNX model
    such as the die detector) fails in onnxruntime while loading or on its first use, or
    answers in a shape that is not one score per class. Either is one line, not a traceback
    from the middle of reading the photos. A missing file stays `load_session`'s
    FileNotFoundError ("face reader model not found")."""
    import numpy as np

    from vision.read import FaceReader, load_session

    try:
        reader = FaceReader(load_session(path))
        probe = np.zeros((2, reader.size, reader.size, 3), np.uint8)
        shape = reader.read_crops(probe).shape
    except FileNotFoundError:
        raise
    except Exception as exc:    # narrowed: onnxruntime's errors, numpy's on a wrong shape
        if not (_from_onnxruntime(exc) or isinstance(exc, (ValueError, IndexError))):
            raise
        # one line, without onnxruntime's "[ONNXRuntimeError] : 7 : INVALID_PROTOBUF : "
        reason = re.sub(r"^\[ONNXRuntimeError\] : \d+ : \w+ : ", "", " ".join(str(exc).split()))
        raise BadInput(f"{path}: cannot use this model: {reason}") from None
    if shape != (2, len(reader.classes)):
        raise BadInput(f"{path}: cannot use this model: it answers {shape} for 2 crops, not "
                       f"one score for each of its {len(reader.classes)} classes")
    return reader.session


def run(args) -> int:
    import cv2

    from vision.colour import Calibration
    from vision.pipeline import BadImage, DiceReader, decode_image, read_image_bytes
    from vision.read import load_settled_session

    # the output files first: a path that cannot be written is refused before any work
    draws = _draw_paths(args.draw, args.images) if args.draw else None
    if args.calibrate:
        output_file(args.calibrate, "calibration")
    try:
        # photos are read by the settled tier: the two shipped face readers voted together,
        # unless --model names one
        session = (None if args.dice_set else face_model(args.model) if args.model
                   else load_settled_session())
    except FileNotFoundError as exc:
        raise BadInput(str(exc)) from None
    calibration = None
    if args.calibration:
        data = read_json(str(args.calibration), "calibration")   # bounded and checked
        try:
            calibration = Calibration.from_json(json.dumps(data))
        except (ValueError, KeyError, TypeError) as exc:
            raise BadInput(f"{args.calibration}: cannot use this calibration: {exc}") from None
    extra = {"find_with": args.find} if args.find else {}
    try:
        palette = palette_for(args.game)
        if session is not None:
            reader = DiceReader(session, palette=palette, calibration=calibration, **extra)
        else:
            reader = dice_set_reader(args.dice_set, palette, calibration)
    except FileNotFoundError as exc:
        raise BadInput(str(exc)) from None
    symbol_at = symbol_sides(args.game)
    status = EXIT_OK
    for n, path in enumerate(args.images):
        try:
            data = read_image_bytes(path)
            image = None  # decoded whole only where needed: the reader decodes a large JPEG reduced
            if args.calibrate and n == 0:
                image = decode_image(data)
                cal = reader.calibrate(image)
                try:
                    cal.save(args.calibrate)
                except OSError as exc:  # the calibration's fault, not the photo's
                    raise BadInput(f"{args.calibrate}: cannot write the calibration "
                                   f"({exc.strerror or exc})") from None
                reader = reader.with_calibration(cal)
                print(f"calibration stored in {args.calibrate}: gains {cal.gains}", file=sys.stderr)
            roll = as_game_faces(reader(data), symbol_at)
        except (BadImage, OSError, ValueError) as exc:
            msg = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            print(f"dice-companion read: {path}: {msg}", file=sys.stderr)
            status = EXIT_BAD_INPUT
            continue
        if args.json:
            d = {"image": str(path), **roll.to_dict()}
            print(json.dumps(d))
        else:
            print(f"{path}: {dice_text(roll.dice)} ({roll.elapsed_ms:.1f} ms)")
            if min(roll.width, roll.height) < SMALL_PICTURE:
                print(f"dice-companion read: {path}: the picture is small ({roll.width}x"
                      f"{roll.height} pixels): dice in it are easily missed; a larger photo "
                      "reads better", file=sys.stderr)
            if roll.colourless:
                print(f"dice-companion read: {path}: the picture shows no colours (black and "
                      "white, or a filter): the colours named are guesses", file=sys.stderr)
        if draws:
            out = draws[n]
            try:
                written = cv2.imwrite(
                    str(out), roll.draw(image if image is not None else decode_image(data)))
            except cv2.error:   # checked before (`_draw_paths`): a writer's own failure
                written = False
            if not written:
                print(f"dice-companion read: {out}: cannot write the drawing", file=sys.stderr)
                status = EXIT_BAD_INPUT
        sys.stdout.flush()
    return status
