"""`brickyard`: headless commands over the same services the app uses.

Each command lives in ``brickyard.clicmd.<module>`` as a ``COMMAND`` in the one command shape
(``clicmd.command``: parse → run a service → print text or JSON → exit code). ``COMMANDS``
below names each command word's module and one-line help: ``brickyard --help`` lists them
without importing any, and a command line imports only the module of its command. Exit
codes: 0 done, 1 the thing checked failed (an invalid layout, a failed step), 2 bad input
(a one-line error names it), 130 Ctrl-C.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import NamedTuple

from . import __version__
from .clicmd.command import Refused, UsageError, emit_json, json_safe

__all__ = ["COMMANDS", "Refused", "UsageError", "build_parser", "emit_json", "json_safe", "main"]


class CommandEntry(NamedTuple):
    """What the CLI knows about a command word before importing its module."""

    module: str
    help: str
    #: its SSH and run events go to the log file (core.applog): commands that reach hosts or run work
    logged: bool = False


COMMANDS: dict[str, CommandEntry] = {
    "plan": CommandEntry("brickyard.clicmd.plan", "check a volume layout the way gluster would"),
    "preflight": CommandEntry("brickyard.clicmd.preflight", "check every host before provisioning", True),
    "provision": CommandEntry("brickyard.clicmd.provision", "create a planned volume on its hosts over SSH", True),
    "teardown": CommandEntry("brickyard.clicmd.teardown",
                             "unmount, stop and delete a volume; remove only what Brickyard created", True),
    "change": CommandEntry("brickyard.clicmd.change", "change a live volume to what the drawing shows: expand, "
                                                      "rebalance, shrink, replace, raise redundancy", True),
    "import": CommandEntry("brickyard.clicmd.import_", "build a topology file from a running cluster", True),
    "lab": CommandEntry("brickyard.clicmd.lab",
                        "a throw-away gluster cluster in network namespaces on this machine (root)", True),
    "bench": CommandEntry("brickyard.clicmd.bench", "run a benchmark workload over SSH or locally", True),
    "history": CommandEntry("brickyard.clicmd.history",
                            "list, show, compare, export and import stored benchmark runs"),
    "campaign": CommandEntry("brickyard.clicmd.campaign",
                             "run one workload set on several layouts of the same bricks, resumably", True),
    "decision": CommandEntry("brickyard.clicmd.decision",
                             "the decision table (capacity, failures, measured speed) of a campaign or of stored runs"),
    "probe": CommandEntry("brickyard.clicmd.probe", "measure brick filesystems and client→server TCP before "
                                                    "provisioning (calibrates the throughput model)", True),
    "report": CommandEntry("brickyard.clicmd.report",
                           "export a PDF or HTML report of a campaign, stored runs or a planned volume"),
}


class _BadArguments(Exception):
    """argparse refused the command line (``prog: error: message``)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse's own errors: one line, exit 2
        raise _BadArguments(f"{self.prog}: error: {_clip_quoted(message)}")

    def _get_formatter(self) -> argparse.HelpFormatter:
        # argparse makes a formatter for every add_argument (to check the metavar); without a
        # width it imports shutil (with bz2, lzma and fnmatch) for get_terminal_size: ~10 ms
        # of every command's start. The same width, found the way shutil finds it.
        return self.formatter_class(prog=self.prog, width=terminal_columns() - 2)


def terminal_columns() -> int:
    """``shutil.get_terminal_size().columns``: $COLUMNS, else the terminal on stdout, else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
        columns = columns or 80
    return columns


def _clip_quoted(message: str) -> str:
    """argparse quotes the value it refused; a 5,000-digit one is shortened to its ends."""
    import re

    def clip(m: "re.Match[str]") -> str:
        text = m.group(1)
        return f"'{text[:12]}…{text[-8:]}' ({len(text)} characters)"
    return re.sub(r"'([^']{41,})'", clip, message)


def build_parser(command: str | None = None, load_all: bool = False) -> argparse.ArgumentParser:
    """The parser of ``brickyard``: every command word with its one-line help, and the full
    parser (its module imported) only for ``command``, or for every command with
    ``load_all``. Listing the commands imports none of them."""
    parser = _Parser(prog="brickyard", description="Plan, provision and benchmark GlusterFS volumes.")
    parser.add_argument("--version", action="version", version=f"brickyard {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for word, entry in COMMANDS.items():
        if load_all or word == command:
            importlib.import_module(entry.module).COMMAND.attach(sub, word, entry.help)
        else:   # listed for --help; never parsed into (the command word loads the real one)
            sub.add_parser(word, help=entry.help, add_help=False)
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
        parser = build_parser(command)
        args = parser.parse_args(argv)
    except _BadArguments as exc:
        return _failed(str(exc), str(exc).partition(": error: ")[2], 2, as_json)
    except KeyboardInterrupt:
        return _failed("brickyard: interrupted", "interrupted (Ctrl-C)", 130, as_json)
    command_object = getattr(args, "command_object", None)
    if command_object is None:
        if as_json:
            return _failed("brickyard: give a command (brickyard --help lists them)", "no command given", 2, True)
        parser.print_help()
        return 2
    as_json = bool(getattr(args, "json", False))
    if COMMANDS[args.command].logged:
        from .core import applog

        applog.setup(f"brickyard {args.command}")
    from .core.settings import SettingsError, apply_unit_preference

    try:
        apply_unit_preference()        # MB/s or MiB/s: the user's choice, in every command
    except SettingsError as exc:
        return _failed(f"brickyard {args.command}: {exc}", str(exc), 2, as_json)
    try:
        return command_object.execute(args)
    except UsageError as exc:
        return _failed(f"brickyard {args.command}: {exc}", str(exc), 2, as_json, exc.problems)
    except Refused as exc:
        return _failed(exc.line, str(exc), exc.code, as_json, **exc.extra)
    except KeyboardInterrupt:
        return _failed(f"brickyard {args.command}: interrupted", "interrupted (Ctrl-C)", 130, as_json)
    except BrokenPipeError:  # `brickyard plan … | head`: the reader left; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except Exception as exc:  # noqa: BLE001 - a bug: the traceback for the report, JSON for the script
        import logging
        import traceback

        traceback.print_exc()

        logging.getLogger("brickyard").exception("brickyard %s: internal error", args.command)
        return _failed(f"brickyard {args.command}: internal error (a bug in Brickyard, please report it): "
                       f"{type(exc).__name__}: {exc}", f"internal error: {type(exc).__name__}: {exc}", 1, as_json,
                       internal_error=True)


if __name__ == "__main__":
    raise SystemExit(main())
