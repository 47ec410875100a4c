"""The lower half of ``strictjson``: reading a file a user hands Brickyard (regular files only,
bounded, UTF-8) and parsing it as the JSON grammar and nothing more (``parse``, ``scan``), each
refusal a ``Problem`` with its field path; plus the paths (``join``), the words for a value's
type (``kind``) and ``printable``. Callers use it through ``strictjson``, which names all of
this and adds the schema reader (``Reader``, ``Record``) and ``load``."""

from __future__ import annotations

import json
import math
import os
import re
import stat
import sys
import unicodedata
from dataclasses import dataclass
from itertools import chain
from typing import Any, Iterable

from .units import format_bytes

INT_MIN = -(2**63)
INT_MAX = 2**63 - 1           # what SQLite, PostgreSQL BIGINT and gluster's own counters hold
MAX_DEPTH = 64                # no Brickyard file nests deeper than a dozen levels
MiB = 2**20


class _Invalid:
    """A value the parser refused (its problem is already recorded)."""

    _instance: "_Invalid | None" = None

    def __new__(cls) -> "_Invalid":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "<invalid>"


INVALID: Any = _Invalid()


def printable(text: object) -> str:
    """``text`` with control characters, lone surrogates and line separators escaped
    (``\\n``, ``\\x00``, ``\\ud800``), so it prints on one line and encodes as UTF-8."""
    s = str(text)
    if s.isprintable():
        return s
    out = []
    for ch in s:
        if ch.isprintable() or ch == " ":
            out.append(ch)
        elif unicodedata.category(ch) in ("Cc", "Cs", "Zl", "Zp", "Cf", "Co", "Cn"):
            out.append(json.dumps(ch)[1:-1] if ch not in "\t\n\r" else {"\t": "\\t", "\n": "\\n", "\r": "\\r"}[ch])
        else:
            out.append(ch)
    return "".join(out)


@dataclass(frozen=True)
class Problem:
    path: str
    message: str
    line: int | None = None

    def __str__(self) -> str:
        where = [f"line {self.line}"] if self.line is not None else []
        if self.path:
            where.append(self.path)
        return printable(": ".join([*where, self.message]))

    def to_json(self) -> dict[str, Any]:
        return {"path": printable(self.path), "message": printable(self.message), "line": self.line}


class JsonFileError(ValueError):
    """A file (or parsed document) that cannot be loaded; ``problems`` lists every one found.
    ``str()`` names them all, one per line after the first."""

    errno: int | None = None   # set when the OS refused to read the file (ENOENT, EACCES, …)

    def __init__(self, source: str, problems: list[Problem]):
        self.source = printable(source)
        self.problems = list(problems) or [Problem("", "unknown problem")]
        if len(self.problems) == 1:
            text = f"{self.source}: {self.problems[0]}"
        else:
            text = f"{self.source}: {len(self.problems)} problems:\n" + "\n".join(f"  {p}" for p in self.problems)
        super().__init__(text)

    def report(self) -> str:
        """Every problem on its own line, each led by the file name."""
        return "\n".join(f"{self.source}: {p}" for p in self.problems)


# ---- paths ------------------------------------------------------------------------------

_QUOTED_CHARS = set(' []"\'')


def join(path: str, key: str | int) -> str:
    """``path`` + ``[3]`` or ``.key``; a key with unusual characters is quoted as JSON
    (``options["a\\nb"]``), so a path is always one unambiguous line."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    if not key or not key.isprintable() or any(ch in _QUOTED_CHARS for ch in key):
        return f"{path}[{json.dumps(key, ensure_ascii=False)}]"
    return f"{path}.{key}" if path else key


def kind(value: Any) -> str:
    if value is None:
        return "null"
    if value is INVALID:
        return "an invalid value"
    for cls, name in ((bool, "true/false"), (int, "an integer"), (float, "a number"), (str, "a string"),
                      (list, "an array"), (dict, "an object")):   # subclasses too: the reader's own object type
        if isinstance(value, cls):
            return name
    return type(value).__name__


# ---- reading a file -----------------------------------------------------------------------

def read_text(path: str | os.PathLike, *, limit: int, what: str = "file") -> str:
    """The UTF-8 text of a regular file of at most ``limit`` bytes, or JsonFileError."""
    raw = read_bytes(path, limit=limit, what=what)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise JsonFileError(str(path), [Problem("", f"not UTF-8 text (byte {exc.start})")]) from None


def read_bytes(path: str | os.PathLike, *, limit: int, what: str = "file") -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes, or JsonFileError (a file
    that is missing or unreadable too: ``exc.problems[0]`` says which; ``exc.errno`` is the
    OS error's number, or None when the file itself is what Brickyard refuses)."""
    source = str(path)

    def fail(message: str) -> JsonFileError:
        return JsonFileError(source, [Problem("", message)])

    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer; a regular file ignores it
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except (UnicodeEncodeError, ValueError):      # a lone surrogate or a NUL in the name
        raise fail("cannot read: the file name is not valid text (a NUL or a lone surrogate)") from None
    except OSError as exc:
        err = fail(f"cannot read: {exc.strerror or exc}")
        err.errno = exc.errno
        raise err from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise fail(f"is a directory, not a {what}")
        if not stat.S_ISREG(st.st_mode):
            raise fail(f"is not a regular file (a device, FIFO or socket); Brickyard reads a {what} "
                       "only from a regular file")
        if st.st_size > limit:
            raise fail(f"is {_size(st.st_size)}; Brickyard reads a {what} of at most {_size(limit)}")
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:   # it grew while we read
                raise fail(f"is larger than {_size(limit)}; Brickyard reads a {what} of at most {_size(limit)}")
    except OSError as exc:
        err = fail(f"cannot read: {exc.strerror or exc}")
        err.errno = exc.errno
        raise err from None
    finally:
        os.close(fd)
    return b"".join(chunks)


def _size(n: int) -> str:
    return format_bytes(n, binary=True, digits=1) if n >= 1024 else f"{n} bytes"


# ---- parsing ------------------------------------------------------------------------------

class _Object(dict):
    """A parsed JSON object that remembers the keys it saw twice."""

    __slots__ = ("duplicates",)


class _Bad:
    """A number or constant the parser refused; ``scan`` turns it into a problem."""

    __slots__ = ("why",)

    def __init__(self, why: str):
        self.why = why


def _pairs(pairs: list[tuple[str, Any]]) -> _Object:
    obj = _Object(pairs)          # the last of a key given twice wins, as in json.loads
    if len(obj) == len(pairs):
        obj.duplicates = ()
    else:
        seen: set[str] = set()
        obj.duplicates = [key for key, _ in pairs if key in seen or seen.add(key)]
    return obj


def _parse_int(text: str) -> Any:
    digits = len(text) - text.startswith("-")
    if digits > 19:   # beyond 64 bits for sure; int() of 4,301+ digits would even raise
        return _Bad(f"an integer of {digits} digits is out of range (at most {INT_MAX})")
    return int(text)


# what ``scan`` refuses in a string can only come into JSON text as one of these escapes (NUL,
# a surrogate); a raw control character is a syntax error, and UTF-8 text holds no surrogate
_SUSPECT_ESCAPE = re.compile(r"\\u(?:0000|[dD][89a-fA-F])")


def _parse_float(text: str) -> Any:
    value = float(text)
    if not math.isfinite(value):
        return _Bad(f"the number {text[:40]}{'…' if len(text) > 40 else ''} is too large for a double")
    return value


def _parse_constant(name: str) -> Any:
    return _Bad(f"{name} is not a number JSON allows (write a finite number)")


def parse(text: str, *, max_depth: int = MAX_DEPTH) -> tuple[Any, list[Problem]]:
    """Parse ``text``; the data (refused values replaced by INVALID) and every problem.
    A syntax error is one problem with its line, and the data is None.

    The parser's hooks see every key given twice and every refused number, and the text
    shows whether a string can hold what ``scan`` refuses; only then (or when the data nests
    too deeply) does ``scan`` walk every value to name the problems with their paths."""
    suspect: list[bool] = []

    def pairs(items: list[tuple[str, Any]]) -> _Object:
        obj = _Object(items)
        if len(obj) == len(items):
            obj.duplicates = ()
            return obj
        suspect.append(True)
        return _pairs(items)

    def parse_int(text: str) -> Any:
        if len(text) < 19:      # 18 digits and a sign: always a 64-bit integer
            return int(text)
        value = _parse_int(text)
        if type(value) is _Bad or not INT_MIN <= value <= INT_MAX:
            suspect.append(True)
        return value

    def parse_float(text: str) -> Any:
        value = float(text)
        if math.isfinite(value):
            return value
        suspect.append(True)
        return _parse_float(text)

    def parse_constant(name: str) -> Any:
        suspect.append(True)
        return _parse_constant(name)

    try:
        data = json.loads(text, object_pairs_hook=pairs, parse_int=parse_int, parse_float=parse_float,
                          parse_constant=parse_constant)
    except json.JSONDecodeError as exc:
        return None, [Problem("", f"not valid JSON: {exc.msg} (column {exc.colno})", exc.lineno)]
    except RecursionError:
        return None, [Problem("", f"nested too deeply (Brickyard reads at most {max_depth} levels)")]
    if (not suspect and _SUSPECT_ESCAPE.search(text) is None and (text.isascii() or _encodes(text))
            and _depth_within(data, max_depth)):
        return data, []
    data, problems = scan(data, max_depth=max_depth)
    return data, problems


def parse_quick(text: str) -> Any:
    """``text`` parsed at nearly ``json.loads``' own speed for a reader that checks the rest
    itself, or None when ``parse`` must be asked (it names the problem). Checked here, because
    nothing after the parse can see them: keys given twice (the pairs hook compares lengths),
    ``NaN``/``Infinity`` (the constant hook; no JSON number literal parses to NaN), what the
    text's escapes can put into a string (a NUL, a lone surrogate) and a syntax error,
    integers of more than 4,300 digits or nesting beyond the interpreter's limit (each a
    ValueError or RecursionError: None, and ``parse`` says what it was).

    NOT checked: integers beyond 64 bits, numbers that overflow a double (``1e400`` is
    ``inf``) and nesting deeper than ``MAX_DEPTH``. The caller must check every number it
    keeps against ``INT_MIN``/``INT_MAX`` and ``FLOAT_MAX`` (``Record`` and ``Reader`` with
    ``numbers_unchecked`` do) and read no value it has not typed (a schema that refuses what
    it does not know reads nothing nested deeper than itself), and ask ``parse`` again on any
    problem, so that the problems named are always ``parse``'s. The number hooks and the depth
    walk ``parse`` runs were ~30 % of reading a 24,000-brick topology file."""
    refused: list[bool] = []

    def pairs(items: list[tuple[str, Any]]) -> dict:
        obj = dict(items)
        if len(obj) != len(items):
            refused.append(True)
        return obj

    def constant(name: str) -> Any:
        refused.append(True)
        return INVALID

    try:
        data = json.loads(text, object_pairs_hook=pairs, parse_constant=constant)
    except (ValueError, RecursionError):   # JSONDecodeError is a ValueError
        return None
    if refused or _SUSPECT_ESCAPE.search(text) is not None or not (text.isascii() or _encodes(text)):
        return None
    return data


FLOAT_MAX = sys.float_info.max    # the largest finite double: a parsed number beyond it is inf


_SCALARS = {str, int, float, bool, type(None), _Bad}


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _depth_within(data: Any, max_depth: int) -> bool:
    """Whether no container nests ``max_depth`` levels deep (scan's limit), level by level:
    the types of a whole level's values are taken at C speed (the 216,000 values of a
    24,000-brick file's bricks in one ``set(map(type, …))``), and the containers among them
    picked out only when the level has some."""
    level, depth = [data], 0
    while True:
        lists = [v for v in level if type(v) is list]
        dicts = [v for v in level if type(v) is not list and isinstance(v, dict)]
        if not lists and not dicts:
            return True
        if depth >= max_depth:
            return False
        values = list(chain(chain.from_iterable(lists), chain.from_iterable(map(dict.values, dicts))))
        kinds = set(map(type, values))
        if kinds <= _SCALARS or not any(issubclass(k, (list, dict)) for k in kinds):
            return True
        level, depth = values, depth + 1


def text_problem(text: str) -> str | None:
    """Why ``text`` is not text Brickyard can store or use as a file name (a NUL, a lone
    surrogate), or None."""
    if "\x00" in text:
        return "contains a NUL character"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"contains a lone surrogate ({json.dumps(text[exc.start])[1:-1]}), which is not text"
    return None


def scan(data: Any, *, max_depth: int = MAX_DEPTH) -> tuple[Any, list[Problem]]:
    """Check parsed (or hand-built) data: finite numbers, 64-bit integers, valid text in
    strings and keys, no duplicate keys, nesting at most ``max_depth``. Returns the data
    with each refused value replaced by INVALID, and the problems. Iterative: any depth."""
    problems: list[Problem] = []
    root = [data]
    # (container, key in container, value, where, depth); ``where`` is (parent's where, key),
    # made a path string only for a problem
    stack: list[tuple[Any, Any, Any, Any, int]] = [(root, 0, data, None, 0)]
    while stack:
        parent, key, value, where, depth = stack.pop()
        if isinstance(value, _Bad):
            problems.append(Problem(_path(where), value.why))
            parent[key] = INVALID
        elif isinstance(value, bool) or value is None:
            continue
        elif isinstance(value, int):
            if not INT_MIN <= value <= INT_MAX:
                problems.append(Problem(_path(where), f"integer out of range (at most {INT_MAX})"))
                parent[key] = INVALID
        elif isinstance(value, float):
            if not math.isfinite(value):
                problems.append(Problem(_path(where), f"{value} is not a number JSON allows (write a finite number)"))
                parent[key] = INVALID
        elif isinstance(value, str):
            if not value.isascii() or "\x00" in value:
                why = text_problem(value)
                if why:   # kept as it is (references to it still resolve); the load fails anyway
                    problems.append(Problem(_path(where), why))
        elif isinstance(value, (dict, list)):
            if depth >= max_depth:
                path = _path(where)
                short = path if len(path) <= 80 else path[:60] + "…"
                problems.append(Problem(short, f"nested too deeply (Brickyard reads at most {max_depth} levels)"))
                parent[key] = INVALID
                continue
            if isinstance(value, dict):
                for dup in getattr(value, "duplicates", ()):
                    problems.append(Problem(join(_path(where), dup), "appears twice in one object (which one is meant?)"))
                bad_keys = []
                for k in value:
                    why = text_problem(k) if isinstance(k, str) else "is not a string key"
                    if why:
                        path = _path(where)
                        problems.append(Problem(join(path, k) if isinstance(k, str) else path, f"key {why}"))
                        bad_keys.append(k)
                for k in bad_keys:
                    del value[k]
                items: Iterable = list(value.items())
            else:
                items = list(enumerate(value))
            for k, v in reversed(list(items)):
                stack.append((value, k, v, (where, k), depth + 1))
    problems.sort(key=lambda p: _path_order(p.path))
    return root[0], problems


def _path(where: Any) -> str:
    """The path string of a ``where`` chain ``(((None, "nodes"), 2), "name")``."""
    keys = []
    while where is not None:
        where, key = where
        keys.append(key)
    path = ""
    for key in reversed(keys):
        path = join(path, key)
    return path


def _path_order(path: str) -> tuple:
    """Problems in document order, roughly: by path with array indexes compared as numbers."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"[\[\].]+", path) if p)
