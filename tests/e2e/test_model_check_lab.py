"""The throughput model's loop on the real sandbox, small: ``brickyard probe`` measures the
bricks and TCP, a campaign measures distribute (the calibration layout, run twice: first, and
again without client io-threads between the others, as glusterd leaves a replicated volume),
2 × disperse 3+1 and 4 × replica 2 with dd — writes and reads, one file and four, 1 MiB and
4 MiB blocks, two repeats — and ``benchmarks/model_check.py`` (the script whose full run the
guide quotes) calibrates on the probe plus both distribute runs and predicts the other two
layouts: 16 figures, reads included.

The goal (issue 23) is judged by ``core.modelgoal.judge``: at least 90 % of the measurements
inside the range the model states, always; at least 90 % of the predicted figures within 25 %
where the calibration measured its own spread at most 15 % (σ of ln figure), and on a machine
busier than that a third, with the spread warned about; every figure within ¼ … 5 ×. Both
branches are unit-tested on recorded sandbox figures (tests/core/test_modelgoal.py): the
strict one is what a quiet machine asks here. The load, the spread and the branch taken are
printed either way.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from brickyard.core.modelgoal import judge

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "model_check.py"


def test_calibrated_on_a_probe_and_distribute_the_model_predicts_two_other_layouts_reads_included(lab, tmp_path):
    db = f"sqlite:///{tmp_path / 'history.sqlite3'}"
    env = {**os.environ, "BRICKYARD_LOCK_DIR": str(tmp_path / "locks"), "BRICKYARD_QUIET": "1"}
    t0 = time.monotonic()
    done = subprocess.run([sys.executable, str(SCRIPT), "--size", "small", "--json", "--db", db,
                           "--lab-dir", str(lab.directory)], env=env, capture_output=True, text=True, timeout=600)
    took = time.monotonic() - t0
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)
    verdict = judge(result)
    noise = result["parameters"]["noise_log_sigma"]
    print(f"model check loop: {took:.0f} s, load {result['load_average']}; {verdict.describe()}; noise {noise['note']}")
    assert result["model"].startswith("predicted (calibrated on probe ")
    # the calibration layout ran twice, interleaved with the others: both runs calibrate
    assert {c.split(" run ")[0] for c in result["calibrated_on"] if " run " in c} == {"dt8", "dt8-2"}
    # what the probe measured calibrates the model, not only the layout's runs
    measured = {k.split("@")[0] for k, v in result["parameters"].items() if v["source"] == "measured"}
    # a probed rate a layout's figure exceeded is raised to carry it (and says so): still the probe's
    probed = measured | {k.split("@")[0] for k, v in result["parameters"].items()
                         if v["source"] == "fitted" and "raised from measured" in v["note"]}
    assert {"brick_bps.write", "node_link_bps", "client_link_bps"} <= probed and "noise_log_sigma" in measured
    # the run-to-run spread was measured (repeats), not assumed
    assert "run-to-run spread" in noise["note"] and "unknown" not in noise["note"]
    # what a client without io-threads moves (4 × replica 2 runs without them): measured on the
    # calibration layout's copy without them, or said why not (another bound held its figures)
    ratio = result["parameters"].get("no_io_threads_ratio.write")
    assert (ratio is not None and ratio["source"] == "fitted" and "dt8-2" in ratio["note"]) or \
        any("without io-threads" in n and "stays assumed" in n for n in result["notes"]), result["notes"]
    # what a stored byte and an extra brick RPC cost the shared CPUs: measured and derived from
    # distribute's request cost, or left out with the reason
    fan = result["parameters"].get("fanout_cpu_seconds.write")
    if "shared_cpu_seconds_per_byte.write" in measured:
        assert fan is not None and fan["source"] == "fitted" and 0 < fan["value"] < 5e-3, fan
        assert "request costs" in fan["note"], fan
    else:
        assert any("is not CPU work, left out" in n or "stays assumed" in n for n in result["notes"]), result["notes"]
    assert any("run on the client's own kernel" in n for n in result["notes"]), result["notes"]
    tested = [r for r in result["rows"] if not r["fit"]]
    points = {(r["layout"], r["direction"], r["concurrency"], r["block_size"]) for r in tested}
    assert points == {(lay, d, n, b) for lay in ("dt2dp4rd1", "dt4rp2") for d in ("write", "read")
                      for n in (1, 4) for b in (1 << 20, 1 << 22)}
    assert result["goal"]["met"] == verdict.met
    assert verdict.met, verdict.describe()
