"""What a report says, as plain objects built from core results and the planner (no Qt).

``ReportContent`` is the one thing both renderers (PDF, HTML) read, so the two can never
disagree on a number. It is built by one of three functions, each over the same core
objects the app's views and the CLI print:

- ``content_from_plan(topology, volume, failures)``: the planner's view of one volume
  (capacity, failures survived, commands, the throughput estimate) — nothing measured yet;
- ``content_from_runs(store, run_ids, topology)``: stored runs, grouped by the layout they
  measured (``core.decision_runs``), each layout planned on the topology saved with its runs
  or the one given;
- ``content_from_campaign(store, campaign_id)``: a campaign's completed cells beside its
  planned layouts (``campaign.results``).

Everything is a core object or text a core builder made: the decision table
(``core.decision``), plans (``core.plan``), the provenance diff and metric comparisons
(``core.compare``), series (``core.series``), run labels (the history's one builder).
Edit the title block with ``dataclasses.replace(content, title=…, author=…)``.

Building a report of many runs takes seconds (the comparisons' bootstrap above all): each
builder takes a ``progress`` (``remote.loop.Progress``) that hears how far it got and whose
``cancel()`` stops it with ``Cancelled`` between two runs or two comparisons.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
import getpass
import os
import time
from dataclasses import dataclass
from typing import Any, Sequence

from .. import __version__
from ..core.compare import Difference, MetricComparison, compare_runs, provenance_diff, repeats_by_point, run_labels
from ..core.calibration import Inputs
from ..core.decision import build_table, plan_label
from ..core.decisiontable import BASELINE, ESTIMATED, LAYOUT, PREDICTED, DecisionTable, LayoutEntry
from ..core.modelcheck import ModelCheck, check_table
from ..core.modelinputs import split_probe_runs
from ..core.plan import PlanResult, plan_volume
from ..core.results import RunResult, is_gluster_target
from ..core.runlabels import run_series
from ..core.topology import Mount, Topology, Volume
from ..core.units import format_utc
from ..remote.loop import Progress
from .sentences import headline_columns

LOAD_CHUNK = 10        # runs read from the history at a time, so progress moves and Cancel is heard


@dataclass(frozen=True)
class LayoutPlan:
    """One layout as planned: what the topology drawing and the layout section show."""

    key: str                       # its row in the decision table
    plan: PlanResult
    topology: Topology
    failures: tuple[str, ...] = ()  # the failure scenario drawn and planned ('node2', 'site:X', …)
    notes: tuple[str, ...] = ()
    mounts: tuple[Mount, ...] = ()  # where clients mounted it, from the runs (else the volume's own)


@dataclass(frozen=True)
class RunEntry:
    """A run the report is about and the table row it counts in. ``label`` names it in the
    report: its row's name when it is the row's only run (the layout, 'client1's local disk'),
    else that name and what tells it apart from the row's other runs (``run_labels``)."""

    run: RunResult
    label: str
    row_key: str = ""
    run_label: str = ""     # the history's label of the run among the report's runs


@dataclass(frozen=True)
class Comparison:
    """``other`` against ``reference``: what differs, then each metric's change."""

    reference: RunEntry
    other: RunEntry
    differences: tuple[Difference, ...]
    metrics: tuple[MetricComparison, ...]
    points_left_out: int = 0        # sweep points both measured, outside the table's block sizes


@dataclass(frozen=True)
class TrendSeries:
    """One volume's headline figure over time: (started_at, run_id, median) oldest first."""

    name: str
    points: tuple[tuple[float, str, float], ...]


@dataclass(frozen=True)
class Trend:
    title: str                      # which figure: 'write 16M × 8 files'
    series: tuple[TrendSeries, ...]


@dataclass(frozen=True)
class ReportContent:
    title: str
    subject: str                    # the cluster and volume(s): the title block's second line
    author: str
    created_at: float
    kind: str                       # "plan" | "runs" | "campaign"
    table: DecisionTable
    layouts: tuple[LayoutPlan, ...] = ()
    runs: tuple[RunEntry, ...] = ()
    comparisons: tuple[Comparison, ...] = ()
    trend: Trend | None = None
    model_check: ModelCheck | None = None     # None: no check possible and no model figure shown
    facts: tuple[tuple[str, str], ...] = ()   # title-block lines: ('campaign', 'seed004 (3fa2c1…)'), …
    notes: tuple[str, ...] = ()
    version: str = __version__

    @property
    def run_ids(self) -> tuple[str, ...]:
        return tuple(e.run.run_id for e in self.runs)


class ReportInputError(ValueError):
    """A report that cannot be made from what was asked (no such run, nothing to report)."""


def os_user() -> str:
    """Who makes the report unless told otherwise: the OS user's name."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return os.environ.get("USER", "") or "unknown"


# ---------------------------------------------------------------- from the planner


def content_from_plan(topology: Topology, volume: Volume, failures: Sequence[str] = (), *,
                      title: str = "", author: str = "", created_at: float | None = None) -> ReportContent:
    """The planner's report of one volume: its decision table holds planned capacity and
    failures and the planner's throughput estimate (marked as such); no runs. Raises
    ``core.failures.FailureSpecError`` for a failure that names nothing in the topology."""
    failures = tuple(f for f in (s.strip() for s in failures) if f)
    plan = plan_volume(topology, volume, failures)
    table = build_table([LayoutEntry(volume.name, plan, topology=topology)])
    cluster = topology.name or "topology"
    layout = LayoutPlan(volume.name, plan, topology, failures)
    notes = ("Nothing is measured yet: throughput figures are the planner's estimate.",)
    facts = [("volume", f"{volume.name} on {_nodes_words(topology, plan)}")]
    if failures:
        facts.append(("failure scenario", ", ".join(failures)))
    return ReportContent(
        title=title or f"Volume plan: {volume.name}",
        subject=f"{cluster} · volume {volume.name}",
        author=author or os_user(), created_at=time.time() if created_at is None else created_at,
        kind="plan", table=table, layouts=(layout,), facts=tuple(facts), notes=notes)


def _nodes_words(topology: Topology, plan: PlanResult) -> str:
    nodes = list(dict.fromkeys(b.node for b in plan.volume.bricks))
    sites = list(dict.fromkeys(topology.site_of(n) for n in nodes if topology.node(n) is not None))
    sites = [s for s in sites if s]
    text = f"{len(nodes)} server{'s' if len(nodes) != 1 else ''}, {len(plan.volume.bricks)} bricks"
    if len(sites) > 1:
        text += f" in {len(sites)} sites"
    return text


# ---------------------------------------------------------------- from stored runs


def content_from_runs(store: Any, run_ids: Sequence[str], topology: Topology | None = None, *,
                      title: str = "", author: str = "", created_at: float | None = None,
                      progress: Progress | None = None) -> ReportContent:
    """A report of stored runs (``store`` a ``HistoryStore``; full ids), grouped by the layout
    they measured, each layout planned on ``topology`` when it holds its bricks, else on the
    topology saved with its runs, else on the bricks alone (capacity then unknown, said so).
    Raises ``store.StoreError`` for a run that is not stored."""
    from ..core import topofile
    from ..core.decision_runs import entries_from_runs, volume_of_run

    if not run_ids:
        raise ReportInputError("no runs to report on")
    progress = progress or Progress()
    ids = list(dict.fromkeys(run_ids))
    runs = []
    for i in range(0, len(ids), LOAD_CHUNK):
        progress.check()
        progress.set_progress(0.25 * i / len(ids), f"reading runs from the history: {i} of {len(ids)}")
        runs += store.load_runs(ids[i:i + LOAD_CHUNK])
    progress.set_progress(0.25, f"grouping {len(runs)} runs by the layout they measured")

    def topo_of(run: RunResult) -> Topology | None:
        vol = volume_of_run(run)
        if topology is not None and vol is not None and all(topology.brick(b) is not None for b in vol.bricks):
            return topology
        text = store.topology_snapshot(run.run_id)
        try:
            return topofile.loads(text) if text else topology
        except topofile.TopologyFileError:
            return topology
    others, probes, extra, _problems = split_probe_runs(runs, topo_of)   # probes calibrate every prediction
    entries = entries_from_runs(others, topo_of)
    table = build_table(entries)
    volumes = [e.plan.volume.name for e in entries if e.plan is not None]
    targets = [e.key for e in entries if e.kind == BASELINE]
    names = list(dict.fromkeys(volumes))       # one volume re-created with other layouts: named once
    what = ", ".join((names if len(names) == len(volumes) else [f"{len(volumes)} layouts of {_short_list(names)}"])
                     + targets)
    default_title = (f"GlusterFS layouts compared: {what}" if len(volumes) > 1
                     else f"Benchmark report: {what}")
    hosts = sorted({h for r in runs for h in r.provenance.hosts})
    facts = [("runs", f"{len(runs)} ({', '.join(sorted({r.workload for r in runs}))})")]
    if hosts:
        facts.append(("hosts", _short_list(hosts)))
    return _assemble(
        entries, table, runs, store, kind="runs",
        title=title or _clip(default_title, 90),
        subject=_subject(entries, topology), author=author, created_at=created_at, facts=facts, progress=progress,
        model_inputs=extra, probes=[f"probe run {r.run_id[:12]}" for r in probes] if not extra.empty else [])


def _subject(entries: Sequence[LayoutEntry], topology: Topology | None) -> str:
    names = [t.name for t in [topology, *(e.topology for e in entries)] if t is not None and t.name]
    cluster = names[0] if names and names[0] != "from run provenance" else ""
    layouts = [e.key for e in entries if e.kind == LAYOUT]
    parts = [cluster] if cluster else []
    if layouts:
        parts.append(("volume " if len(layouts) == 1 else "volumes ") + _short_list(layouts))
    baselines = [e.label or e.key for e in entries if e.kind == BASELINE]
    if baselines:
        parts.append(_short_list(baselines))
    return " · ".join(parts) or "stored runs"


# ---------------------------------------------------------------- from a campaign


def content_from_campaign(store: Any, campaign_id: str, *, title: str = "", author: str = "",
                          created_at: float | None = None, progress: Progress | None = None) -> ReportContent:
    """A campaign's report: every layout planned on the campaign's topology beside the runs
    that completed its cells. Raises ``store.StoreError`` for an unknown id and
    ``campaign.CampaignFileError`` when the stored file no longer loads."""
    from ..campaign.results import campaign_entries, counted_stored_runs, stored_campaign

    progress = progress or Progress()
    progress.set_progress(0.0, "reading the campaign and its runs from the history")
    record, spec, state = stored_campaign(store, campaign_id)
    runs = counted_stored_runs(spec, state, store)
    progress.check()
    progress.set_progress(0.25, f"planning {len(spec.layouts)} layouts")
    entries = campaign_entries(spec, state, runs)
    table = build_table(entries)
    counts = state.counts()
    done = ", ".join(f"{n} {word}" for word, n in counts.items() if n)
    cluster = spec.topology.name or "topology"
    facts = [("campaign", f"{spec.name} (id {record.campaign_id[:12]}), {record.status}"),
             ("steps", done or "none"),
             ("layouts", f"{len(spec.layouts)} on the same {len(spec.layouts[0].bricks) if spec.layouts else 0} "
                         f"bricks"),
             ("workloads", ", ".join(f"{w.workload}" + (f" ({w.id})" if w.id != w.workload else "")
                                     for w in spec.workloads))]
    if spec.source.startswith("<"):         # put together in the window, never saved as a file
        facts.append(("set up", "in the Campaign tab of the window (not saved as a campaign file)"))
    elif spec.source:
        facts.append(("file", spec.source))
    notes = tuple(spec.notes)
    if record.status != "complete":
        notes += (f"The campaign is {record.status}: the table holds the cells it completed.",)
    return _assemble(
        entries, table, runs, store, kind="campaign",
        title=title or _clip(f"GlusterFS layout decision: {spec.name}", 90),
        subject=f"{cluster} · {len(spec.layouts)} layouts: {_short_list([v.name for v in spec.layouts])}",
        author=author, created_at=created_at, facts=facts, notes=notes, progress=progress)


# ---------------------------------------------------------------- shared


def _assemble(entries: Sequence[LayoutEntry], table: DecisionTable, runs: Sequence[RunResult], store: Any, *,
              kind: str, title: str, subject: str, author: str, created_at: float | None,
              facts: Sequence[tuple[str, str]], notes: Sequence[str] = (),
              progress: Progress | None = None, model_inputs: Inputs = Inputs(),
              probes: Sequence[str] = ()) -> ReportContent:
    progress = progress or Progress()
    progress.check()
    row_of = {r.run_id: e.key for e in entries for r in e.runs}
    name_of = {e.key: (e.label or e.key) if e.kind == BASELINE else e.key for e in entries}
    size_of = {e.key: len(e.runs) for e in entries}
    order = [r for e in entries for r in e.runs]               # the table's row order
    order += [r for r in runs if r.run_id not in row_of]       # runs no row counts (none today)
    labels = run_labels(order) if order else []

    def entry(run: RunResult, label: str) -> RunEntry:
        key = row_of.get(run.run_id, "")
        if not key:
            return RunEntry(run, label, key, label)
        if size_of[key] == 1:
            return RunEntry(run, name_of[key], key, label)
        # what the row's name says already is not said again ('gv0 (replica 3 (3 bricks)) ·
        # gluster gv0 · replica 3 (3 bricks) · 2025-10-09 12:53' → 'gv0 (…) · 2025-10-09 12:53')
        said = name_of[key]
        rest = [p for p in label.split(" · ") if p != run_series(run) and p not in said]
        return RunEntry(run, " · ".join([said, *(rest or [format_utc(run.started_at)])]), key, label)

    entries_by_id = {r.run_id: entry(r, label) for r, label in zip(order, labels)}
    run_entries = tuple(entries_by_id[r.run_id] for r in order)
    layouts = tuple(LayoutPlan(e.key, e.plan, e.topology if e.topology is not None else Topology(), (), e.notes,
                               run_mounts(e.runs))
                    for e in entries if e.plan is not None)
    all_notes = list(notes)
    for e in entries:
        all_notes.extend(f"{e.label or e.key}: {n}" for n in e.notes)
    return ReportContent(
        title=title, subject=subject, author=author or os_user(),
        created_at=time.time() if created_at is None else created_at, kind=kind, table=table,
        layouts=layouts, runs=run_entries, comparisons=comparisons(run_entries, table, progress),
        trend=_trend(store, table, entries, progress),
        model_check=model_check(table, entries, model_inputs, probes),
        facts=tuple(facts), notes=tuple(dict.fromkeys(all_notes)))


def model_check(table: DecisionTable, entries: Sequence[LayoutEntry], extra: Inputs = Inputs(),
                probes: Sequence[str] = ()) -> ModelCheck | None:
    """The report's model check (``core.modelcheck.check_table``); None when none is possible
    and the table shows no figure of the model either (runs of one layout: nothing to say)."""
    check = check_table(table, entries, extra, probes)
    if not check.why_not:
        return check
    shown = any(r.kind == LAYOUT and r.figure(c.key).source in (ESTIMATED, PREDICTED)
                for c in table.columns if c.group == "throughput" for r in table.rows)
    return check if shown else None


def run_mounts(runs: Sequence[RunResult]) -> tuple[Mount, ...]:
    """Where the runs reached the volume: each gluster target ('client1:/mnt/gv0'; a run on
    several clients names them with commas) once, in the runs' order. (A run records the
    kernel's options of the mount, not the ``mount -o`` words, so none are given here.)"""
    out: dict[tuple[str, str], Mount] = {}
    for run in runs:
        p = run.provenance
        if not is_gluster_target(p.target_kind):
            continue
        for target in p.target.split(","):
            client, sep, path = target.strip().partition(":")
            if sep and client and path.startswith("/"):
                out.setdefault((client, path), Mount(client, path))
    return tuple(out.values())


def _trend(store: Any, table: DecisionTable, entries: Sequence[LayoutEntry], progress: Progress) -> Trend | None:
    if store is None:
        return None
    progress.check()
    progress.set_progress(0.95, "the history trend of each volume")
    return trend(store, table, entries)


def comparisons(entries: Sequence[RunEntry], table: DecisionTable,
                progress: Progress | None = None) -> tuple[Comparison, ...]:
    """Each run against the first run of its workload and kind (for a campaign: each layout
    against the first layout; a baseline only against a baseline), as ``brickyard history
    compare FIRST OTHER`` shows it; for the table's workload only at the table's block sizes
    (the full sweep is in the appendix)."""
    firsts: dict[tuple[str, str], RunEntry] = {}
    out = []
    keep = set(table.block_sizes)
    kind_of = {r.key: r.kind for r in table.rows}
    progress = progress or Progress()
    for n, e in enumerate(entries):          # a baseline against a baseline, a layout against a layout
        ref = firsts.setdefault((e.run.workload, kind_of.get(e.row_key, LAYOUT)), e)
        if ref is e:
            continue
        progress.check()
        progress.set_progress(0.3 + 0.65 * n / len(entries), f"comparing run {n + 1} of {len(entries)} "
                                                              f"with the first of its kind")
        a, b = ref.run, e.run
        left_out = 0
        if keep and b.workload == table.workload:      # the bootstrap is the cost: only the points shown
            both = set(repeats_by_point(a, "throughput")) & set(repeats_by_point(b, "throughput"))
            a, b = _at_sizes(a, keep), _at_sizes(b, keep)
            left_out = len(both) - len(set(repeats_by_point(a, "throughput")) & set(repeats_by_point(b, "throughput")))
        metrics = compare_runs(a, b, ("throughput",))
        out.append(Comparison(ref, e, tuple(provenance_diff([ref.run, e.run])), tuple(metrics), left_out))
    return tuple(out)


def _at_sizes(run: RunResult, sizes: set[int]) -> RunResult:
    """The run with only the steps at these block sizes (and those without one)."""
    steps = [s for s in run.steps if not isinstance(s.params.get("block_size"), int) or s.params["block_size"] in sizes]
    return dataclasses.replace(run, steps=steps)


def trend(store: Any, table: DecisionTable, entries: Sequence[LayoutEntry]) -> Trend | None:
    """The headline figure (the table's concurrent column at its largest block size) of every
    stored run of each volume in the table, over time; None when no volume has two runs."""
    from ..store.history import RunFilter

    _, many = headline_columns(table)
    if many is None or not table.workload or not many.params.get("block_size"):
        return None
    p = many.params
    series = []
    layouts = [e for e in entries if e.kind == LAYOUT and e.plan is not None]
    names = Counter(e.plan.volume.name for e in layouts)
    for e in layouts:
        name = e.plan.volume.name
        # one volume name re-created with other layouts: a line per layout, not one zig-zag of all
        shared = names[name] > 1
        filters = RunFilter(volume=name, workload=table.workload, layout=plan_label(e.plan) if shared else "")
        points = store.metric_trend("throughput", block_size=p["block_size"], concurrency=p["concurrency"],
                                    direction=p["direction"], filters=filters)
        if points:
            series.append(TrendSeries(e.key if shared else f"volume {name}",
                                      tuple((p.started_at, p.run_id, p.value) for p in points)))
    if not any(len(s.points) > 1 for s in series):
        return None
    return Trend(many.title, tuple(series))


def _short_list(names: Sequence[str], limit: int = 6) -> str:
    names = list(names)
    return ", ".join(names) if len(names) <= limit else ", ".join(names[:limit]) + f" and {len(names) - limit} more"


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


__all__ = ["Comparison", "LayoutPlan", "ReportContent", "ReportInputError", "RunEntry", "Trend", "TrendSeries",
           "content_from_campaign", "content_from_plan", "content_from_runs", "os_user"]
