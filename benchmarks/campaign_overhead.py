"""Campaign overhead, printed (no asserts): campaign wall time ÷ the sum of its runs' own times
(target ≤ 1.1 for 1-minute cells), and what the rest is. A resumed campaign counts every
session, a killed one up to its last recorded activity.

"A run's own time" is what a `brickyard bench` run of the cell would take: the run's start to
its end (agents up, provenance, the measured steps, cleanup). Everything else the campaign
spends is named: pre-flight, provisioning and teardown of each layout (gluster's own work:
probes, volume create/start/stop/delete, mounts), and what a cell costs around its run
(loading the workload, history writes, state saves, the host lease). Inside the runs, the
time in measured steps (first worker start → last worker end) is printed beside the run's
own time, so the harness's share is visible too.

    # run the sandbox example on a lab and analyse it (takes a few minutes)
    .venv/bin/python benchmarks/campaign_overhead.py --lab-dir /var/lib/brickyard-lab
    # analyse a campaign already in a history database
    .venv/bin/python benchmarks/campaign_overhead.py --db sqlite:////tmp/h.sqlite3 --campaign 3fa2c1
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "resources" / "examples" / "seed004-sandbox.campaign.json"


# a provisioning or teardown step as the CLI logs it: "    [16/19] node1: create volume dt8: done [2.7 s]"
STEP_LINE = re.compile(r"^\s+\[\d+/\d+\] (?P<host>[^:]+): (?P<title>.*): (?:done|already done)(?: \(.*\))? "
                       r"\[(?P<secs>[\d.]+) s\]$")
LAYOUT_LINE = re.compile(r"^\[\d+/\d+\] (?P<what>provision|tear down) (?P<layout>\S+): running")
# (what the title starts with, the name printed); gluster's own transactions marked
STEP_KINDS = (
    ("probe ", "peer probe (or its check)"), ("wait until", "peers connected (each node's view)"),
    ("create brick directory", "brick directories"), ("create volume", "volume create (glusterd)"),
    ("set ", "volume set, every option (glusterd)"), ("start volume", "volume start (glusterd)"),
    ("mount ", "mount and its read-back"), ("add ", "fstab line"),
    ("check that every client", "teardown: clients connected"), ("check that", "teardown: the volume's bricks"),
    ("unmount", "unmount and its read-back"), ("remove mount point", "mount point removed"),
    ("remove brick directory", "brick directories removed"), ("remove ", "fstab line removed"),
    ("stop volume", "volume stop (glusterd)"), ("delete volume", "volume delete (glusterd)"),
)


def step_seconds(log: str) -> tuple[dict[str, float], int]:
    """Per kind of provisioning/teardown step: seconds per layout, as the steps took them (steps
    of one kind on several hosts at once count as their longest host); and how many layouts."""
    layout = ""
    per_host: dict[tuple[str, str, str], float] = {}
    layouts: set[str] = set()
    for line in log.splitlines():
        m = LAYOUT_LINE.match(line)
        if m:
            layout = m["layout"]
            layouts.add(layout)
            continue
        m = STEP_LINE.match(line)
        if not m or not layout:
            continue
        kind = next((name for start, name in STEP_KINDS if m["title"].startswith(start)), m["title"])
        key = (layout, kind, m["host"])
        per_host[key] = per_host.get(key, 0.0) + float(m["secs"])
    longest: dict[tuple[str, str], float] = {}
    for (lay, kind, _), secs in per_host.items():
        longest[(lay, kind)] = max(longest.get((lay, kind), 0.0), secs)
    out: dict[str, float] = {}
    for (_, kind), secs in longest.items():
        out[kind] = out.get(kind, 0.0) + secs / max(len(layouts), 1)
    return out, len(layouts)


def run_campaign(args) -> tuple[str, str, float, str]:
    """Run the campaign headless (the real CLI); returns (db url, campaign id, wall seconds, its log)."""
    db = args.db or f"sqlite:///{tempfile.mkdtemp(prefix='brickyard-overhead.')}/history.sqlite3"
    lab = Path(args.lab_dir)
    env = dict(os.environ)
    env.pop("BRICKYARD_QUIET", None)        # the step lines say where provisioning's time goes
    argv = [sys.executable, "-m", "brickyard.cli", "campaign", str(args.file), "--yes", "--json",
            "--topology", str(lab / "topology.brickyard.json"), "--ssh-config", str(lab / "ssh_config"),
            "--db", db]
    t0 = time.monotonic()
    done = subprocess.run(argv, env=env, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if done.returncode not in (0, 1):
        raise SystemExit(f"the campaign failed to run (exit {done.returncode}): {done.stderr[-2000:]}")
    import json

    return db, json.loads(done.stdout)["campaign_id"], wall, done.stderr


def analyse(db: str, campaign_id: str, process_wall: float | None) -> None:
    from brickyard.campaign.results import session_spans, stored_campaign
    from brickyard.campaign.state import BASELINE, CELL, PREFLIGHT, PROVISION, TEARDOWN, campaign_steps
    from brickyard.store import HistoryStore

    store = HistoryStore(db)
    record, spec, state = stored_campaign(store, campaign_id)   # the spec and state as stored
    steps = campaign_steps(spec)
    ids = [state.step(s.key).run_id for s in steps if s.measures and state.step(s.key).run_id]
    runs = {r.run_id: r for r in store.load_runs(ids)}
    every = [rid for s in steps for rid in state.step(s.key).run_ids]      # killed attempts too
    spans = session_spans(state, store.load_runs(list(dict.fromkeys(every))))
    wall = sum(end - start for start, end, _ in spans)
    killed = [(start, end) for start, end, whole in spans if not whole]
    own = sum((r.ended_at or r.started_at) - r.started_at for r in runs.values())
    measured = 0.0
    for r in runs.values():
        for step in r.steps:
            if step.workers:
                measured += max(w.end for w in step.workers) - min(w.start for w in step.workers)
    by_kind: dict[str, float] = {}
    around_runs = 0.0
    for s in steps:
        st = state.step(s.key)
        if st.seconds is None:
            continue
        kind = {BASELINE: "cell", CELL: "cell"}.get(s.kind, s.kind)
        by_kind[kind] = by_kind.get(kind, 0.0) + st.seconds
        if s.measures and st.run_id in runs:
            r = runs[st.run_id]
            around_runs += st.seconds - ((r.ended_at or r.started_at) - r.started_at)
    steps_total = sum(by_kind.values())
    # what a killed session was doing when it was killed: the interrupted step's first try,
    # redone in the next session (the steps' saved times are the redone ones)
    lost = 0.0
    for start, end, whole in spans:
        if not whole:
            finished = [st.ended_at for st in state.steps.values() if st.ended_at and start <= st.ended_at <= end]
            lost += end - max(finished, default=start)
    layouts = len(spec.layouts)
    cells = len(ids)
    print(f"campaign {record.name} ({record.campaign_id[:12]}): {layouts} layouts, {cells} cells "
          f"({len(spec.baselines)} baseline), status {record.status}")
    if process_wall is not None:
        print(f"  process wall time (start to exit of `brickyard campaign`): {process_wall:7.1f} s")
    print(f"  campaign wall time (its sessions):                        {wall:7.1f} s"
          + (f"  ({len(spans)} sessions; {len(killed)} killed, each counted to its last recorded activity: "
             f"{sum(e - b for b, e in killed):.1f} s)" if killed else ""))
    print(f"  sum of its runs' own times (start → end of each run):     {own:7.1f} s")
    print(f"  ratio campaign ÷ runs:                                    {wall / own:7.2f}" if own else "  no runs")
    print(f"  inside the runs, measured steps (first start → last end): {measured:7.1f} s "
          f"({measured / own * 100:.0f} % of the runs' time; the rest is agents, cache drops, cleanup)"
          if own else "")
    print(f"where the rest ({wall - own:.1f} s) goes:")
    for kind, label in ((PREFLIGHT, "pre-flight (read-only checks of every host)"),
                        (PROVISION, "provisioning (peer checks, brick dirs, volume create, options, start, mount)"),
                        (TEARDOWN, "teardown (unmount, volume stop, delete, brick dirs removed)")):
        secs = by_kind.get(kind, 0.0)
        print(f"  {secs:7.1f} s  {label}: {secs / max(layouts, 1):.1f} s per layout")
    print(f"  {around_runs:7.1f} s  around the runs in cells (workload lookup, history writes, state saves)")
    if killed:
        print(f"  {lost:7.1f} s  interrupted work of the killed session (the step it was in, done again after the resume)")
    print(f"  {wall - steps_total - lost:7.1f} s  between steps (host lease, state saves, start-up)")
    fixed = sum(by_kind.get(k, 0.0) for k in (PREFLIGHT, PROVISION, TEARDOWN)) / max(layouts, 1)
    cells_per_layout = max(1, len(spec.workloads))
    print(f"fixed cost per layout (pre-flight + provisioning + teardown): {fixed:.1f} s; with {cells_per_layout} "
          f"cell(s) per layout the ratio stays ≤ 1.1 (the target) for cells of {fixed / 0.1 / cells_per_layout:.0f} s "
          f"or more; this campaign's cells took {own / max(cells, 1):.0f} s on average")
    print(f"load average now {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    store.close()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", nargs="?", default=str(EXAMPLE), help="campaign file (default: the sandbox example)")
    p.add_argument("--lab-dir", default=os.environ.get("BRICKYARD_LAB_DIR", "/var/lib/brickyard-lab"))
    p.add_argument("--db", help="history database URL (default: a new temporary SQLite file)")
    p.add_argument("--campaign", help="analyse this stored campaign instead of running one")
    args = p.parse_args()
    if args.campaign:
        if not args.db:
            raise SystemExit("--campaign needs --db")
        analyse(args.db, args.campaign, None)
        return 0
    db, cid, wall, log = run_campaign(args)
    analyse(db, cid, wall)
    kinds, layouts = step_seconds(log)
    if kinds:
        print(f"provisioning and teardown by step, seconds per layout (mean of {layouts}; steps on several "
              "hosts at once count as their longest host):")
        order = [name for _, name in STEP_KINDS]
        for kind in sorted(kinds, key=lambda k: order.index(k) if k in order else len(order)):
            print(f"  {kinds[kind]:6.2f} s  {kind}")
        own = sum(v for k, v in kinds.items() if "(glusterd)" in k)
        print(f"  gluster's own transactions (create, set, start, stop, delete): {own:.1f} s per layout "
              "(a step's seconds include its check, a gluster read, where it asks one)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
