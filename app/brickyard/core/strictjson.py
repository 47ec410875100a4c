"""Reading JSON a user hands Brickyard (topology files, campaign files, history exports) or
could corrupt (settings.json, the lab's lab.json, autosave notes), strictly and within bounds. Every loader of a user file goes through here, so a new field
or a new file kind gets the same checks without asking for them:

- ``read_text``: regular files only (never ``/dev/zero``, a FIFO or a directory), at most
  ``limit`` bytes (checked before reading and while reading), UTF-8 or a clear refusal;
  ``read_bytes`` the same for files that are not JSON (known_hosts).
- ``parse``: the JSON grammar and nothing more. ``NaN``/``Infinity``, numbers that overflow
  a double (``1e400``), integers beyond 64 bits (and the 4,300-digit ones Python refuses to
  convert), duplicate keys, lone surrogates and NUL characters in strings or keys, and nesting
  deeper than ``max_depth`` are each a ``Problem`` with the field path; an offending number or
  subtree is replaced by ``INVALID`` (bad text is kept, escaped wherever it is printed) so a
  schema reader can go on and report every other problem too, without echoes of the first.
- ``Reader``: walks parsed data for a schema, checking types and ranges, collecting every
  problem with its path (``nodes[2].bricks[0].size_bytes``); ``true`` is never a number and
  ``1.0`` never an integer.
- ``printable``: any text from a file made safe for one line of output (control characters
  and lone surrogates escaped), so an unknown key containing a newline cannot split an error.

The file reading and the grammar (``read_text``, ``parse``, ``scan``, ``Problem``, …) live in
``jsonparse.py``; this module names them, so every loader still imports one module, and holds
the schema reader (``Reader``, ``Field``, ``Record``) and ``load``/``load_object``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from itertools import product, repeat
from typing import Any, Iterable, NamedTuple

from .jsonparse import (
    FLOAT_MAX, INT_MAX, INT_MIN, INVALID, MAX_DEPTH, JsonFileError, MiB, Problem, _Object, join, kind, parse,
    parse_quick, printable, read_bytes, read_text, scan, text_problem,
)

__all__ = [  # the names loaders use (their home is jsonparse) and the schema reader's
    "FLOAT_MAX", "INT_MAX", "INT_MIN", "INVALID", "MAX_DEPTH", "MiB", "Field", "JsonFileError", "Problem", "Reader",
    "Record", "join", "kind", "load", "load_object", "parse", "parse_quick", "printable", "read_bytes", "read_text",
    "scan", "source_name", "text_problem",
]


# ---- walking parsed data for a schema ---------------------------------------------------

class Reader:
    """Walks parsed JSON for one schema, checking types and ranges and collecting problems
    with their paths. Values already refused by ``scan`` (INVALID) give the default silently:
    their problem is on the list.

    ``numbers_unchecked``: the data came from ``parse_quick``, whose numbers may lie beyond
    64 bits or a double; ``field`` then names such a number as a problem (any problem sends
    the caller back to ``parse``, which names it as it always has)."""

    def __init__(self, problems: Iterable[Problem] = (), numbers_unchecked: bool = False) -> None:
        self.problems: list[Problem] = list(problems)
        self.numbers_unchecked = numbers_unchecked

    def problem(self, path: str, message: str) -> None:
        self.problems.append(Problem(path, message))

    def obj(self, value: Any, path: str, allowed: set[str], required: set[str]) -> dict | None:
        if value is INVALID:
            return None
        if not isinstance(value, dict):
            self.problem(path, f"must be an object, not {kind(value)}")
            return None
        for key in value:
            if key not in allowed:
                self.problem(join(path, key), f"unknown field (allowed: {', '.join(sorted(allowed))})")
        for key in sorted(required - value.keys()):
            self.problem(join(path, key), "is required")
        return value

    def field(self, data: dict, key: str, path: str, kind_: type | tuple, default: Any = None,
              nullable: bool = False, minimum: float | None = None, maximum: float | None = None,
              max_length: int | None = None) -> Any:
        if key not in data:
            return default
        value = data[key]
        if value is INVALID:
            return default
        if value is None and nullable:
            return None
        kinds = kind_ if isinstance(kind_, tuple) else (kind_,)
        ok = isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)
        if float in kinds and isinstance(value, int) and not isinstance(value, bool):
            ok = True
        if not ok:
            names = " or ".join(_TYPE_WORDS.get(k, k.__name__) for k in kinds)
            self.problem(join(path, key), f"must be {names}{' or null' if nullable else ''}, not {kind(value)}")
            return default
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if self.numbers_unchecked and not (INT_MIN <= value <= INT_MAX if isinstance(value, int)
                                               else -FLOAT_MAX <= value <= FLOAT_MAX):
                self.problem(join(path, key), "is out of range (not checked by the parser)")
                return default
            if minimum is not None and value < minimum:
                self.problem(join(path, key), f"must be at least {minimum:g}, not {value}")
                return default
            if maximum is not None and value > maximum:
                self.problem(join(path, key), f"must be at most {maximum:g}, not {value}")
                return default
        if isinstance(value, str) and key == "name" and not value.strip():
            self.problem(join(path, key), "must not be empty")
        if isinstance(value, str) and max_length is not None and len(value) > max_length:
            self.problem(join(path, key), f"must be at most {max_length} characters, not {len(value)}")
            return default
        return value

    def record(self, raw: Any, path: str, schema: "Record") -> dict | None:
        """Every field of ``schema`` read from the object ``raw`` (defaults filled in), or
        None when it is not an object; its problems go on the list. An object whose keys
        and value types were seen before without a problem is read without building a path
        (a 24,000-brick file has a handful of shapes); any other goes through ``obj`` and
        ``field`` one by one, so the problems and their order are those."""
        values = schema.fast(raw)
        if values is not None:
            return values
        d = self.obj(raw, path, schema.allowed, schema.required)
        if d is None:
            return None
        return {key: self.field(d, key, path, f.kind, f.default, f.nullable, f.minimum, f.maximum)
                for key, f in schema.fields.items()}

    def array(self, data: dict, key: str, path: str) -> list:
        value = data.get(key, [])
        if value is INVALID:
            return []
        if not isinstance(value, list):
            self.problem(join(path, key), f"must be an array, not {kind(value)}")
            return []
        return value

    def integer_version(self, data: dict, key: str, known: Iterable[int]) -> int | None:
        """A ``format_version``: an integer (never ``true`` or ``1.0``) this Brickyard reads."""
        known = sorted(known)
        value = data.get(key)
        if value is INVALID:
            return None
        if type(value) is not int:
            self.problem(key, f"must be an integer ({', '.join(map(str, known))}), not {kind(value)}"
                         + (f" {json.dumps(value)}" if isinstance(value, (bool, float)) else ""))
            return None
        if value not in known:
            if value > known[-1]:
                self.problem(key, f"is {value}; this Brickyard reads version {known[-1]} "
                                  "(a newer Brickyard wrote this file)")
            else:
                self.problem(key, f"must be {' or '.join(map(str, known))}, not {value}")
            return None
        return value


class Field(NamedTuple):
    """How ``Reader.field`` reads one field (its arguments)."""

    kind: type | tuple
    default: Any = None
    nullable: bool = False
    minimum: float | None = None
    maximum: float | None = None


class Record:
    """An object's schema for ``Reader.record``: its fields in the order they are read, the
    keys it requires and the keys it allows (the fields, and keys the caller reads itself)."""

    def __init__(self, fields: dict[str, Field], required: Iterable[str], allowed: Iterable[str] | None = None):
        self.fields = fields
        self.required = set(required)
        self.allowed = set(fields if allowed is None else allowed)
        self.defaults = {key: f.default for key, f in fields.items()}
        # (keys, value types) -> the checks left for each object of that shape, or None when
        # an object of that shape always has a problem
        self._shapes: dict[tuple, tuple | None] = {}

    def fast(self, raw: Any) -> dict | None:
        """The values of an object that certainly has no problem, else None."""
        if type(raw) is not _Object and type(raw) is not dict:
            return None
        shape = (tuple(raw), tuple(map(type, raw.values())))
        checks = self._shapes.get(shape, False)
        if checks is False:
            checks = self._shapes[shape] = self._checks(*shape)
        if checks is None:
            return None
        complete, bounds, names = checks
        for key, _, low, high in bounds:
            if not low <= raw[key] <= high:     # NaN too
                return None
        for key in names:
            if not raw[key].strip():
                return None
        return raw if complete else {**self.defaults, **raw}

    def fast_columns(self, raws: list, order: tuple[str, ...]) -> list | None:
        """For many objects at once (a file's 24,000 bricks): one sequence per key of
        ``order`` holding that field of every object (the default where an object leaves it
        out), when ``fast`` would pass every one of them; else None (read them one by one).
        Whole columns are checked at C speed: the objects' key order (one for all), each
        column's value types (each (key, type) is what ``fast``'s shape check decides field
        by field) and each numeric column's smallest and largest number of each type."""
        if not raws or not {type(raw) for raw in raws} <= {dict, _Object}:
            return None
        key_orders = set(map(tuple, raws))
        if len(key_orders) != 1:
            return None
        keys = key_orders.pop()
        columns = list(zip(*map(dict.values, raws))) if keys else []
        type_sets = [set(map(type, column)) for column in columns]
        combos = 1
        for kinds in type_sets:
            combos *= len(kinds)
        if combos > 16:
            return None
        bounds: set = set()
        names: set = set()
        for types in product(*type_sets):
            checks = self._shapes.get((keys, types), False)
            if checks is False:
                checks = self._shapes[(keys, types)] = self._checks(keys, types)
            if checks is None:
                return None
            bounds.update(checks[1])
            names.update(checks[2])
        by_key = dict(zip(keys, columns))
        kinds_of = dict(zip(keys, type_sets))
        for key, value_type, low, high in bounds:
            numbers = by_key[key]
            if len(kinds_of[key]) > 1:
                numbers = [v for v in numbers if type(v) is value_type]
            if numbers and not (low <= min(numbers) and max(numbers) <= high):
                return None
            if value_type is float:     # a NaN hides from min and max, not from a sum
                total = sum(numbers)
                if total != total:
                    return None
        for key in names:
            if not all(map(str.strip, by_key[key])):
                return None
        return [by_key[key] if key in by_key else repeat(self.defaults[key], len(raws)) for key in order]

    def _checks(self, keys: tuple, types: tuple) -> tuple | None:
        """For objects of this shape: (every field given, the numbers to bound, the names to
        check for blanks), or None when the shape alone means a problem for ``field``. Every
        number is bounded: by the field's own limits, and always within 64 bits (an integer)
        or a finite double, which ``parse`` guarantees and ``parse_quick`` does not."""
        if not self.allowed.issuperset(keys) or not self.required.issubset(keys):
            return None
        bounds, names = [], []
        for key, value_type in zip(keys, types):
            f = self.fields.get(key)
            if f is None:
                continue
            kinds = f.kind if isinstance(f.kind, tuple) else (f.kind,)
            if value_type is type(None):
                if not f.nullable:
                    return None
                continue
            if value_type is bool:
                if bool not in kinds:
                    return None
                continue
            if value_type not in kinds and not (value_type is int and float in kinds):
                return None           # a subclass of a kind, too: ``field`` decides
            if value_type is int or value_type is float:
                wide_low, wide_high = (INT_MIN, INT_MAX) if value_type is int else (-FLOAT_MAX, FLOAT_MAX)
                bounds.append((key, value_type, wide_low if f.minimum is None else max(f.minimum, wide_low),
                               wide_high if f.maximum is None else min(f.maximum, wide_high)))
            if value_type is str and key == "name":
                names.append(key)
        complete = set(keys) == set(self.fields)
        return complete, tuple(bounds), tuple(names)


_TYPE_WORDS = {str: "a string", int: "an integer", float: "a number", bool: "true/false",
               dict: "an object", list: "an array", type(None): "null"}


def load(path: str | os.PathLike, *, limit: int, what: str, max_depth: int = MAX_DEPTH) -> tuple[Any, list[Problem]]:
    """``read_text`` then ``parse``: (data, problems). A file that cannot be read or is not
    JSON at all raises JsonFileError; other problems come back for the schema reader to add to."""
    text = read_text(path, limit=limit, what=what)
    data, problems = parse(text, max_depth=max_depth)
    if data is None and problems:
        raise JsonFileError(str(path), problems)
    return data, problems


def load_object(path: str | os.PathLike, *, limit: int, what: str) -> dict:
    """A file that must hold one JSON object, read and parsed strictly: the object, or
    JsonFileError naming every problem (a value refused inside it included)."""
    data, problems = load(path, limit=limit, what=what)
    if not isinstance(data, dict) and data is not INVALID:
        problems = [*problems, Problem("", f"must be a JSON object, not {kind(data)}")]
    if problems:
        raise JsonFileError(str(path), problems)
    return data


def source_name(path: str | os.PathLike) -> str:
    return printable(str(Path(path)))
