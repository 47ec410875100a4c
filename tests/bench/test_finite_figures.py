"""A workload that reports NaN, infinity or something that is not a number at all: the step
is invalid with a problem naming the workload and the figure, the run goes on and is saved,
and neither the JSON output nor the history database ever holds a non-finite number."""

from __future__ import annotations

import json
import math
import sqlite3

import pytest

from brickyard.cli import main

from .localbench import local_bench

BUGGY = '''
from brickyard.bench.api import Measurement, Param, Workload
from brickyard.core.results import Metric, WorkerTiming

BAD = {"nan": float("nan"), "inf": float("inf"), "-inf": float("-inf"), "text": "12 MB/s",
       "huge": 10 ** 400, "none": None}


class Buggy(Workload):
    """Step 0 fine; step 1 reports the bad value as a figure; step 2 as a worker's end time;
    step 3 as a sweep parameter; step 4 fine again."""

    name = "buggy"
    params = (Param("bad", "choice", "nan", "the bad value", choices=tuple(BAD)),)

    def step_count(self, values):
        return 5

    async def run(self, ctx):
        bad = BAD[ctx.values["bad"]]
        for i in range(5):
            runs = await ctx.run_workers([(t, ctx.exec_worker(["true"])) for t in ctx.targets])
            workers = [r.timing for r in runs]
            params, metrics = {"point": i, "repeat": 0}, [Metric("latency_ms", 1.5, "ms")]
            if i == 1:
                metrics.append(Metric("files_per_s", bad, "files/s", "the parser's figure"))
            if i == 2:
                w = workers[0]
                workers = [WorkerTiming(w.worker, w.host, w.start, bad, w.bytes, w.ops)]
            if i == 3:
                params["threads"] = bad
            ctx.record(Measurement(params, workers, metrics=metrics, throughput_metrics=False))
'''


_BAD = {"text": "12 MB/s", "none": None}


def _strict(text: str):
    def refuse(word):
        raise AssertionError(f"{word} in the JSON output")
    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize("bad", ["nan", "inf", "-inf", "text", "huge", "none"])
def test_a_non_finite_figure_invalidates_its_step_names_the_workload_and_never_reaches_the_store(
        bad, tmp_path, capsys, monkeypatch):
    work, db_file, db = local_bench(tmp_path, monkeypatch, "buggy", BUGGY)

    code = main(["bench", "--target", f"local:{work}", "--workload", "buggy", "--param", f"bad={bad}",
                 "--save", "--db", db, "--json"])
    out = capsys.readouterr()
    doc = _strict(out.out)
    assert code == 1 and doc["status"] == "complete", out.err   # measured to the end, not a crash
    assert doc["history"]["saved"] is True, doc["history"]
    steps = doc["steps"]
    number = bad in ("nan", "inf", "-inf", "huge")   # as a parameter, text or null is a fine value
    assert [s["valid"] for s in steps] == [True, False, False, not number, True]
    named = {1: "files_per_s", 2: "worker 0 on local end", **({3: "params['threads']"} if number else {})}
    for i, what in named.items():
        assert "non-finite-figure" in steps[i]["flags"]
        assert f"workload buggy reported {what} = " in steps[i]["note"], steps[i]["note"]
        assert "a bug in the buggy workload" in steps[i]["note"]
    assert [m["name"] for m in steps[1]["metrics"]] == ["elapsed", "latency_ms"]   # the bad one left out
    assert steps[2]["workers"] == []                                              # its timing left out
    if number:
        assert steps[3]["params"]["threads"] is None and steps[3]["params"]["point"] == 3

    with sqlite3.connect(db_file) as conn:
        values = [v for (v,) in conn.execute("SELECT value FROM samples")]
        times = [t for row in conn.execute("SELECT start, end FROM worker_timings") for t in row]
        params = [json.loads(p) for (p,) in conn.execute("SELECT params_json FROM steps ORDER BY idx")]
        stored = conn.execute("SELECT status, step_count FROM runs").fetchall()
    assert stored == [("complete", 5)]
    assert values and all(isinstance(v, float) and math.isfinite(v) for v in values)
    assert times and all(math.isfinite(t) for t in times)
    assert params[3] == {"point": 3, "repeat": 0, "threads": None if number else json.loads(json.dumps(_BAD[bad]))}

    # the saved run reads back, shows and exports as any other (and would import again)
    assert main(["history", "show", doc["run_id"], "--db", db, "--json"]) == 0
    _strict(capsys.readouterr().out)
    exported = tmp_path / "export.json"
    assert main(["history", "export", "--format", "json", "-o", str(exported), "--db", db, "--json"]) == 0
    report = _strict(capsys.readouterr().out)
    assert report["ok"] is True and not report.get("left_out"), report
    assert main(["history", "import", str(exported), "--db", f"sqlite:///{tmp_path / 'other.db'}", "--json"]) == 0
