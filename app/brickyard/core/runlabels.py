"""What a run *is*, in words: the one place that names runs for people (STYLE habit 11).

Legends, the history list, `history compare`, the Trend chart and the report all call these:

- ``run_labels(runs)``: short names that tell the given runs apart by what differs between
  them — where they measured (a gluster volume, a local or NFS path), the client, the
  layout, the gluster version, volume options, kernel, workload parameters — and by date
  only when nothing recorded tells them apart. A local baseline is never called a gluster
  run: the glusterfs client installed on the host of a local run says nothing about it.
- ``run_series(run)`` / ``series_of(kind, target, volume)``: the thing a run measured
  ("gluster gv0", "local /var/tmp/base"), one line per series on a trend.
- ``gluster_version``, ``version_matches``, ``layout_matches``: history filters match as
  an admin types ("10.3" finds "glusterfs 10.3"; "disperse" finds "Distributed-Disperse").
- ``option_value``: an option's value in a run, resolved from ``gluster volume get VOL all``
  when it was not set, so "unset" vs "on" is no difference when "on" is gluster's default.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable, Sequence

from .results import Provenance, RunResult, is_gluster_target
from .units import format_utc

DEFAULT_MARK = "(DEFAULT)"
_VERSION = re.compile(r"(\d+(?:\.\d+)*)")


# -- what a run measured ------------------------------------------------------------------

def is_gluster(p: Provenance) -> bool:
    """Whether the run measured a gluster mount (a run over several targets counts when any is)."""
    return is_gluster_target(p.target_kind)


def gluster_version(text: str) -> str:
    """The version number in what a host reported: 'glusterfs 10.3' → '10.3'; '' when none."""
    m = _VERSION.search(text or "")
    return m.group(1) if m else ""


def gluster_versions(p: Provenance) -> list[str]:
    """The gluster versions of a gluster run's hosts ('10.3'), sorted; [] for a run that did
    not measure gluster (a local or NFS baseline), whatever its host has installed."""
    if not is_gluster(p):
        return []
    return sorted({v for v in (gluster_version(h.get("gluster", "")) for h in p.hosts.values()) if v},
                  key=_version_key)


def _version_key(v: str) -> tuple:
    return tuple(int(x) for x in v.split(".") if x.isdigit())


def series_of(kind: str, target: str, volume: str = "") -> str:
    """'gluster gv0' for a volume, 'local /var/tmp/base' for a baseline path, 'nfs nas:/x'."""
    kinds = [k for k in (kind or "").split(",") if k]
    if is_gluster_target(kind) and volume:
        return f"gluster {volume}"
    head = kinds[0] if len(set(kinds)) == 1 else (",".join(dict.fromkeys(kinds)) or "unknown")
    if head == "local" or head == "tmpfs":
        paths = [t.partition(":")[2] if t.startswith("local:") else t for t in target.split(",")]
        return f"{head} {','.join(paths)}"
    return f"{head} {target}".strip()


def run_series(run: RunResult) -> str:
    p = run.provenance
    return series_of(p.target_kind, p.target, p.volume_name if is_gluster(p) else "")


# -- options resolved against gluster's defaults ---------------------------------------------

def option_value(p: Provenance, name: str) -> tuple[str, str]:
    """(value, how): how is "set" (on the volume), "default" (not set: the value gluster
    reported in `volume get VOL all` at run time — marked "(DEFAULT)" for most options,
    unmarked for the xlator switches such as performance.write-behind; either way what
    an unset option means on that volume) or "unknown" (not set and not recorded: '')."""
    if name in p.volume_options:
        return p.volume_options[name], "set"
    raw = p.volume_settings.get(name)
    if raw is None:
        return "", "unknown"
    return raw.removesuffix(DEFAULT_MARK).strip(), "default"


def describe_option_value(p: Provenance, name: str) -> str:
    """'off' (set), 'on (gluster default)' (not set, recorded), '(not set)' (not recorded)."""
    value, how = option_value(p, name)
    if how == "set":
        return value
    if how == "default":
        return f"{value} (gluster default)"
    return "(not set)"


def options_that_differ(runs: Sequence[RunResult]) -> list[str]:
    """Option names set in any gluster run whose resolved value is not the same in all of
    them (an unset option with no record of its default counts as different)."""
    gl = [r.provenance for r in runs if is_gluster(r.provenance)]
    names = sorted({n for p in gl for n in p.volume_options})
    out = []
    for name in names:
        values = {option_value(p, name)[0] or f"unknown:{id(p)}" for p in gl}
        if len(values) > 1:
            out.append(name)
    return out


# -- filters as a user types them ----------------------------------------------------------

def version_matches(stored: str, query: str) -> bool:
    """'10.3' matches 'glusterfs 10.3' and '10.3.1'; '10' matches any 10.x; 'glusterfs 10.3'
    matches too. Components compare whole: '10.3' does not match '10.31'."""
    want, have = gluster_version(query), gluster_version(stored)
    if not want or not have:
        return bool(query.strip()) and query.strip().lower() in (stored or "").lower()
    return have == want or have.startswith(want + ".")


_STEMS = {"distributed": "distribute", "dist": "distribute", "replicated": "replicate", "replica": "replicate",
          "dispersed": "disperse", "arbitrated": "arbiter", "arbiters": "arbiter"}


def _words(text: str) -> list[str]:
    return [_STEMS.get(w, w) for w in re.split(r"[^a-z0-9]+", text.lower()) if w]


def layout_matches(query: str, layout_type: str, label: str) -> bool:
    """A layout filter as typed: a gluster type name in any case or form ('disperse',
    'Dispersed', 'distributed-replicate') matches every layout of that kind
    ('disperse' finds Disperse and Distributed-Disperse), or a piece of the label
    ('replica 3', 'arbiter', 'redundancy 2')."""
    q = query.strip().lower()
    if not q:
        return True
    if q in (label or "").lower() or q == (layout_type or "").lower():
        return True
    qwords = _words(q)
    have = set(_words(layout_type or "")) | set(_words(label or ""))
    return bool(qwords) and all(not w.isdigit() and w in have for w in qwords)


# -- run labels -------------------------------------------------------------------------------

def _when(run: RunResult) -> str:
    return format_utc(run.started_at)


def _layout(run: RunResult) -> str:
    p = run.provenance
    return describe_layout(p.layout) if is_gluster(p) else ""


def _client(run: RunResult) -> str:
    return run.provenance.target if is_gluster(run.provenance) else ""


def _gluster(run: RunResult) -> str:
    versions = gluster_versions(run.provenance)
    return f"glusterfs {', '.join(versions)}" if versions else ""


def _kernel(run: RunResult) -> str:
    kernels = sorted({h.get("kernel", "") for h in run.provenance.hosts.values()} - {""})
    return f"kernel {', '.join(kernels)}" if kernels else ""


def run_labels(runs: Sequence[RunResult], max_parts: int = 3) -> list[str]:
    """Short names telling ``runs`` apart by what differs (see the module docstring):
    'gluster gv0' vs 'local /var/tmp/base'; 'glusterfs 6.0' vs 'glusterfs 10.3' on one volume;
    'performance.write-behind=off' vs '…=on (gluster default)'. One run: what it measured
    and when."""
    runs = list(runs)
    if not runs:
        return []
    if len(runs) == 1:
        r = runs[0]
        return [" · ".join(x for x in (run_series(r), _layout(r), _when(r)) if x)]
    option_names = options_that_differ(runs)

    def options(run: RunResult) -> str:
        if not is_gluster(run.provenance) or not option_names:
            return ""
        shown = [f"{n}={describe_option_value(run.provenance, n)}" for n in option_names[:2]]
        more = len(option_names) - 2
        return ", ".join(shown) + (f" +{more} options" if more > 0 else "")

    param_names = _differing_parameters(runs)

    def params(run: RunResult) -> str:
        return " ".join(f"{k}={_param(run.provenance.parameters, k)}" for k in param_names[:2])

    dims: list[Callable[[RunResult], str]] = [run_series, _client, _layout, _gluster, options, _kernel, params]
    # what differs, in this order, until the labels tell every run apart
    per_run: list[list[str]] = [[] for _ in runs]
    used = 0
    for dim in dims:
        if used == max_parts or len({" · ".join(p) for p in per_run}) == len(runs):
            break
        values = [dim(r) for r in runs]
        if len({v for v in values if v}) < 2:
            continue
        for parts, v in zip(per_run, values):
            if v:
                parts.append(v)
        used += 1
    # a run none of the differences applies to is named by what it measured
    labels = [" · ".join(parts) or run_series(r) for parts, r in zip(per_run, runs)]
    # nothing recorded tells them apart (or the parts shown do not): the date, then the id
    for extra in (_when, lambda r: r.run_id[:6]):
        counts: dict[str, int] = {}
        for label in labels:
            counts[label] = counts.get(label, 0) + 1
        labels = [f"{label} · {extra(r)}" if label and counts[label] > 1 else (label or extra(r))
                  for label, r in zip(labels, runs)]
    return labels


def _param(parameters: dict[str, Any], key: str) -> str:
    v = parameters.get(key, "")
    return v if isinstance(v, str) else json.dumps(v)


def _differing_parameters(runs: Sequence[RunResult]) -> list[str]:
    names = sorted({k for r in runs for k in r.provenance.parameters})
    return [k for k in names if len({_param(r.provenance.parameters, k) for r in runs}) > 1]


def describe_layout(layout: dict[str, Any]) -> str:
    """'replica 3 × 2 (6 bricks)', 'disperse 6 redundancy 2', 'distribute 4', or '' when unknown."""
    if not layout:
        return ""
    bricks = layout.get("bricks") or []
    n = len(bricks) if isinstance(bricks, list) else 0
    replica, disperse = layout.get("replica"), layout.get("disperse")
    if disperse:
        text = f"disperse {disperse}"
        if layout.get("redundancy"):
            text += f" redundancy {layout['redundancy']}"
        sets = n // disperse if n else 0
    elif replica and replica > 1:
        text = f"replica {replica}"
        if layout.get("arbiter"):
            text += f" arbiter {layout['arbiter']}"
        sets = n // replica if n else 0
    else:
        text, sets = f"distribute {n}" if n else str(layout.get("type", "")), 0
    if sets > 1:
        text += f" × {sets}"
    if n and not text.startswith("distribute"):
        text += f" ({n} bricks)"
    return text
