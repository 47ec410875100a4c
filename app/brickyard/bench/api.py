"""The workload plugin API: everything a workload (built-in or third party) may use.

A workload is a class with a ``name``, typed ``params``, the ``requires`` it needs on every
client host, the ``phases`` it goes through, and an ``async run(ctx)`` that measures steps
through the :class:`~brickyard.bench.context.RunContext` it is given::

    class Hello(Workload):
        name = "hello"
        title = "Hello"
        params = (Param("seconds", "float", 1.0, "how long", minimum=0.1, maximum=60),)
        requires = (Requirement("sleep"),)

        def step_count(self, values): return 1

        async def run(self, ctx):
            m = await ctx.run_workers([ctx.exec_worker(t, ["sleep", str(ctx.values["seconds"])])
                                       for t in ctx.targets], params={})
            ctx.record(m)

Register it under the entry-point group ``brickyard.workloads`` (``name = "module:Class"``)
or drop the module into the user plugins folder (see ``bench.registry``).
"""

from __future__ import annotations

import abc
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Sequence

from ..core import stats
from ..core.results import Metric, StepResult, WorkerTiming
from ..core.strictjson import INT_MAX, INT_MIN
from ..core.units import UnitError, format_bytes, parse_size

if TYPE_CHECKING:
    from .context import RunContext

API_VERSION = 1

__all__ = [
    "API_VERSION", "COMMON_PARAMS", "compact_size", "Measurement", "Metric", "Param", "ParamError", "Requirement", "StepResult",
    "WorkerTiming", "Workload", "format_bytes", "parse_size", "stats",
]


class ParamError(ValueError):
    """A parameter value the workload cannot use; the message names the parameter."""


_KINDS = ("int", "float", "size", "sizes", "ints", "str", "choice", "bool", "seconds")


def _whole(text: str) -> int:
    """A whole number from text; more digits than 64 bits hold is refused before int()
    (which gives up at 4,300 digits with advice about sys.set_int_max_str_digits)."""
    digits = text.lstrip("+-").strip()
    if len(digits) > 19 and digits.isdigit():
        raise ValueError(f"{_short(text)} is out of range (at most {INT_MAX})")
    return int(text)


def _short(value: object) -> str:
    text = str(value) if not isinstance(value, int) or value.bit_length() < 4000 else "a huge number"
    return text if len(text) <= 24 else f"{text[:10]}…{text[-6:]} ({len(text)} digits)"


@dataclass(frozen=True)
class Param:
    """One typed workload parameter.

    kinds: ``int``, ``float``, ``seconds`` (float), ``size`` (bytes, "4K", "1M", "2 GiB"),
    ``sizes`` (comma-separated sizes; "1K..512M" = every power of two in between), ``ints`` (comma-separated ints), ``str``, ``choice``
    (one of ``choices``), ``bool``. ``minimum``/``maximum`` bound numbers and each list item."""

    name: str
    kind: str
    default: Any
    help: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    max_items: int = 64

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise ValueError(f"parameter {self.name}: unknown kind {self.kind!r} (one of {', '.join(_KINDS)})")

    def parse(self, raw: Any) -> Any:
        """Turn text (from the CLI or a form) or a Python value into a checked value."""
        try:
            value = self._convert(raw)
        except (ValueError, UnitError) as exc:
            raise ParamError(f"{self.name}: {exc}") from None
        for item in value if isinstance(value, tuple) else (value,):
            if isinstance(item, float) and not math.isfinite(item):
                raise ParamError(f"{self.name}: {item} is not a number a run can use")
            if isinstance(item, int) and not isinstance(item, bool) and not INT_MIN <= item <= INT_MAX:
                raise ParamError(f"{self.name}: {_short(item)} is out of range (at most {INT_MAX})")
            if isinstance(item, (int, float)) and not isinstance(item, bool):
                self._bound(item)
        if isinstance(value, tuple):
            if not value:
                raise ParamError(f"{self.name}: give at least one value")
            if len(value) > self.max_items:
                raise ParamError(f"{self.name}: at most {self.max_items} values, got {len(value)}")
        return value

    def _bound(self, item: float) -> None:
        show = (lambda v: format_bytes(v, binary=True)) if self.kind in ("size", "sizes") else (lambda v: f"{v:g}")
        if self.minimum is not None and item < self.minimum:
            raise ParamError(f"{self.name}: {show(item)} is below the minimum {show(self.minimum)}")
        if self.maximum is not None and item > self.maximum:
            raise ParamError(f"{self.name}: {show(item)} is above the maximum {show(self.maximum)}")

    def _convert(self, raw: Any) -> Any:
        k = self.kind
        if k == "bool":
            if isinstance(raw, bool):
                return raw
            text = str(raw).strip().lower()
            if text in ("1", "true", "yes", "on"):
                return True
            if text in ("0", "false", "no", "off"):
                return False
            raise ValueError(f"{raw!r} is not yes/no")
        if k == "int":
            if isinstance(raw, bool):
                raise ValueError("expected a whole number")
            return _whole(str(raw).strip()) if not isinstance(raw, int) else raw
        if k in ("float", "seconds"):
            text = str(raw).strip()
            if k == "seconds" and text.endswith("s"):
                text = text[:-1]
            return float(text)
        if k == "size":
            return parse_size(raw if isinstance(raw, int) else str(raw).strip())
        if k in ("sizes", "ints"):
            items = raw if isinstance(raw, (list, tuple)) else [p for p in str(raw).split(",") if p.strip()]
            conv = parse_size if k == "sizes" else (lambda v: _whole(str(v).strip()))
            out: list[int] = []
            for v in items:
                text = str(v).strip()
                if k == "sizes" and ".." in text:       # "1K..512M": every power of two between
                    lo, hi = (parse_size(x.strip()) for x in text.split("..", 1))
                    if lo <= 0 or lo & (lo - 1) or hi < lo:
                        raise ValueError(f"{text!r}: write a power-of-two range such as 1K..512M")
                    while lo <= hi:
                        out.append(lo)
                        lo *= 2
                else:
                    out.append(conv(v if isinstance(v, int) else text))
            return tuple(out)
        if k == "choice":
            text = str(raw).strip()
            if text not in self.choices:
                raise ValueError(f"{text!r} is not one of {', '.join(self.choices)}")
            return text
        return str(raw)

    def describe(self) -> str:
        bits = [f"{self.name} ({self.kind}, default {self.show(self.parse(self.default))})"]
        if self.choices:
            bits.append("one of " + "|".join(self.choices))
        if self.minimum is not None or self.maximum is not None:
            fmt = (lambda v: compact_size(int(v))) if self.kind in ("size", "sizes") else (lambda v: f"{v:g}")
            lo = fmt(self.minimum) if self.minimum is not None else ""
            hi = fmt(self.maximum) if self.maximum is not None else ""
            bits.append(f"range {lo}..{hi}")
        return ", ".join(bits) + f": {self.help}"

    def show(self, value: Any) -> str:
        if self.kind == "size":
            return compact_size(value)
        if self.kind == "sizes":
            return ",".join(compact_size(v) for v in value)
        if isinstance(value, tuple):
            return ",".join(map(str, value))
        return str(value)


@dataclass(frozen=True)
class Requirement:
    """A program a workload needs on each client host, probed with ``command -v``-like
    ``probe`` argv before the run; ``hint`` tells the admin how to get it."""

    program: str
    hint: str = ""
    probe: tuple[str, ...] = ()
    optional: bool = False

    def probe_argv(self) -> list[str]:
        return list(self.probe) if self.probe else ["sh", "-c", 'command -v "$1"', "sh", self.program]


@dataclass
class Measurement:
    """What a workload measured for one step, before the engine aggregates it."""

    params: dict[str, Any]
    workers: list[WorkerTiming]
    metrics: list[Metric] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    note: str = ""
    problems: list[str] = field(default_factory=list)   # validity problems found while parsing
    throughput_metrics: bool = True     # add the standard bytes-based aggregates
    raw: dict[str, Any] = field(default_factory=dict)   # raw tool output kept for the record
    #: each worker's progress curve by position in ``workers`` ((time, bytes) samples); None:
    #: the engine takes them from the workers it last ran (``exec_worker(..., progress=…)``)
    progress: dict[int, Sequence[tuple[float, float]]] | None = None
    #: reads only: the sweep point this step measures (steps with the same key compare), and
    #: whether it read data this run had not read before (True), re-read data (False) or
    #: cannot say (None). A re-read much faster than the point's first read is a cache figure.
    cold_key: Any = None
    first_read: bool | None = None
    #: when ``workers`` hold a window the tool timed itself (fio: each job's I/O, without its
    #: start-up): each worker's whole run from the release, in the same order. The start skew
    #: (how together the barrier let them go) is taken from these; every other figure from
    #: ``workers``.
    released: list[WorkerTiming] | None = None


#: parameters every workload has; the engine reads them (a workload may override one)
COMMON_PARAMS: tuple[Param, ...] = (
    Param("repeats", "int", 3, "how many times each step is measured (median and spread)", minimum=1, maximum=100),
    Param("stall_seconds", "seconds", 30.0, "no I/O progress for this long ends the run as stalled (below "
          "gluster's 42 s ping-timeout, so a silently partitioned node shows as a stall); a third of it "
          "marks the step invalid with 'io-pause'", minimum=1, maximum=3600),
)


class Workload(abc.ABC):
    """Subclass this. Class attributes describe it; ``run`` measures it."""

    name: str = ""
    title: str = ""
    description: str = ""
    params: tuple[Param, ...] = ()
    requires: tuple[Requirement, ...] = ()
    phases: tuple[str, ...] = ("prepare", "measure", "cleanup")
    #: a read direction needs caches dropped first: the engine flags it when it cannot
    needs_root_for: tuple[str, ...] = ("drop caches",)
    #: the parameter whose field is marked when a step would not fit in a target's free
    #: space (``space_at_once``); "" marks none (the message shows under the form)
    space_param: str = ""

    def param(self, name: str) -> Param:
        for p in self.all_params():
            if p.name == name:
                return p
        raise ParamError(f"{self.name} has no parameter {name!r} (it has {', '.join(p.name for p in self.params)})")

    def all_params(self) -> tuple[Param, ...]:
        """The workload's own parameters, then the engine's common ones it does not override."""
        own = {p.name for p in self.params}
        return self.params + tuple(p for p in COMMON_PARAMS if p.name not in own)

    def resolve(self, given: dict[str, Any]) -> dict[str, Any]:
        """Defaults + given values, each parsed and checked, then ``check``-ed together."""
        params = self.all_params()
        known = {p.name for p in params}
        unknown = sorted(set(given) - known)
        if unknown:
            raise ParamError(f"{self.name} has no parameter {', '.join(map(repr, unknown))} "
                             f"(it has {', '.join(sorted(known))})")
        values = {p.name: p.parse(given[p.name]) if p.name in given else p.parse(p.default) for p in params}
        problems = self.check(values)
        if problems:
            raise ParamError("; ".join(problems))
        return values

    def check(self, values: dict[str, Any]) -> list[str]:
        """Cross-parameter problems (each a full sentence naming the parameters)."""
        return []

    def space_at_once(self, values: dict[str, Any]) -> int | None:
        """The most bytes one step keeps on each target at once (files written and not yet
        removed), or None when not known. The Run tab compares it with the free space it knows
        of (a local directory's file system, a volume's measured free space) before Start."""
        return None

    @abc.abstractmethod
    def step_count(self, values: dict[str, Any]) -> int:
        """How many steps ``run`` will record (for % done)."""

    @abc.abstractmethod
    async def run(self, ctx: "RunContext") -> None:
        """Measure: call ``ctx.record(Measurement)`` once per step as each one finishes."""

    def validate(self, step: StepResult) -> list[str]:
        """Problems that make a recorded step invalid (default: none beyond worker errors)."""
        return []


def compact_size(n: int) -> str:
    """dd/fio style: 4096 → '4K', 1048576 → '1M', 1000 → '1000'."""
    for suffix, factor in (("T", 1 << 40), ("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if n >= factor and n % factor == 0:
            return f"{n // factor}{suffix}"
    return str(n)
