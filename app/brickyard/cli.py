"""`brickyard`: headless commands over the same services the app uses.

Each subcommand lives in ``brickyard.clicmd.<name>`` with ``register(subparsers)`` that adds
its parser and sets ``func(args) -> int``. Exit codes: 0 done, 1 the thing checked failed
(an invalid layout, a failed step), 2 bad input (a one-line error names it), 130 Ctrl-C.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from . import __version__

COMMAND_MODULES = (
    "brickyard.clicmd.plan",
    "brickyard.clicmd.preflight",
    "brickyard.clicmd.provision",
    "brickyard.clicmd.teardown",
    "brickyard.clicmd.import_",
    "brickyard.clicmd.lab",
    "brickyard.clicmd.bench",
    "brickyard.clicmd.history",
)


class UsageError(Exception):
    """Bad input from the user: printed as one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse's own errors: one line, exit 2
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="brickyard", description="Plan, provision and benchmark GlusterFS volumes.")
    parser.add_argument("--version", action="version", version=f"brickyard {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except UsageError as exc:
        print(f"brickyard {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"brickyard {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `brickyard plan … | head`: the reader left; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    raise SystemExit(main())
