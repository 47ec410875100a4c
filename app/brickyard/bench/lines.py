"""One line per measured step, as the CLI prints it and the Run view logs it (one builder,
so a terminal and the window never disagree on what a step said)."""

from __future__ import annotations

from ..core.results import StepResult
from ..core.units import format_quantity

#: the metrics a step line names (what each workload reports as its result)
SHOWN = ("throughput", "stonewall_throughput", "stonewall_margin", "sum_of_rates", "fio_group_bw", "iops", "clat_p99_us", "ops_per_s", "files_per_s", "objects_per_s",
         "per_object_ms", "seconds", "tps", "init_seconds", "calls_per_s", "lstat_us", "scaling_efficiency")


def step_line(step: StepResult) -> str:
    """'#3 r0 block_size=1048576 concurrency=4 direction=write: throughput=… skew_p99=0.11ms [flags]'."""
    params = " ".join(f"{k}={v}" for k, v in step.params.items() if k != "repeat")
    bits = []
    for m in step.metrics:
        if m.name in SHOWN:
            value = format_quantity(m.value, m.unit)
            bits.append(f"{m.name}={value}")
    if len(step.workers) > 1 and step.metric("throughput") and not step.metric("stonewall_throughput"):
        bits.append("stonewall=not measured")
    skew = step.start_skew.get("p99")
    if skew and len(step.workers) > 1:
        sure = step.start_skew.get("uncertainty")
        bits.append(f"skew_p99={skew * 1000:.2f}ms" + (f"±{sure * 1000:.2f}" if sure is not None else ""))
    flags = f" [{','.join(step.flags)}]" if step.flags else ""
    valid = "" if step.valid else " INVALID"
    valid += " SUSPECT" if step.valid and step.suspect else ""
    return f"#{step.index} r{step.repeat} {params}: {' '.join(bits)}{flags}{valid}" + (f"  ({step.note})" if step.note else "")
