"""What the commands share: reading games, layouts, sheets and rolls from the command line,
and checking the files they write, each refused with a one-line message (exit 2) when it
cannot be used."""
from __future__ import annotations

import argparse
import codecs
import json
from pathlib import Path
from typing import Any

from engine.dice import Roll
from engine.errors import InvalidInput
from engine.game import Game
from engine.registry import GAMES, game_class, layout_names, load_game

from ..bodies import BadJson, parse_json
from ..cli import BadInput

MAX_JSON_BYTES = 1_000_000


def add_game_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", required=True, metavar="GAME",
                        help="one of: " + ", ".join(sorted(GAMES)))
    parser.add_argument("--layout", metavar="NAME|FILE",
                        help="a built-in layout name or a layout JSON file "
                             "(default: the sheet's own 'layout', else the game's default)")


def read_json(path: str, what: str) -> Any:
    """A JSON file, checked by `bodies.parse_json`. At most `MAX_JSON_BYTES` are read, whatever
    size the file reports (a pipe or /dev/zero reports none). The file is read as "utf-8-sig":
    a leading byte order mark, which Windows Notepad writes, is dropped (JSON text may not
    start with one). An empty file is said to be empty, not a JSON parser's "Expecting value:
    line 1 column 1"."""
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_JSON_BYTES + 1)
    except FileNotFoundError:
        raise BadInput(f"{path}: no such file") from None
    except IsADirectoryError:
        raise BadInput(f"{path}: is a folder, not a {what} file") from None
    except OSError as exc:
        raise BadInput(f"{path}: cannot read ({exc.strerror})") from None
    if len(raw) > MAX_JSON_BYTES:
        raise BadInput(f"{path}: {what} is larger than 1 MB")
    raw = raw.removeprefix(codecs.BOM_UTF8)     # "utf-8-sig"; parse_json decodes the rest
    if not raw.strip():
        raise BadInput(f"{path}: empty file, not a JSON {what}")
    try:
        return parse_json(raw)
    except BadJson as exc:
        raise BadInput(f"{path}: not a JSON {what} ({exc})") from None


def output_file(path: Path | str, what: str) -> Path:
    """A file a command is to write (`what`: "drawing", "calibration", ...), refused before
    any work when it names a folder or a folder that does not exist: the commands make no
    folders, so a mistyped path is said to be wrong rather than made (at the filesystem's
    root, say), and the message blames the output, not an input."""
    path = Path(path)
    if path.is_dir():
        raise BadInput(f"{path}: is a folder: cannot write the {what} there")
    if not path.parent.is_dir():
        raise BadInput(f"{path}: cannot write the {what}: there is no folder {path.parent}")
    return path


def layout_spec(text: str) -> str | dict:
    """A `--layout` value: a built-in layout's name, or the layout read from a .json file."""
    return read_json(text, "layout") if Path(text).suffix == ".json" else text


def load(args: argparse.Namespace, sheet_data: Any = None) -> Game:
    """The game with the layout named on the command line or, without one, in the sheet
    (a sheet naming a layout the game does not have is refused, not read on another)."""
    try:
        cls = game_class(args.game)
        layout: Any = None if args.layout is None else layout_spec(args.layout)
        if layout is None and isinstance(sheet_data, dict) and "layout" in sheet_data:
            named = sheet_data["layout"]
            if not isinstance(named, str) or named not in layout_names(cls.name):
                raise BadInput(
                    f"the sheet names the layout {json.dumps(named)}, which {cls.title} does "
                    f"not have (built in: {', '.join(layout_names(cls.name))}): give the "
                    f"layout's file with --layout FILE")
            layout = named
        return load_game(cls.name, layout)
    except InvalidInput as exc:
        raise BadInput(str(exc)) from None


def load_sheet(game: Game, data: Any, path: str):
    try:
        return game.sheet_from_json(data)
    except InvalidInput as exc:
        raise BadInput(f"{path}: {exc}") from None


def game_and_sheet(args: argparse.Namespace, path: str | None):
    """The game and the sheet read from `path` (a new sheet when there is no path)."""
    data = read_json(path, "sheet") if path else None
    game = load(args, data)
    return game, (load_sheet(game, data, path) if path else game.new_sheet())


def parse_roll(game: Game, text: str) -> Roll:
    try:
        roll = game.parse_roll(text)
    except InvalidInput as exc:
        raise BadInput(f"malformed roll '{text}': {exc}") from None
    problem = game.roll_problem(roll)
    if problem:
        raise BadInput(f"roll '{text}': {problem}")
    return roll


def print_json(data: Any) -> None:
    print(json.dumps(data, ensure_ascii=False))
