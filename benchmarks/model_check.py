"""The throughput model against the gluster sandbox: calibrate, predict, measure, compare.

1. ``brickyard probe`` measures each brick filesystem (dd alone, then all at once) and the
   client→server TCP throughput, before anything is provisioned.
2. A campaign provisions, measures (dd, one file vs N files, write and read) and tears down four
   layouts of the same bricks: distribute (the calibration layout), disperse, distributed-disperse
   and distributed-replicate (the write-up's four, sized to the 4-node lab).
3. The model is calibrated on the probe run plus the calibration layout's runs only, then
   predicts the three other layouts; each measured point (median over repeats) is printed beside
   its prediction: layout, direction, single/concurrent, block, predicted, measured, error, the
   binding bound. The calibration layout's own rows are printed too, marked "fit" (not a test).

Prints figures and, beside each target, the goal's own (issue 23: the share within 25 % and the
share inside the stated range, writes and reads apart, against 90 %; the calibration's run-to-run
spread against the 15 % the full goal needs; whether the misses go one way — a bias — or both);
whether they meet it (``core.modelgoal.judge``); asserts nothing
(``tests/e2e/test_model_check_lab.py`` runs ``--size ci --alpha 0.01`` under CI: probe, distribute
without client io-threads, 4 × replica 2 predicted, one block size, 1, 2 and 4 files: 6 figures).

A calibration that spreads more than 15 % run to run cannot back the 25 % goal, so the check
measures again first: ``--rounds N`` runs the campaign up to N times (ci: 2) while the
calibration's figures spread more than that, another round only where the time so far plus the
round's time half again stays within ``--budget`` (ci: 150 s); the first quiet round is judged,
else the steadiest (rounds pooled mix the machine's drift between them into the spread). It prints the seconds of each phase (the probe, each campaign step), each
round's spread and load, and ``core.modelgoal.resolution``: by how much a wrong model would have
had to be off for these measurements to fail it.
Run as root with a lab up (``brickyard lab up 4``):

    .venv/bin/python benchmarks/model_check.py --lab-dir /var/lib/brickyard-lab
    # again on what a previous run stored (no new measurements)
    .venv/bin/python benchmarks/model_check.py --db sqlite:////tmp/h.sqlite3 --probe RUN --campaign ID
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CALIBRATION_LAYOUT = "dt8"
SECOND_CALIBRATION = ("dt8", "dt2dp4rd1")
LAYOUTS = [
    {"name": "dt8", "type": "distribute"},
    {"name": "dp8rd2", "type": "disperse", "disperse": 8, "redundancy": 2, "force": True},
    {"name": "dt2dp4rd1", "type": "distributed-disperse", "disperse": 4, "redundancy": 1},
    {"name": "dt4rp2", "type": "distributed-replicate", "replica": 2},
]
# the write-up's volume options (caches off: the client's cache would measure memory)
OPTIONS = {"performance.write-behind": "off", "performance.read-ahead": "off",
           "performance.cache-invalidation": "on"}
#: (probe params, dd params, repeats): full for the printed figures, small for the CI test
SIZES = {
    "full": ({"disk_size": "128M", "tcp_bytes": "256M", "repeats": "3"},
             {"block_sizes": "1M,4M,16M", "concurrency": "1,8", "size": "32M", "direction": "both"}, 3),
    "small": ({"disk_size": "32M", "tcp_bytes": "64M", "repeats": "1"},
              {"block_sizes": "1M,4M", "concurrency": "1,4", "size": "16M", "direction": "both"}, 2),
}
#: the CI loop: one block size (at 1 MiB and more the model's figure does not depend on it, so a
#: second one only measured the same figure twice) in steps twice as long as ``small``'s — a
#: 16 MiB file took 0.2 s, mostly the scheduler's scatter at load — and 1, 2 and 4 files
SIZES["ci"] = ({"disk_size": "32M", "tcp_bytes": "64M", "repeats": "1"},
               {"block_sizes": "4M", "concurrency": "1,2,4", "size": "32M", "direction": "both"}, 2)
#: how often the calibration layout runs, interleaved with the others (its own noise is then
#: measured across the campaign, not only back to back): dt8, A, dt8-2, B, dt8-3, C
INTERLEAVE = {"full": 3, "small": 2, "ci": 1}


#: what the calibration layout's even copies change: glusterd turns client io-threads off on the
#: replicated layouts it creates, and what a client without them moves depends on how busy the
#: machine is (core/client_options.py): measured beside the other layouts, on the same bricks
NO_IO_THREADS = {"performance.client-io-threads": "off"}


def interleaved(layouts: list[dict], calibration: str, times: int) -> list[dict]:
    """``layouts`` with the calibration layout run ``times`` times, spread between the others
    (``campaign.specwrite.interleave``, what ``brickyard campaign FILE --interleave NAME`` runs:
    copies named NAME-2, NAME-3 …, the same layout of the same bricks; here the even ones
    without client io-threads, so the calibration measures what that costs at the campaign's load)."""
    from brickyard.campaign.specwrite import interleave

    if times < 2:
        return layouts
    return interleave({"layouts": layouts}, calibration, times,
                      lambda k: NO_IO_THREADS if k % 2 == 0 else {})["layouts"]


def calibration_copies(names: list[str], calibration: str) -> tuple[str, ...]:
    from brickyard.campaign.specwrite import copies_of

    return copies_of(names, calibration)


#: rounds at most (``measure``) and the wall-time budget another round must fit in: the CI loop
#: may re-measure a noisy calibration once where a second round still fits in about 2.5 minutes
#: (2026-11-27 at load 12-17: probe 31 s, rounds of 69 and 76 s; 177 s with both)
ROUNDS = {"full": 1, "small": 1, "ci": 2}
BUDGET = {"full": 3600.0, "small": 900.0, "ci": 150.0}

LARGE = 1 << 20
GOAL = 0.25


def cli(*argv: str) -> dict:
    """A ``brickyard`` command with --json; its JSON document (exit 0 or 1: measured, with flags)."""
    env = {**os.environ, "BRICKYARD_QUIET": "1"}
    done = subprocess.run([sys.executable, "-m", "brickyard.cli", *argv, "--json"], env=env,
                          capture_output=True, text=True)
    if done.returncode not in (0, 1) or not done.stdout.strip():
        raise SystemExit(f"brickyard {argv[0]} failed (exit {done.returncode}): {done.stderr[-3000:]}")
    return json.loads(done.stdout)


def probe(lab: Path, db: str, size: str) -> str:
    """``brickyard probe`` of the lab's bricks and links, saved in ``db``: its run id."""
    probe_params, _dd, _repeats = SIZES[size]
    topo, ssh = str(lab / "topology.brickyard.json"), str(lab / "ssh_config")
    argv = ["probe", topo, "--ssh-config", ssh, "--save", "--db", db]
    for k, v in probe_params.items():
        argv += ["--param", f"{k}={v}"]
    return cli(*argv)["run_id"]


def campaign_round(lab: Path, db: str, size: str, layouts: list[dict]) -> str:
    """One campaign of ``layouts`` (provision, dd, tear down each): its id."""
    _probe, dd_params, repeats = SIZES[size]
    topo, ssh = str(lab / "topology.brickyard.json"), str(lab / "ssh_config")
    spec = {"format_version": 1, "name": f"model check ({size})",
            "description": "benchmarks/model_check.py: the throughput model's layouts, measured",
            "topology": topo, "options": OPTIONS, "layouts": layouts,
            "workloads": [{"workload": "dd", "params": dd_params}], "repeats": repeats, "on_failure": "retry"}
    with tempfile.TemporaryDirectory(prefix="brickyard-modelcheck.") as folder:
        path = Path(folder) / "model-check.campaign.json"
        path.write_text(json.dumps(spec, indent=1))
        campaign = cli("campaign", str(path), "--yes", "--topology", topo, "--ssh-config", ssh, "--db", db)
    if "campaign_id" not in campaign:
        raise SystemExit(f"the campaign did not run: {json.dumps(campaign)[:3000]}")
    return campaign["campaign_id"]


def measure(lab: Path, db: str, size: str, layouts: list[dict], calibrate_on: tuple[str, ...], rounds: int,
            budget: float) -> tuple[str, list[dict], float, dict]:
    """Probe, then the campaign — again (a *round*) while the calibration's figures spread more
    than ``calibration_noise.NOISY`` run to run, at most ``rounds`` rounds, and another only
    where the time so far plus the last round's half again stays within ``budget`` seconds: a slow spell
    of the machine may pass. Returns (probe run id, the rounds — each its campaign id, seconds,
    the calibration's spread and the load after it —, wall seconds, the seconds each phase took:
    the probe, then each campaign step's, in order, a round's keys prefixed ``rN ``)."""
    from brickyard.core.calibration_noise import noisy

    t0 = time.monotonic()
    probe_run = probe(lab, db, size)
    phases = {"probe": time.monotonic() - t0}
    done: list[dict] = []
    while True:
        t1 = time.monotonic()
        campaign = campaign_round(lab, db, size, layouts)
        seconds = time.monotonic() - t1
        spread = analyse(db, probe_run, campaign, calibrate_on)["spread"]
        done.append({"campaign_id": campaign, "seconds": seconds, "spread": spread, "load_after": os.getloadavg()})
        prefix = "" if rounds == 1 else f"r{len(done)} "
        phases.update({prefix + k: v for k, v in step_seconds(db, campaign).items()})
        elapsed = time.monotonic() - t0
        # another round only where one half again as slow still fits: at load 6-32 a second
        # round took 139 s after a first of 63
        if not noisy(spread) or len(done) >= rounds or elapsed + 1.5 * seconds > budget:
            return probe_run, done, elapsed, phases


def judged_campaigns(rounds: list[dict]) -> str:
    """What the check judges of ``measure``'s rounds: the first round whose calibration was
    quiet (its predictions measured in the same quiet spell); else the steadiest one. Not every
    round pooled: the same point measured a minute apart differs by the machine's drift as well,
    and pooled it widened the spread past either round's (22 % and 48 % at load 6-32 gave 128 %,
    ranges that would not have failed a model 4 × off). The choice reads only the calibration's
    spread, never a prediction's error."""
    from brickyard.core.calibration_noise import noisy

    quiet = [r for r in rounds if not noisy(r["spread"])]
    return (quiet[0] if quiet else min(rounds, key=lambda r: r["spread"]))["campaign_id"]


def step_seconds(db: str, campaign_id: str) -> dict[str, float]:
    """Each step of a stored campaign (pre-flight, provision, cell, teardown of each layout) and
    the seconds it took, in order."""
    from brickyard.campaign.results import stored_campaign
    from brickyard.campaign.state import campaign_steps
    from brickyard.store import HistoryStore

    store = HistoryStore(db)
    try:
        _record, spec, state = stored_campaign(store, campaign_id)
        return {s.key: state.step(s.key).seconds for s in campaign_steps(spec) if state.step(s.key).seconds is not None}
    finally:
        store.close()


def _campaign_runs(store, campaign_id: str) -> tuple[object, list[str]]:
    """The spec and the measuring runs of one stored campaign, or of several (ids joined by
    commas: the rounds of one check, the same layouts each time — a layout's runs pooled)."""
    from brickyard.campaign.results import stored_campaign
    from brickyard.campaign.state import campaign_steps

    ids: list[str] = []
    spec = None
    for cid in campaign_id.split(","):
        _record, spec, state = stored_campaign(store, cid)
        ids += [state.step(s.key).run_id for s in campaign_steps(spec) if s.measures and state.step(s.key).run_id]
    return spec, ids


def analyse(db: str, probe_run: str, campaign_id: str, calibrate_on: tuple[str, ...] = (CALIBRATION_LAYOUT,),
            min_block: int = LARGE) -> dict:
    """The model calibrated on the probe run and the runs of the layouts ``calibrate_on``,
    each measured point of the campaign(s) beside its prediction (``core.modelgoal.analyse_runs``)."""
    from brickyard.core.modelgoal import analyse_runs
    from brickyard.store import HistoryStore
    from brickyard.store.calibrate import run_topology

    store = HistoryStore(db)
    try:
        spec, ids = _campaign_runs(store, campaign_id)
        runs = store.load_runs(ids)
        probe = store.load_run(probe_run)
        try:
            return analyse_runs(probe, runs, run_topology(store, spec.topology), calibrate_on, min_block)
        except ValueError as exc:
            raise SystemExit(f"campaign {campaign_id[:12]}: {exc}") from None
    finally:
        store.close()


def export(db: str, probe_run: str, campaign_id: str, path: str, load: dict | None = None) -> None:
    """The probe and the campaign's runs with their topology snapshots, as one JSON file:
    what tests/campaign/test_modelgoal.py replays (recorded figures, today's model)."""
    from brickyard.store import HistoryStore
    from brickyard.store.codec import run_to_dict

    store = HistoryStore(db)
    try:
        spec, ids = _campaign_runs(store, campaign_id)
        runs = [store.load_run(probe_run), *store.load_runs(ids)]
        snapshots = {r.run_id: store.topology_snapshot(r.run_id) for r in runs}
    finally:
        store.close()
    doc = {"format_version": 1, "probe_run": probe_run, "campaign_id": campaign_id,
           "layouts": [v.name for v in spec.layouts], "load_average": load or {"after": os.getloadavg()},
           "runs": [run_to_dict(r) for r in runs], "topologies": sorted({t for t in snapshots.values() if t})}
    texts = doc["topologies"]
    doc["topology_of"] = {rid: texts.index(t) for rid, t in snapshots.items() if t}
    Path(path).write_text(json.dumps(doc, separators=(",", ":")))


def print_table(result: dict) -> None:
    from brickyard.core.units import format_block_size, format_rate

    print(result["model"])
    for name, v in result["parameters"].items():
        print(f"  {v['source']:9s} {name:28s} {v.get('note', '')}")
    print()
    head = ("layout", "direction", "files", "block", "predicted", "measured (median)", "error", "range",
            "binding bound", "")
    lines = [head]
    for r in result["rows"]:
        files = "single" if r["concurrency"] == 1 else f"{r['concurrency']} concurrent"
        block = format_block_size(r["block_size"]) if r["block_size"] else "large"
        lines.append((r["layout"], r["direction"], files, block, format_rate(r["predicted_bps"]),
                      f"{format_rate(r['measured_bps'])} (n={r['repeats']})", f"{r['error'] * 100:+.0f} %",
                      f"{format_rate(r['low_bps'])} … {format_rate(r['high_bps'])}", r["bound"], "fit, not a test" if r["fit"] else ("" if abs(r["error"]) <= GOAL else "> 25 %")))
    widths = [max(len(str(line[i])) for line in lines) for i in range(len(head))]
    for line in lines:
        print("  ".join(str(c).ljust(w) if i not in (4, 5, 6) else str(c).rjust(w)
                        for i, (c, w) in enumerate(zip(line, widths))).rstrip())
    if result["tested"]:
        print(f"\npredicted layouts: {result['within_goal']} of {result['tested']} figures (blocks ≥ 1 MiB) within "
              f"{GOAL:.0%}; error median {result['median_error']:.0%}, worst {result['worst_error']:.0%}; "
              f"{result['inside_range']} of {result['tested']} measured figures inside the predicted range")
    for note in result["notes"]:
        print(f"note: {note}")
    for warning in result.get("warnings", ()):
        print(f"WARNING: {warning}")


def _measured_copies(db: str, campaign_id: str, wanted: tuple[str, ...]) -> tuple[str, ...]:
    """Of the calibration layout's names, those the stored campaign measured."""
    from brickyard.campaign.results import stored_campaign
    from brickyard.store import HistoryStore

    store = HistoryStore(db)
    try:
        _record, spec, _state = stored_campaign(store, campaign_id.split(",")[0])
    finally:
        store.close()
    have = {v.name for v in spec.layouts}
    return tuple(n for n in wanted if n in have)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lab-dir", default=os.environ.get("BRICKYARD_LAB_DIR", "/var/lib/brickyard-lab"))
    p.add_argument("--db", help="history database URL (default: a new temporary SQLite file)")
    p.add_argument("--size", choices=sorted(SIZES), default="full",
                   help="full: the figures to quote; small: two predicted layouts, the calibration layout "
                        "twice; ci: the e2e test's loop — distribute without client io-threads (as glusterd "
                        "leaves a replicated volume) calibrates, 4 × replica 2 is predicted")
    p.add_argument("--alpha", type=float, metavar="P",
                   help="ask the goal's shares as binomial tests at level P (core.modelgoal.judge; the e2e test: "
                        "0.01) instead of as they stand")
    p.add_argument("--probe", help="with --campaign: a stored probe run (analyse only, measure nothing)")
    p.add_argument("--campaign", help="with --probe: a stored campaign (analyse only)")
    p.add_argument("--calibrate-on", action="append", metavar="LAYOUT",
                   help=f"the layout(s) whose runs calibrate the model beside the probe (default {CALIBRATION_LAYOUT}; "
                        "repeat to add one of another fan-out, see the README)")
    p.add_argument("--interleave", type=int, metavar="N",
                   help=f"run the calibration layout N times between the others (default: full "
                        f"{INTERLEAVE['full']}, small {INTERLEAVE['small']}, ci 1; 1: once, first)")
    p.add_argument("--rounds", type=int, metavar="N",
                   help=f"measure the campaign again while the calibration's figures spread more than 15 %% run to "
                        f"run, N rounds at most (default: full {ROUNDS['full']}, ci {ROUNDS['ci']}); the first quiet "
                        "round is judged, else the steadiest")
    p.add_argument("--budget", type=float, metavar="SECONDS",
                   help=f"start another round only while the time so far plus the last round's stays within this "
                        f"(default: ci {BUDGET['ci']:.0f} s)")
    p.add_argument("--export", metavar="FILE", help="also write the probe and the campaign's runs to FILE (JSON): "
                                                    "recorded figures for tests/campaign/test_modelgoal.py")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    args = p.parse_args(argv)
    if bool(args.probe) != bool(args.campaign):
        p.error("--probe and --campaign go together")
    db = args.db or f"sqlite:///{tempfile.mkdtemp(prefix='brickyard-modelcheck.')}/history.sqlite3"
    wall, phases = None, {}
    load_before = os.getloadavg()
    if args.campaign:
        probe, campaign = args.probe, args.campaign
        names = [lay["name"] for lay in LAYOUTS] + [f"{CALIBRATION_LAYOUT}-{i}" for i in range(2, 10)]
    else:
        layouts = {"full": LAYOUTS, "small": [LAYOUTS[0], LAYOUTS[2], LAYOUTS[3]],
                   "ci": [{**LAYOUTS[0], "options": NO_IO_THREADS}, LAYOUTS[3]]}[args.size]
        layouts = interleaved(layouts, CALIBRATION_LAYOUT, args.interleave or INTERLEAVE[args.size])
        names = [lay["name"] for lay in layouts]
    calibrate_on = tuple(args.calibrate_on or calibration_copies(names, CALIBRATION_LAYOUT))
    rounds: list[dict] = []
    if not args.campaign:
        probe, rounds, wall, phases = measure(Path(args.lab_dir), db, args.size, layouts, calibrate_on,
                                              args.rounds or ROUNDS[args.size], args.budget or BUDGET[args.size])
        campaign = judged_campaigns(rounds)
    if args.campaign and not args.calibrate_on:
        calibrate_on = _measured_copies(db, campaign, calibrate_on)
    from brickyard.core.modelgoal import goal_figures, judge, resolution

    result = {"db": db, "probe_run": probe, "campaign_id": campaign, "seconds": wall, "phases": phases,
              "rounds": rounds, "load_average": {"before": load_before, "after": os.getloadavg()},
              **analyse(db, probe, campaign, calibrate_on)}
    verdict = judge(result, alpha=args.alpha)
    result["goal"] = {"met": verdict.met, "strict": verdict.strict, "alpha": args.alpha,
                      "problems": list(verdict.problems), "words": verdict.describe(),
                      "resolution": resolution(result, alpha=args.alpha),
                      "figures": goal_figures(result, verdict)}
    if args.export:
        export(db, probe, campaign, args.export, result["load_average"])
    # the README's second table: a second layout of another fan-out lets the fit find what an
    # extra brick RPC costs (on the sandbox the servers' work lands on the client's CPUs)
    second = None
    if (not args.calibrate_on and args.size == "full"
            and _measured_copies(db, campaign, SECOND_CALIBRATION[1:]) == SECOND_CALIBRATION[1:]):
        second = analyse(db, probe, campaign, calibrate_on + SECOND_CALIBRATION[1:])
        result["with_a_second_layout"] = second
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(f"probe run {probe[:12]}, campaign {campaign[:12]} in {db}"
              + (f" (measured in {wall:.0f} s)" if wall else ""))
        before, after = result["load_average"]["before"], result["load_average"]["after"]
        print(f"load average (1/5/15 min) before {before[0]:.1f}/{before[1]:.1f}/{before[2]:.1f}, "
              f"after {after[0]:.1f}/{after[1]:.1f}/{after[2]:.1f} on {os.cpu_count()} CPUs")
        if phases:
            print("phases: " + ", ".join(f"{k} {v:.1f} s" for k, v in phases.items()))
        for i, r in enumerate(rounds, 1):
            spread = "not measured" if r["spread"] is None else f"{r['spread']:.0%}"
            print(f"round {i}: campaign {r['campaign_id'][:12]}, {r['seconds']:.0f} s, calibration spread {spread}, "
                  f"load after {r['load_after'][0]:.1f}")
        if result["goal"]["resolution"]:
            print(f"the check would have failed a model {result['goal']['resolution']:g} × too high or too low")
        else:
            print("the check would not have failed even a model 4 × too high or too low: these figures tested nothing")
        print_table(result)
        print()
        print("\n".join(result["goal"]["figures"]))
        if second is not None:
            print(f"\n--- calibrated on the probe, {' and '.join(SECOND_CALIBRATION)} (two fan-outs) ---")
            print_table(second)
    return 0


if __name__ == "__main__":
    sys.exit(main())
