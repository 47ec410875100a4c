"""`brickyard`: headless commands over the same services the app uses.

Each subcommand lives in ``brickyard.clicmd.<name>`` with ``register(subparsers)`` that adds
its parser and sets ``func(args) -> int``. Exit codes: 0 done, 1 the thing checked failed
(an invalid layout, a failed step), 2 bad input (a one-line error names it), 130 Ctrl-C.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys

from . import __version__

# command word -> the module that registers it. Only the module of the command being run is
# imported (SSH and SQL libraries cost a second or more at start-up); --help imports them all.
COMMAND_MODULES = {
    "plan": "brickyard.clicmd.plan",
    "preflight": "brickyard.clicmd.preflight",
    "provision": "brickyard.clicmd.provision",
    "teardown": "brickyard.clicmd.teardown",
    "import": "brickyard.clicmd.import_",
    "lab": "brickyard.clicmd.lab",
    "bench": "brickyard.clicmd.bench",
    "history": "brickyard.clicmd.history",
}


class UsageError(Exception):
    """Bad input from the user: printed as one line, exit code 2."""


class _BadArguments(Exception):
    """argparse refused the command line (``prog: error: message``)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse's own errors: one line, exit 2
        raise _BadArguments(f"{self.prog}: error: {message}")


def build_parser(command: str | None = None, version_only: bool = False) -> argparse.ArgumentParser:
    """The parser for every command, only for ``command`` when it names one, or for none
    when all that is asked is ``--version``."""
    parser = _Parser(prog="brickyard", description="Plan, provision and benchmark GlusterFS volumes.")
    parser.add_argument("--version", action="version", version=f"brickyard {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    if version_only:
        wanted = []
    elif command in COMMAND_MODULES:
        wanted = [COMMAND_MODULES[command]]
    else:
        wanted = list(COMMAND_MODULES.values())
    for name in wanted:
        importlib.import_module(name).register(sub)
    return parser


def _command_word(argv: list[str]) -> str | None:
    """The first word that is not an option: the command (options come after it)."""
    return next((word for word in argv if not word.startswith("-")), None)


def _failed(line: str, error: str, code: int, as_json: bool) -> int:
    """A command that could not do its work: one line on stderr and, with --json, one JSON
    document on stdout, so a script reading stdout always gets JSON."""
    print(line, file=sys.stderr)
    if as_json:
        doc = {"ok": False, "error": error, "exit": code}
        if code == 130:
            doc["interrupted"] = True
        print(json.dumps(doc, indent=2), flush=True)
    return code


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command = _command_word(argv)
    as_json = "--json" in argv
    try:
        parser = build_parser(command, version_only=command is None and "--version" in argv)
        args = parser.parse_args(argv)
    except _BadArguments as exc:
        return _failed(str(exc), str(exc).partition(": error: ")[2], 2, as_json)
    except KeyboardInterrupt:
        return _failed("brickyard: interrupted", "interrupted (Ctrl-C)", 130, as_json)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    as_json = bool(getattr(args, "json", False))
    try:
        return int(args.func(args) or 0)
    except UsageError as exc:
        return _failed(f"brickyard {args.command}: {exc}", str(exc), 2, as_json)
    except KeyboardInterrupt:
        return _failed(f"brickyard {args.command}: interrupted", "interrupted (Ctrl-C)", 130, as_json)
    except BrokenPipeError:  # `brickyard plan … | head`: the reader left; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    raise SystemExit(main())
