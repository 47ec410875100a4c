"""The throughput model's loop on the real sandbox, at the smallest size that still is the loop:
``brickyard probe`` measures the bricks and TCP, a campaign measures distribute over the lab's
eight bricks (the calibration layout) and 4 × replica 2 with dd — writes and reads, one, two and
four files of 32 MiB at 4 MiB blocks, two repeats — and ``benchmarks/model_check.py --size ci``
(the script whose full run the guide quotes) calibrates on the probe plus distribute and predicts
the replicated layout: 6 figures, reads included. (It measured 1 and 4 files of 16 MiB at 1 and
4 MiB blocks before: the model's figure does not depend on the block size there, so that was
each figure twice, in steps of 0.2 s that the load's scatter dominated.)

Distribute runs without client io-threads here, as glusterd leaves every replicated volume it
creates (``core.client_options``): the aggregate it calibrates is the one a replicated client
has, so the prediction does not hang on the assumed io-threads ratio (which the full run measures
on an interleaved copy, and tests/campaign/test_modelgoal.py replays from recorded sandbox runs).

The goal (issue 23) is judged by ``core.modelgoal.judge`` with ``alpha=0.01``: each share — 90 %
of the measurements inside the stated range; 90 % of the figures within 25 % where the
calibration's figures spread at most 15 % run to run (the measure its spread warning is given
on), else the share such a spread leaves a right model, with the warning given — asked as a
binomial test, failing only where a model meeting it would show so few figures less often than 1 %
(6 figures: 2 or fewer inside the range). Every figure within ¼ … 5 ×, always.

Why the noisy branch, and what keeps it a test. On this 2-core machine shared with other
engineers the calibration layout's own figures spread 26–59 % run to run at load 14–45 (σ of ln
figure; one distribute write of 2 files ran at 233 and 60 MB/s back to back) — also with the
lab's processes at the highest CPU priority, so it is not only CPU share: the bricks are files on
the machine's one shared disk. At such a spread a right model cannot show 90 % within 25 % (the
calibration and the measurement each scatter by it), so the product says so — the calibration's
spread warning — and the ranges carry the spread. The loop re-measures first: while the
calibration spreads more than 15 %, ``model_check.py --size ci`` runs the campaign again (2
rounds at most, a second only where one half again as slow as the first still fits in 150 s) and
judges the first quiet round, else the steadiest (pooled rounds mix the machine's drift between
them into the spread: 22 % and 48 % gave 128 % at load 6–32, and that run failed here). What the noisy branch asks (the ranges, the binomial 25 % share)
widens with the noise, so a check on a noisy machine could pass a wrong model; the test
therefore also asks ``modelgoal.resolution``: the same measurements judged against predictions
and ranges f × too high and f × too low must fail for some f ≤ 4 (on a quiet machine, the strict
branch: 1.25–1.5 ×; busy, load 8–42: 1.25–4 ×). A run too noisy to fail even a model 4 × off
fails here, saying so,
rather than passing a check that tested nothing. Duration per phase, load, spread, rounds and
the branch taken are printed either way.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from brickyard.core.modelgoal import goal_figures, judge, resolution

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "model_check.py"
ALPHA = 0.01
#: a model this many times too high or too low must fail the check on these measurements (the
#: largest factor modelgoal.resolution tries: on a quiet machine it is 1.5, busy 2-4)
RESOLUTION = 4.0


def test_calibrated_on_a_probe_and_distribute_the_model_predicts_replica_2_reads_included(lab, tmp_path):
    db = f"sqlite:///{tmp_path / 'history.sqlite3'}"
    env = {**os.environ, "BRICKYARD_LOCK_DIR": str(tmp_path / "locks"), "BRICKYARD_QUIET": "1"}
    t0 = time.monotonic()
    done = subprocess.run([sys.executable, str(SCRIPT), "--size", "ci", "--alpha", str(ALPHA), "--json", "--db", db,
                           "--lab-dir", str(lab.directory)], env=env, capture_output=True, text=True, timeout=600)
    took = time.monotonic() - t0
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)
    verdict = judge(result, alpha=ALPHA)
    noise = result["parameters"]["noise_log_sigma"]
    print(f"\nmodel check loop: {took:.0f} s, load {[round(x, 1) for x in result['load_average']['before']]} before, "
          f"{[round(x, 1) for x in result['load_average']['after']]} after; {verdict.describe()}; noise {noise['note']}")
    for r in result["rows"]:
        print(f"  {'fit ' if r['fit'] else '    '}{r['layout']:7s} {r['direction']:5s} {r['concurrency']} × "
              f"{r['block_size'] >> 20} MiB: predicted {r['predicted_bps'] / 1e6:6.1f} MB/s, measured "
              f"{r['measured_bps'] / 1e6:6.1f} MB/s ({r['error']:+.0%}), range {r['low_bps'] / 1e6:.0f}–"
              f"{r['high_bps'] / 1e6:.0f}")
    print("\n".join(goal_figures(result, verdict)))
    print("phases: " + ", ".join(f"{k} {v:.1f} s" for k, v in result["phases"].items()))
    for i, r in enumerate(result["rounds"], 1):
        spread = "not measured" if r["spread"] is None else f"{r['spread']:.0%}"
        print(f"round {i}: {r['seconds']:.0f} s, calibration spread {spread}, load after {r['load_after'][0]:.1f}")
    fails_at = resolution(result, alpha=ALPHA)
    print(f"a model {fails_at:g} × too high or too low would have failed this check" if fails_at else
          "not even a model 4 × too high or too low would have failed this check")
    assert result["model"].startswith("predicted (calibrated on probe ")
    assert {c.split(" run ")[0] for c in result["calibrated_on"] if " run " in c} == {"dt8"}
    # what the probe measured calibrates the model, not only the layout's runs
    measured = {k.split("@")[0] for k, v in result["parameters"].items() if v["source"] == "measured"}
    # a probed rate a layout's figure exceeded is raised to carry it (and says so): still the probe's
    probed = measured | {k.split("@")[0] for k, v in result["parameters"].items()
                         if v["source"] == "fitted" and "raised from measured" in v["note"]}
    assert {"brick_bps.write", "node_link_bps", "client_link_bps"} <= probed and "noise_log_sigma" in measured
    # the run-to-run spread was measured (repeats), not assumed, and it is what the branch reads
    assert "run-to-run spread" in noise["note"] and "unknown" not in noise["note"]
    assert result["spread"] is not None and f"spread {result['spread']:.0%}" in noise["note"]
    assert verdict.strict == (not any("spread" in w for w in result["warnings"]))
    # the fitted client aggregate is that of a client without io-threads: no ratio to assume on top
    assert any("client_bps" in k and v["source"] == "fitted" for k, v in result["parameters"].items())
    assert any("run on the client's own kernel" in n for n in result["notes"]), result["notes"]
    tested = [r for r in result["rows"] if not r["fit"]]
    points = {(r["layout"], r["direction"], r["concurrency"], r["block_size"]) for r in tested}
    assert points == {("dt4rp2", d, n, 1 << 22) for d in ("write", "read") for n in (1, 2, 4)}
    assert 1 <= len(result["rounds"]) <= 2
    assert result["goal"]["met"] == verdict.met
    assert verdict.met, verdict.describe()
    # the check could have failed a wrong model: on a noisy machine the ranges it asks widen
    assert result["goal"]["resolution"] == fails_at
    assert fails_at is not None and fails_at <= RESOLUTION, (
        f"the machine was too noisy for this check to fail a model {RESOLUTION:g} × off (calibration spread "
        f"{result['spread']:.0%}, load {result['load_average']['after'][0]:.1f}): it tested nothing")
