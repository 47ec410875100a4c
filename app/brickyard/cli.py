"""`brickyard`: headless commands over the same services the app uses.

Each subcommand lives in ``brickyard.clicmd.<name>`` with ``register(subparsers)`` that adds
its parser and sets ``func(args) -> int``. Exit codes: 0 done, 1 the thing checked failed
(an invalid layout, a failed step), 2 bad input (a one-line error names it), 130 Ctrl-C.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import sys
import traceback

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
    "campaign": "brickyard.clicmd.campaign",
    "decision": "brickyard.clicmd.decision",
    "probe": "brickyard.clicmd.probe",
    "report": "brickyard.clicmd.report",
}


#: commands that reach hosts or run work: their SSH and run events go to the log file (core.applog)
LOGGED_COMMANDS = frozenset({"preflight", "provision", "teardown", "import", "lab", "bench", "campaign", "probe"})


class UsageError(Exception):
    """Bad input from the user, exit code 2: one line, or for a file with several problems
    one line per problem (``problems``: the strictjson Problems, also in the JSON document)."""

    def __init__(self, message: str, problems: list | None = None):
        super().__init__(message)
        self.problems = list(problems or [])


def json_safe(value: object) -> object:
    """``value`` with every non-finite float (NaN, Infinity) as null: stdout under --json is
    always strict JSON, which has no NaN."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


def emit_json(doc: object, indent: int | None = 2) -> None:
    """Print one JSON document on stdout: strict JSON (no NaN), UTF-8, flushed. Every command
    prints its --json output through here."""
    text = json.dumps(json_safe(doc), indent=indent, ensure_ascii=False, allow_nan=False, default=str)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:   # a lone surrogate from somewhere: escape it rather than fail
        text = json.dumps(json_safe(doc), indent=indent, ensure_ascii=True, allow_nan=False, default=str)
    print(text, flush=True)


class _BadArguments(Exception):
    """argparse refused the command line (``prog: error: message``)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse's own errors: one line, exit 2
        raise _BadArguments(f"{self.prog}: error: {_clip_quoted(message)}")


def _clip_quoted(message: str) -> str:
    """argparse quotes the value it refused; a 5,000-digit one is shortened to its ends."""
    import re

    def clip(m: "re.Match[str]") -> str:
        text = m.group(1)
        return f"'{text[:12]}…{text[-8:]}' ({len(text)} characters)"
    return re.sub(r"'([^']{41,})'", clip, message)


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


def _failed(line: str, error: str, code: int, as_json: bool, problems: list | None = None,
            **extra: object) -> int:
    """A command that could not do its work: its line(s) on stderr and, with --json, one
    JSON document on stdout, so a script reading stdout always gets JSON."""
    from .core.strictjson import printable

    print("\n".join(printable(part) for part in line.split("\n")), file=sys.stderr)
    if as_json:
        doc: dict = {"ok": False, "error": "\n".join(printable(part) for part in error.split("\n")), "exit": code}
        if problems:
            doc["problems"] = [p.to_json() if hasattr(p, "to_json") else str(p) for p in problems]
        if code == 130:
            doc["interrupted"] = True
        doc.update(extra)
        emit_json(doc)
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
        if as_json:
            return _failed("brickyard: give a command (brickyard --help lists them)", "no command given", 2, True)
        parser.print_help()
        return 2
    as_json = bool(getattr(args, "json", False))
    if args.command in LOGGED_COMMANDS:
        from .core import applog

        applog.setup(f"brickyard {args.command}")
    from .core.settings import SettingsError, apply_unit_preference

    try:
        apply_unit_preference()        # MB/s or MiB/s: the user's choice, in every command
    except SettingsError as exc:
        return _failed(f"brickyard {args.command}: {exc}", str(exc), 2, as_json)
    try:
        return int(args.func(args) or 0)
    except UsageError as exc:
        return _failed(f"brickyard {args.command}: {exc}", str(exc), 2, as_json, exc.problems)
    except KeyboardInterrupt:
        return _failed(f"brickyard {args.command}: interrupted", "interrupted (Ctrl-C)", 130, as_json)
    except BrokenPipeError:  # `brickyard plan … | head`: the reader left; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except Exception as exc:  # noqa: BLE001 - a bug: the traceback for the report, JSON for the script
        traceback.print_exc()
        import logging

        logging.getLogger("brickyard").exception("brickyard %s: internal error", args.command)
        return _failed(f"brickyard {args.command}: internal error (a bug in Brickyard, please report it): "
                       f"{type(exc).__name__}: {exc}", f"internal error: {type(exc).__name__}: {exc}", 1, as_json,
                       internal_error=True)


if __name__ == "__main__":
    raise SystemExit(main())
