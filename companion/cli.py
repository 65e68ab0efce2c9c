"""`dice-companion`: the command line.

Each subcommand lives in its own module under `companion.commands` and exposes
`register(subparsers)`, which adds its parser and sets `func` to a callable taking the
parsed arguments and returning the exit code. Exit codes are shared by all commands:
0 ok, 1 the input breaks a rule (for `check`), 2 bad input (one line on stderr).
"""
from __future__ import annotations

import argparse
import importlib
import sys

# Subcommand modules, in the order `--help` lists them.
COMMANDS = [
    "score",
    "legal",
    "advise",
    "check",
    "play",
    "read",
    "serve",
    "watch",
    "teach",
]

EXIT_OK = 0
EXIT_RULE = 1
EXIT_BAD_INPUT = 2


class BadInput(Exception):
    """Input the command cannot use: printed as one line on stderr, exit code 2."""


def count(n: int, one: str, many: str | None = None) -> str:
    """`n` things in words: "1 problem", "2 problems", "1 die", "3 dice" (`many` where adding
    an s is wrong)."""
    return f"{n} {one if abs(n) == 1 else many or one + 's'}"


def whole_number(low: int, high: int | None = None):
    """An argparse `type` for a whole number from `low` to `high` (no upper bound when None):
    argparse then refuses a value out of range as bad input (one line, exit 2) before the
    command runs, where it would otherwise end deep in the code with a traceback (a port over
    65535 is an OverflowError in the socket module, a pool of 0 threads a ValueError)."""
    bounds = f"{low}-{high}" if high is not None else f"{low} or more"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a whole number {bounds}, "
                                             f"not {text!r}") from None
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"must be {bounds}, not {value}")
        return value

    return parse


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2, like every other bad input
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="dice-companion", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name in COMMANDS:
        importlib.import_module(f"companion.commands.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except BadInput as exc:
        print(f"dice-companion {args.command}: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":  # `python -m companion.cli`: use the importable module's classes
    from companion.cli import main as _main
    sys.exit(_main())
