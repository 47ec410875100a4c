"""The one shape of a `brickyard` command: parse → run a service → print text or JSON → exit code.

A command module defines a :class:`Command` and names its instance ``COMMAND``; ``cli.py``
lists each command word with that module and its one-line help, so ``brickyard --help``
lists every command without importing one (their modules import SSH, SQL and Qt services).

    class PlanCommand(Command):
        description = "Check a volume layout as gluster 10 would…"

        def add_arguments(self, p):
            p.add_argument("file", help="a topology file")

        def run(self, args) -> Outcome:
            result = plan_volume(...)
            return Outcome(0 if result.valid else 1, doc=result.to_json(), text=format_plan(result))

    COMMAND = PlanCommand()

Every command takes ``--json``. Exit codes: 0 done, 1 the thing checked failed (an invalid
layout, a failed step: ``Outcome.code``, or :class:`Refused`), 2 bad input
(:class:`UsageError`: a one-line error names it), 130 Ctrl-C. With ``--json`` stdout holds one
JSON document whatever happens; the lines for a person go to stderr.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any, Sequence


class UsageError(Exception):
    """Bad input from the user, exit code 2: one line, or for a file with several problems
    one line per problem (``problems``: the strictjson Problems, also in the JSON document)."""

    def __init__(self, message: str, problems: list | None = None):
        super().__init__(message)
        self.problems = list(problems or [])


class Refused(Exception):
    """The command could not do its work (exit 1 unless ``code`` says otherwise): ``message``
    on stderr (``line`` when the terminal should read something else) and, with --json,
    ``{"ok": false, "error": message, "exit": code, **extra}`` on stdout."""

    def __init__(self, message: str, code: int = 1, line: str | None = None, **extra: Any):
        super().__init__(message)
        self.code = code
        self.line = message if line is None else line
        self.extra = extra


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
    text = dumps_indented(doc, indent) if type(indent) is int else None
    if text is None:
        text = json.dumps(json_safe(doc), indent=indent, ensure_ascii=False, allow_nan=False, default=str)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:   # a lone surrogate from somewhere: escape it rather than fail
        text = json.dumps(json_safe(doc), indent=indent, ensure_ascii=True, allow_nan=False, default=str)
    print(text, flush=True)


def dumps_indented(doc: object, indent: int) -> str | None:
    """``json.dumps(json_safe(doc), indent=indent, ensure_ascii=False, allow_nan=False,
    default=str)``, the same text written by one walk: with an indent, json.dumps runs its
    pure-Python encoder (a generator per container, 175 ms for a 24,000-brick plan) after
    json_safe has copied the document once more. None for a document it would not write the
    same way (a circular one: json.dumps names the problem)."""
    from json.encoder import encode_basestring

    parts: list[str] = []
    add = parts.append
    step = " " * indent
    finite = math.isfinite

    def scalar(o: object) -> str | None:
        if isinstance(o, str):
            return encode_basestring(o)
        if o is None:
            return "null"
        if o is True:
            return "true"
        if o is False:
            return "false"
        if isinstance(o, int):
            return int.__repr__(o)
        if isinstance(o, float):
            return float.__repr__(o) if finite(o) else "null"
        return None

    def key_text(k: object) -> str:
        if isinstance(k, str):
            return encode_basestring(k)
        if isinstance(k, float):
            if not finite(k):
                raise ValueError("Out of range float values are not JSON compliant: " + repr(k))
            return encode_basestring(float.__repr__(k))
        if k is True or k is False or k is None:
            return {True: '"true"', False: '"false"', None: '"null"'}[k]
        if isinstance(k, int):
            return encode_basestring(int.__repr__(k))
        raise TypeError(f"keys must be str, int, float, bool or None, not {k.__class__.__name__}")

    def walk(o: object, pad: str) -> None:
        text = scalar(o)
        if text is not None:
            add(text)
        elif isinstance(o, (list, tuple)):
            if not o:
                add("[]")
                return
            inner = pad + step
            sep = "[" + inner
            for item in o:
                add(sep)
                sep = "," + inner
                if type(item) is str:
                    add(encode_basestring(item))
                else:
                    walk(item, inner)
            add(pad + "]")
        elif isinstance(o, dict):
            if not o:
                add("{}")
                return
            inner = pad + step
            sep = "{" + inner
            for k, v in o.items():
                add(sep)
                sep = "," + inner
                add(key_text(k))
                add(": ")
                if type(v) is str:
                    add(encode_basestring(v))
                else:
                    walk(v, inner)
            add(pad + "}")
        else:
            walk(str(o), pad)   # default=str

    try:
        walk(doc, "\n")
    except RecursionError:
        return None
    return "".join(parts)


class Outcome:
    """What a command did: its exit ``code``, the document ``--json`` prints (``doc``), the
    ``text`` a terminal gets on stdout (a string or lines) and ``notes`` for stderr in both
    modes. A command that wrote its output itself (a file, a stream) leaves doc and text None.
    (A plain class, not a dataclass: ``dataclasses`` costs `brickyard --help` 30 ms.)"""

    def __init__(self, code: int = 0, doc: Any = None, text: str | Sequence[str] | None = None,
                 notes: Sequence[str] = (), indent: int | None = 2):
        self.code = code
        self.doc = doc
        self.text = text
        self.notes = list(notes)
        self.indent = indent

    def __repr__(self) -> str:
        return f"Outcome(code={self.code}, doc={'…' if self.doc is not None else None}, notes={self.notes})"

    def show(self, as_json: bool) -> int:
        """Print what the outcome holds for ``--json`` or a terminal; the exit code."""
        if as_json:
            if self.doc is not None:
                emit_json(self.doc, indent=self.indent)
        elif isinstance(self.text, str):
            sys.stdout.write(self.text if self.text.endswith("\n") else self.text + "\n")
        elif self.text is not None:
            for line in self.text:
                print(line)
        sys.stdout.flush()
        for note in self.notes:
            print(note, file=sys.stderr)
        return self.code


class Command:
    """One ``brickyard WORD`` (or one action of a :class:`Group`): its arguments and its run.

    ``name`` and ``help`` come from the command list in ``cli.py`` (or the group's list), so
    they are read without importing this module; ``description`` is the longer text of
    ``brickyard WORD --help``."""

    name = ""
    help = ""
    description: str | None = None
    #: the help of the ``--json`` flag every command takes
    json_help = "print the result as JSON"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        """Add this command's arguments (``--json`` is added for every command)."""

    def run(self, args: argparse.Namespace) -> Outcome:
        """Do the work; raise UsageError for bad input, Refused when it could not be done."""
        raise NotImplementedError

    def execute(self, args: argparse.Namespace) -> int:
        """Run and print: the exit code."""
        return self.run(args).show(bool(getattr(args, "json", False)))

    def attach(self, subparsers: argparse._SubParsersAction, name: str, help: str,
               shared: Any = None) -> argparse.ArgumentParser:
        """Add this command's parser under ``name``; ``shared(parser)`` adds a group's common
        arguments first."""
        self.name, self.help = name, help
        parser = subparsers.add_parser(name, help=help, description=self.description or None)
        if shared is not None:
            shared(parser)
        self.add_arguments(parser)
        if not any("--json" in a.option_strings for a in parser._actions):
            parser.add_argument("--json", action="store_true", help=self.json_help)
        parser.set_defaults(command_object=self)
        return parser


class Group(Command):
    """A command word with actions (``brickyard history list``, ``brickyard lab up``): each
    action is a Command of its own; without one the group's help is printed (exit 2)."""

    #: (action word, its one-line help, the Command) in the order ``--help`` lists them
    actions: Sequence[tuple[str, str, Command]] = ()
    metavar = "ACTION"

    def shared_arguments(self, parser: argparse.ArgumentParser) -> None:
        """Arguments every action takes (added before the action's own)."""

    def attach(self, subparsers, name, help, shared=None):
        self.name, self.help = name, help
        parser = subparsers.add_parser(name, help=help, description=self.description or None)
        actions = parser.add_subparsers(dest=f"{name}_command", metavar=self.metavar, parser_class=type(parser))
        for word, action_help, action in self.actions:
            action.attach(actions, word, action_help, shared=self.shared_arguments)
        parser.set_defaults(command_object=self)
        self._parser = parser
        return parser

    def execute(self, args: argparse.Namespace) -> int:   # no action given
        self._parser.print_help()
        return 2
