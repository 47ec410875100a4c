"""The calibration's own noise (``throughput.NOISE``), carried into every range, and the
warnings that say when a calibration cannot be trusted (``calibration.fit`` calls ``noise``).

The run-to-run spread of the calibration figures — the repeats of each point within a run, and
the same point measured by several runs of one layout (the same sets, the same client options),
pooled as σ of ln figure — and the fit's own misfit on each point's median, in quadrature.
"""

from __future__ import annotations

import math
from typing import Sequence

from . import lazystats as statistics, throughput as tm
from .throughput import MEASURED, Params, Value
from .units import format_block_size, format_rate

#: a calibration figure the fitted model misses by more than this is named in a warning
MISFIT = 0.25
#: run-to-run spread (σ of ln figure) above which the calibration is called noisy
NOISY = 0.15


def noisy(spread: float | None) -> bool:
    """Whether a run-to-run spread (σ of ln figure, None: unknown) makes the calibration noisy:
    the one test behind the spread warning, and behind anything that must agree with it
    (``modelgoal.judge``). The misfit is not noise: it has its own warning."""
    return spread is not None and spread > NOISY


def noise(params: Params, obs: Sequence, residuals: Sequence, notes: list[str],
          warnings: list[str]) -> tuple[Params, float | None]:
    """The calibration's noise as a parameter every range carries (``tm.NOISE``): the
    run-to-run spread of its figures — repeats of one point, within a run or across runs of one
    layout, pooled: σ of ln figure — and the fit's own misfit on them (RMS of ln predicted ÷
    measured), in quadrature. Warns, naming the points, where the fit misses its own inputs by
    more than MISFIT, and where the figures spread more than NOISY. Returns the parameters and
    the spread alone (None where no point was measured twice)."""
    groups: dict[tuple, list[float]] = {}
    for o in obs:
        values = o.values or (o.bps,)
        groups.setdefault((o.shape.sets, o.shape.io_threads, o.direction, o.concurrency, o.block_size), []).extend(values)
    squares, dof, points = 0.0, 0, 0
    for values in groups.values():
        values = [v for v in values if v > 0]
        if len(values) < 2:
            continue
        logs = [math.log(v) for v in values]
        mean = sum(logs) / len(logs)
        squares += sum((x - mean) ** 2 for x in logs)
        dof += len(logs) - 1
        points += 1
    repeat = math.sqrt(squares / dof) if dof else None
    # the misfit on each point's median over its repeats (a spread the repeats show is noise,
    # counted once above)
    predicted = {(r.observation.shape.sets, r.observation.shape.io_threads, r.observation.direction,
                  r.observation.concurrency, r.observation.block_size): r.predicted for r in residuals}
    errors = [math.log(predicted[key] / statistics.median(values)) for key, values in groups.items()
              if predicted.get(key, 0) > 0 and min(values) > 0]
    misfit = math.sqrt(sum(e * e for e in errors) / len(errors)) if errors else 0.0
    sigma = math.hypot(repeat or 0.0, misfit)
    if repeat is None:
        how = (f"run-to-run spread unknown (no point was measured twice: calibrate on runs with repeats); the fit's "
               f"own misfit {misfit:.0%}")
    else:
        how = (f"run-to-run spread {repeat:.0%} (σ of ln figure over {points} point(s) measured {dof + points} times), "
               f"the fit's own misfit {misfit:.0%}")
    note = f"σ {sigma:.0%}: {how}; every range spans ±{tm.NOISE_Z:g} σ of it (90 %)"
    missed = [r for r in residuals if abs(r.error) > MISFIT]
    if missed:
        shown = "; ".join(r.describe() for r in missed[:4]) + (f"; and {len(missed) - 4} more" if len(missed) > 4 else "")
        warnings.append(f"the calibration does not fit its own inputs: {shown}. Something the model does not see "
                        "moved these figures (load, caches, a slow step): repeat the calibration runs interleaved "
                        f"with the other layouts{_how_to_interleave(obs)}")
    if noisy(repeat):
        worst = max(groups.items(), key=lambda kv: max(kv[1]) / min(kv[1]) if min(kv[1]) > 0 else 0)
        (_sets, _threads, d, n, b), values = worst
        warnings.append(f"the calibration figures spread {repeat:.0%} run to run (e.g. {d}, "
                        f"{'1 file' if n == 1 else f'{n} files'}"
                        f"{f', {format_block_size(b)} blocks' if b else ''}: "
                        f"{', '.join(format_rate(v) for v in values)}): every range is widened by it; repeat the "
                        f"calibration runs interleaved with the other layouts to know them better{_how_to_interleave(obs)}")
    if sigma <= 0:
        return params, repeat
    return params.with_values({tm.NOISE: Value(sigma, MEASURED, note)}), repeat


def _how_to_interleave(obs: Sequence) -> str:
    """The command that repeats the calibration layout between the others, for the warnings:
    `` (brickyard campaign FILE --interleave dt8)`` — the first calibration layout that is not
    itself an interleaved copy (``dt8-2`` of ``dt8``); empty where the figures name no layout."""
    names = list(dict.fromkeys(o.layout for o in obs if getattr(o, "layout", "")))
    first = [n for n in names if not (n.rpartition("-")[2].isdigit() and n.rpartition("-")[0] in names)]
    return (f" (brickyard campaign FILE --interleave {first[0]}, or Repeat interleaved… in the Calibrate dialog)"
            if first else "")
