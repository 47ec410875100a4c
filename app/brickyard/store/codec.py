"""Result objects to plain JSON data and back, strictly: the export format and the
provenance column both use it, and a bad import file gets an error naming every bad field.

Reading is driven by the result dataclasses themselves (``core.results``): each field is
checked against its annotation (``int``, ``float | None``, ``dict[str, str]``,
``tuple[Metric, ...]``…), so a field added there is checked here without more code. On top
of the types, ``RULES`` bounds what the database and the rest of Brickyard can hold: times a
calendar can print, integers the columns take (PostgreSQL ``integer`` is 32 bits), strings
no longer than their columns, run ids of safe characters. Together with the strict JSON
parser (``core.strictjson``: no NaN/Infinity, 64-bit integers, valid text, no duplicate keys,
bounded nesting) nothing an import accepts can break a later list, show or export.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from brickyard.core.results import Metric, Provenance, RunResult, RunStatus, StepResult, WorkerTiming
from brickyard.core.throughput import DIRECTIONS
from brickyard.core.strictjson import INT_MAX, INVALID, JsonFileError, Problem, Reader, join, kind, scan

from .models import Run, RunHost, RunOption, Sample, VolumeLayout, WorkerTimingRow

MAX_TIME = 253402300799.0     # 9999-12-31 23:59:59 UTC: the last second a calendar prints
INT32_MAX = 2**31 - 1         # an ``Integer`` column on PostgreSQL
TIME_WORDS = "a time in seconds since 1970 (UTC) before the year 10000"
RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$")


class RecordError(JsonFileError):
    """Run records that do not describe RunResults; ``problems`` names every bad field."""


def _length(column: Any) -> int | None:
    return getattr(column.type, "length", None)


# Bounds beyond the annotation: (class name, field) -> rule.
RULES: dict[tuple[str, str], dict[str, Any]] = {
    ("RunResult", "run_id"): {"pattern": RUN_ID, "what": "1-64 letters, digits, '.', '_', ':' or '-'"},
    ("RunResult", "workload"): {"max_length": _length(Run.workload)},
    ("RunResult", "started_at"): {"min": 0, "max": MAX_TIME, "what": TIME_WORDS},
    ("RunResult", "ended_at"): {"min": 0, "max": MAX_TIME, "what": TIME_WORDS},
    ("RunResult", "failed_host"): {"max_length": _length(Run.failed_host)},
    ("Provenance", "brickyard_version"): {"max_length": _length(Run.brickyard_version)},
    ("Provenance", "target"): {"max_length": _length(Run.target)},
    ("Provenance", "target_kind"): {"max_length": _length(Run.target_kind)},
    ("Provenance", "volume_name"): {"max_length": _length(VolumeLayout.name)},
    ("Provenance", "hosts"): {"key_length": _length(RunHost.host),
                              "inner_lengths": {"gluster": _length(RunHost.gluster),
                                                "kernel": _length(RunHost.kernel), "os": _length(RunHost.os)}},
    ("Provenance", "volume_options"): {"key_length": _length(RunOption.name)},
    ("StepResult", "index"): {"min": 0, "max": INT32_MAX},
    ("StepResult", "repeat"): {"min": 0, "max": INT32_MAX},
    ("WorkerTiming", "worker"): {"min": 0, "max": INT32_MAX},
    ("WorkerTiming", "host"): {"max_length": _length(WorkerTimingRow.host)},
    ("WorkerTiming", "bytes"): {"min": 0},
    ("WorkerTiming", "ops"): {"min": 0},
    ("Metric", "name"): {"max_length": _length(Sample.name)},
    ("Metric", "unit"): {"max_length": _length(Sample.unit)},
}
_CLASSES = {c.__name__: c for c in (RunResult, Provenance, StepResult, WorkerTiming, Metric)}
_SCALARS = {"str": str, "int": int, "float": float, "bool": bool}


# ---- writing ------------------------------------------------------------------------------

def provenance_to_dict(p: Provenance) -> dict[str, Any]:
    return dataclasses.asdict(p)


def step_to_dict(step: StepResult) -> dict[str, Any]:
    return {
        "index": step.index,
        "params": step.params,
        "repeat": step.repeat,
        "workers": [dataclasses.asdict(w) for w in step.workers],
        "metrics": [dataclasses.asdict(m) for m in step.metrics],
        "start_skew": step.start_skew,
        "flags": list(step.flags),
        "valid": step.valid,
        "note": step.note,
    }


def run_to_dict(run: RunResult) -> dict[str, Any]:
    return {
        "run_id": run.run_id,
        "workload": run.workload,
        "status": run.status.value,
        "started_at": run.started_at,
        "ended_at": run.ended_at,
        "provenance": provenance_to_dict(run.provenance),
        "steps": [step_to_dict(s) for s in run.steps],
        "error": run.error,
        "failed_host": run.failed_host,
    }


# ---- reading ------------------------------------------------------------------------------

class _Walk:
    def __init__(self, reader: Reader):
        self.r = reader

    def record(self, cls: type, data: Any, where: str) -> Any:
        """An instance of the dataclass ``cls`` from ``data``, or INVALID (problems recorded)."""
        fields = {f.name: f for f in dataclasses.fields(cls)}
        required = {n for n, f in fields.items()
                    if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING}  # type: ignore[misc]
        before = len(self.r.problems)
        d = self.r.obj(data, where, set(fields), required)
        if d is None:
            return INVALID
        values = {}
        for name, f in fields.items():
            if name not in d:
                continue
            rule = RULES.get((cls.__name__, name), {})
            value = self.value(str(f.type), d[name], join(where, name), rule)
            if value is not INVALID:
                values[name] = value
        self.extra_checks(cls, values, where)
        if len(self.r.problems) > before or required - values.keys():
            return INVALID
        return cls(**values)

    def value(self, ann: str, value: Any, here: str, rule: dict) -> Any:
        ann = ann.strip()
        if value is INVALID:
            return INVALID
        if ann.endswith("| None"):
            if value is None:
                return None
            ann = ann[: -len("| None")].strip()
        if ann in _SCALARS:
            return self.scalar(_SCALARS[ann], value, here, rule)
        if ann == "Any":
            return value
        if ann == "RunStatus":
            text = self.scalar(str, value, here, {})
            if text is INVALID:
                return INVALID
            try:
                return RunStatus(text)
            except ValueError:
                self.r.problem(here, f"{text!r} is not one of {', '.join(s.value for s in RunStatus)}")
                return INVALID
        if ann in _CLASSES:
            return self.record(_CLASSES[ann], value, here)
        m = re.fullmatch(r"(tuple|list)\[(.+?)(, \.\.\.)?\]", ann)
        if m:
            if not isinstance(value, list):
                self.r.problem(here, f"must be an array, not {kind(value)}")
                return INVALID
            items = [self.value(m.group(2), v, join(here, i), {}) for i, v in enumerate(value)]
            if any(v is INVALID for v in items):
                return INVALID
            return tuple(items) if m.group(1) == "tuple" else items
        m = re.fullmatch(r"dict\[str, (.+)\]", ann)
        if m:
            if not isinstance(value, dict):
                self.r.problem(here, f"must be an object, not {kind(value)}")
                return INVALID
            out, bad = {}, False
            inner_lengths = rule.get("inner_lengths", {})
            for k, v in value.items():
                if rule.get("key_length") and len(k) > rule["key_length"]:
                    self.r.problem(join(here, k), f"the name must be at most {rule['key_length']} characters")
                    bad = True
                    continue
                item = self.value(m.group(1), v, join(here, k), {})
                if isinstance(item, dict):
                    for ik, limit in inner_lengths.items():
                        if isinstance(item.get(ik), str) and limit and len(item[ik]) > limit:
                            self.r.problem(join(join(here, k), ik), f"must be at most {limit} characters")
                            bad = True
                bad = bad or item is INVALID
                out[k] = item
            return INVALID if bad else out
        raise TypeError(f"codec cannot read a field annotated {ann!r} (add it to codec._Walk.value)")

    def scalar(self, typ: type, value: Any, here: str, rule: dict) -> Any:
        ok = isinstance(value, typ) and not (isinstance(value, bool) and typ is not bool)
        if typ is float and isinstance(value, int) and not isinstance(value, bool):
            ok, value = True, float(value)
        if not ok:
            self.r.problem(here, f"must be {_WORDS[typ]}, not {kind(value)}")
            return INVALID
        if typ in (int, float):
            low, high = rule.get("min"), rule.get("max", INT_MAX if typ is int else None)
            for bad, bound in ((low is not None and value < low, f"at least {low}"),
                               (high is not None and value > high, f"at most {high}")):
                if bad:
                    self.r.problem(here, f"must be {rule.get('what') or bound}, not {value:g}")
                    return INVALID
        if typ is str:
            if rule.get("max_length") and len(value) > rule["max_length"]:
                self.r.problem(here, f"must be at most {rule['max_length']} characters, not {len(value)}")
                return INVALID
            if rule.get("pattern") and not rule["pattern"].match(value):
                self.r.problem(here, f"must be {rule['what']}, not {value!r}")
                return INVALID
        return value

    def extra_checks(self, cls: type, values: dict, where: str) -> None:
        """What a field's type cannot say: the layout's shape, one step per (index, repeat),
        a sweep point's direction short enough for its column."""
        if cls is Provenance and isinstance(values.get("layout"), dict):
            self.layout(values["layout"], join(where, "layout"))
        if cls is StepResult and isinstance(values.get("params"), dict):
            for key, why in params_problems(values["params"]):
                self.r.problem(join(join(where, "params"), key), why)
        if cls is RunResult and isinstance(values.get("steps"), list):
            seen: dict[tuple[int, int], int] = {}
            for i, step in enumerate(values["steps"]):
                key = (step.index, step.repeat)
                if key in seen:
                    self.r.problem(join(join(where, "steps"), i), f"repeats step {step.index} repeat {step.repeat} "
                                                                  f"(already steps[{seen[key]}])")
                seen.setdefault(key, i)

    def layout(self, layout: dict, where: str) -> None:
        type_limit = _length(VolumeLayout.layout_type)
        t = layout.get("type")
        if t is not None and not (isinstance(t, str) and len(t) <= (type_limit or 64)):
            self.r.problem(join(where, "type"), f"must be a volume type name of at most {type_limit} characters")
        for key in ("replica", "arbiter", "disperse", "redundancy"):
            v = layout.get(key)
            if v is not None and not (type(v) is int and 0 <= v <= INT32_MAX):
                self.r.problem(join(where, key), f"must be a count (0-{INT32_MAX}) or null, not {kind(v)} {v!r}")
        bricks = layout.get("bricks")
        if bricks is not None and not (isinstance(bricks, list) and all(isinstance(b, str) for b in bricks)):
            self.r.problem(join(where, "bricks"), "must be an array of 'node:/path' strings")


_WORDS = {str: "a string", int: "an integer", float: "a number", bool: "true/false"}

MAX_BLOCK_SIZE = 2**62


def params_problems(params: dict[str, Any]) -> list[tuple[str, str]]:
    """(key, why) for each sweep-point parameter a reader depends on that holds what it cannot
    read: the decision table, the model and the charts take ``direction`` as write or read,
    ``block_size`` as a byte count and ``concurrency`` as a number of files. An import refuses
    such a step; the store's readers leave one out and name it."""
    out = []
    direction = params.get("direction")
    if "direction" in params and direction not in DIRECTIONS:
        out.append(("direction", f"must be write or read, not {direction!r}"[:200]))
    for key, low, high, what in (("block_size", 1, MAX_BLOCK_SIZE, "a block size in bytes"),
                                 ("concurrency", 1, INT32_MAX, "a number of files or workers")):
        if key not in params:
            continue
        v = params[key]
        if type(v) is not int or not low <= v <= high:
            out.append((key, f"must be {what} ({low}-{high}), not {kind(v)} {v!r}"[:200]))
    return out


def read_runs(items: Any, where: str, problems: list[Problem] | None = None) -> tuple[list[RunResult], list[Problem]]:
    """Every run record of the array ``items`` (at ``where``), and every problem found."""
    r = Reader(problems or [])
    if not isinstance(items, list):
        r.problem(where, f"must be an array, not {kind(items)}")
        return [], r.problems
    walk = _Walk(r)
    runs = [walk.record(RunResult, item, join(where, i)) for i, item in enumerate(items)]
    return [run for run in runs if run is not INVALID], r.problems


def _one(cls: type, data: Any, where: str) -> Any:
    """One ``cls`` record from data, or RecordError naming every bad field."""
    data, problems = scan(data)
    r = Reader(problems)
    record = _Walk(r).record(cls, data, where)
    if r.problems or record is INVALID:
        raise RecordError(where, r.problems)
    return record


def run_from_dict(data: Any, where: str = "run") -> RunResult:
    return _one(RunResult, data, where)


def provenance_from_dict(data: Any, where: str = "provenance") -> Provenance:
    return _one(Provenance, data, where)


def step_from_dict(data: Any, where: str) -> StepResult:
    return _one(StepResult, data, where)


def run_problems(run: RunResult) -> list[Problem]:
    """What would stop ``run`` (say, one read back from an old database) from being imported
    again: [] for a sound run."""
    data, problems = scan(run_to_dict(run))
    r = Reader(problems)
    _Walk(r).record(RunResult, data, "")
    return r.problems
