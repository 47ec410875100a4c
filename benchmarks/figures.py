"""What every script in benchmarks/ prints the same way: a figure as min / median / max over
several runs, next to its target, and the machine's load when it was taken (the machines are
shared: other jobs stretch wall-clock times, so a ratio measured in one run says more than a
figure from another day)."""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import time
from typing import Callable, Sequence


def load_line() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.1f} / {five:.1f} / {fifteen:.1f} (1 / 5 / 15 min) on {os.cpu_count()} CPUs"


def spread(samples: Sequence[float], unit: str = "ms") -> str:
    """``min / median / max`` of samples given in seconds."""
    scale = 1000.0 if unit == "ms" else 1.0
    low, mid, high = min(samples), statistics.median(samples), max(samples)
    digits = 1 if unit == "ms" else 2
    return f"{low * scale:.{digits}f} / {mid * scale:.{digits}f} / {high * scale:.{digits}f} {unit}"


def verdict(samples: Sequence[float], target: float, unit: str = "ms") -> str:
    """Met when the median is under the target (the min says what an idle machine gives)."""
    scale = 1000.0 if unit == "ms" else 1.0
    shown = f"{target * scale:g} {unit}"
    if statistics.median(samples) < target:
        return f"target < {shown}: met"
    return f"target < {shown}: MISSED" + (" (the fastest run meets it)" if min(samples) < target else "")


def line(label: str, samples: Sequence[float], target: float | None = None, unit: str = "ms",
         cpu: Sequence[float] | None = None, width: int = 46) -> str:
    """``label  min / median / max  [CPU …]  (target …)``."""
    text = f"{label:<{width}} {spread(samples, unit)}"
    if cpu:
        text += f"  (CPU {spread(cpu, unit)})"
    if target is not None:
        text += f"  [{verdict(samples, target, unit)}]"
    return text


def timed(fn: Callable[[], object], runs: int) -> tuple[list[float], list[float], object]:
    """Wall and CPU seconds of ``runs`` calls of ``fn``, and its last result."""
    walls, cpus, result = [], [], None
    for _ in range(runs):
        w, c = time.perf_counter(), time.process_time()
        result = fn()
        cpus.append(time.process_time() - c)
        walls.append(time.perf_counter() - w)
    return walls, cpus, result


def timed_process(argv: list[str], runs: int, env: dict | None = None,
                  check: Callable[[subprocess.CompletedProcess], None] | None = None) -> tuple[list[float], list[float]]:
    """Wall and CPU (user + system of the child) seconds of ``runs`` runs of a command."""
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        w = time.perf_counter()
        proc = subprocess.run(argv, capture_output=True, text=True, env=env)
        walls.append(time.perf_counter() - w)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        if check is not None:
            check(proc)
    return walls, cpus
