"""Property-based fuzzing of the files users hand Brickyard: Hypothesis mutates the example
topologies (``plan``) and a real history export (``history import``, then ``list``,
``show`` and ``export`` of what got in), and every case must end as the CLI promises:
exit 0, 1 or 2; no traceback; under --json exactly one strict JSON document; within a time
bound; in a process whose address space is capped (``fuzz_worker.py``); and no canary file
planted through ``$(touch …)``, backquotes, ``;`` or ``|`` in a string ever appears.

The budget is fixed (derandomized: 800 topology and 150 import cases, about 40 s on the CI
machine; half the cases are gentle enough to reach the planner or the store). ``BRICKYARD_FUZZ_EXAMPLES=2000 BRICKYARD_FUZZ_SEED=random`` explores
further by hand.
"""

from __future__ import annotations

import json
import os
import resource
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ..conftest import EXAMPLES, FIXTURES, ROOT

_ASKED = os.environ.get("BRICKYARD_FUZZ_EXAMPLES")
TOPOLOGY_EXAMPLES = int(_ASKED or 800)    # a plan costs ~10-50 ms
IMPORT_EXAMPLES = int(_ASKED or 150)      # an import plus list and show cost ~0.1-0.4 s
DERANDOMIZE = os.environ.get("BRICKYARD_FUZZ_SEED", "") != "random"
MEMORY_LIMIT = 2 * 2**30          # address space of the worker: 8 GB in split_sets would die here
CASE_SECONDS = 15                 # a slow case (or a loop on a count of 10**9) fails
WORKER_CPU_SECONDS = 600

TOPOLOGIES = [json.loads(p.read_text()) for p in sorted(EXAMPLES.glob("*.brickyard.json"))]
EXPORT = json.loads((FIXTURES / "runs" / "local-dd-both-4K-1M.json").read_text())
EXPORT["runs"][0]["steps"] = EXPORT["runs"][0]["steps"][:4]


def _limit() -> None:   # in the worker, before exec: limits it cannot raise again
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    resource.setrlimit(resource.RLIMIT_CPU, (WORKER_CPU_SECONDS, WORKER_CPU_SECONDS))


class Worker:
    def __init__(self) -> None:
        env = {**os.environ, "BRICKYARD_QUIET": "1"}
        self.proc = subprocess.Popen([sys.executable, "-m", "tests.cli.fuzz_worker"], cwd=ROOT, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, preexec_fn=_limit)

    def run(self, argv: list[str]) -> dict:
        assert self.proc.poll() is None, f"the fuzz worker died: {self.proc.stderr.read()[-3000:]}"
        self.proc.stdin.write(json.dumps({"argv": argv}) + "\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], CASE_SECONDS * 4)
        if not ready:
            self.proc.kill()
            raise AssertionError(f"{argv}: no answer in {CASE_SECONDS * 4} s (a hang or a loop)")
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait()
            raise AssertionError(f"{argv}: the worker died (exit {self.proc.returncode}, "
                                 f"memory or CPU limit?): {self.proc.stderr.read()[-3000:]}")
        return json.loads(line)

    def close(self) -> None:
        self.proc.stdin.close()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture(scope="module")
def worker():
    w = Worker()
    yield w
    w.close()


@pytest.fixture(scope="module")
def canary(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("canary") / "planted"


# ---- mutations ------------------------------------------------------------------------------

HOT = {"replica", "arbiter", "thin_arbiter", "thin_arbiter_brick", "disperse", "disperse_data", "redundancy",
       "free_bytes", "type", "size_bytes", "ssh_port", "format_version",
       "nic_gbps", "speed_bps", "rtt_ms", "bricks", "volumes", "nodes", "name", "path", "site", "a", "b",
       "started_at", "ended_at", "value", "index", "repeat", "block_size", "concurrency", "run_id", "status",
       "hosts", "layout", "params", "metrics", "workers", "bytes", "start", "end", "steps", "options"}
COUNT_KEYS = ("replica", "arbiter", "thin_arbiter", "disperse", "disperse_data", "redundancy")
VOLUME_TYPES = ["distribute", "replicate", "disperse", "distributed-replicate", "distributed-disperse"]
COUNTS = [0, 1, 2, 3, 4, 5, 6, 8, 12, 16, 17, 24, 25, 2**16, 10**9, 2**31 - 1, 2**62, 2**63 - 1]
HUGE_INTS = [0, 1, -1, 2, 3, 7, 16, 10**9, 2**31, 2**63 - 1, 2**63, -(2**63) - 1, 10**309]
ODD_FLOATS = [0.0, -0.0, 5e-324, 1.5, 1e308, float("nan"), float("inf"), float("-inf")]
NESTED: list = []
for _ in range(80):   # deeper than any Brickyard file may nest
    NESTED = [NESTED]


def _strings(canary: Path) -> list[str]:
    c = str(canary)
    return ["", " ", "x", "\ud800", "a\x00b", "a\nb", "\u2028", "É", "x" * 5000, f"$(touch {c})", f"`touch {c}`",
            f"a;touch {c}", f"a|touch {c}", f"a\ntouch {c}", "${IFS}", "../../../etc/passwd", "/", "n1:/b/1",
            "-rf", "distributed-disperse", "replicate", "disperse", "site:A", "client:c1", "9" * 5000,
            "1e309", "NaN"]


def _paths(value, path=()):
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*path, i))


def _set(doc, path, new):
    if not path:
        return new
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = new
    return doc


def _delete(doc, path):
    if path:
        target = doc
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]
    return doc


@st.composite
def mutated(draw, bases, canary):
    """(file bytes, description) of a base document with a few mutations: hostile ones
    (wrong types, huge or non-finite numbers, bad text, broken bytes) that the loaders must
    refuse, or, half the time, gentle ones (counts and values of the right type) that get
    past the loader into the planner or the store."""
    doc = json.loads(json.dumps(draw(st.sampled_from(bases))))
    notes = []
    gentle = draw(st.booleans())
    volumes = doc.get("volumes") if isinstance(doc, dict) else None
    if isinstance(volumes, list) and volumes and draw(st.integers(0, 2)) < (2 if gentle else 1):
        # a layout gluster must judge: any type with counts from tiny to 2**63-1 (work that
        # scales with a count, not with the bricks, shows here)
        v = volumes[draw(st.integers(0, len(volumes) - 1))]
        counts = st.sampled_from(COUNTS) | st.integers(-3, 40) | st.none()
        v["type"] = draw(st.sampled_from(VOLUME_TYPES))
        for key in COUNT_KEYS:   # the counts every version has, and those a newer file has
            if key in ("replica", "arbiter", "disperse", "redundancy") or key in v:
                v[key] = draw(counts)
        notes.append(f"layout {v['type']} " + " ".join(f"{k} {v[k]}" for k in COUNT_KEYS if k in v))
    for _ in range(draw(st.integers(0 if gentle else 1, 2 if gentle else 3))):
        paths = list(_paths(doc))
        hot = sorted({p[-1] for p in paths if p and p[-1] in HOT})
        if hot and draw(st.booleans()):     # half the time a field the code computes with
            key = draw(st.sampled_from(hot))
            path = draw(st.sampled_from([p for p in paths if p and p[-1] == key]))
        else:
            path = draw(st.sampled_from(paths))
        current = _get(doc, path)
        likely = ("int" if isinstance(current, int) and not isinstance(current, bool) or current is None
                  else "float" if isinstance(current, float) else "string" if isinstance(current, str)
                  else "grow" if isinstance(current, list) else "unknown")
        op = draw(st.sampled_from([likely] * 4 + ["int", "float", "string", "type", "delete", "unknown", "grow"]))
        if gentle and likely in ("int", "float", "string"):     # the same type, a plausible value
            new = draw(st.sampled_from(COUNTS[:-3]) | st.integers(0, 2**40) if likely == "int"
                       else st.floats(0, 1e6) if likely == "float" else st.sampled_from(["", "x", "É", "A", "n1"]))
            doc = _set(doc, path, new)
            notes.append(f"gentle {path} = {new!r:.60}")
            continue
        if gentle:
            continue
        if op == "int":
            new = draw(st.sampled_from(HUGE_INTS) | st.sampled_from(COUNTS) | st.integers(-(2**70), 2**70))
        elif op == "float":
            new = draw(st.sampled_from(ODD_FLOATS) | st.floats(allow_nan=True, allow_infinity=True))
        elif op == "string":
            new = draw(st.sampled_from(_strings(canary)) | st.text(max_size=40))
        elif op == "type":
            new = json.loads(json.dumps(draw(st.sampled_from([None, True, False, [], {}, NESTED, {"a": NESTED}]))))
        elif op == "unknown" and isinstance(_get(doc, path), dict):
            _get(doc, path)[draw(st.sampled_from(["x\ny", "\ud800", "colour", "", "format_version"]))] = 1
            notes.append(f"{op} at {path}")
            continue
        elif op == "grow" and isinstance(_get(doc, path), list) and _get(doc, path):
            items = _get(doc, path)
            items.extend(json.loads(json.dumps(items[-1])) for _ in range(draw(st.integers(1, 40))))
            notes.append(f"{op} at {path}")
            continue
        else:   # delete (or an op that did not fit this node)
            if path:
                doc = _delete(doc, path)
                notes.append(f"delete {path}")
            continue
        doc = _set(doc, path, new)
        notes.append(f"{op} {path} = {new!r:.60}")
    text = json.dumps(doc, indent=1)        # NaN/Infinity as JSON's folklore writes them
    raw = "none" if gentle else draw(st.sampled_from(["none", "none", "truncate", "bytes", "duplicate"]))
    data = text.encode("utf-8", "surrogatepass")
    if raw == "truncate":
        data = data[: draw(st.integers(0, len(data)))]
    elif raw == "bytes":
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.binary(min_size=1, max_size=8)) + data[at:]
    elif raw == "duplicate" and b'"name": ' in data:
        data = data.replace(b'"name": ', b'"name": "dup", "name": ', 1)
    notes.append(f"raw {raw}")
    return data, "; ".join(notes)


def _get(doc, path):
    for key in path:
        doc = doc[key]
    return doc


def _check(answer: dict, argv: list[str], what: str, canary: Path) -> dict:
    where = f"{argv[:2]} after {what}"
    assert answer["exit"] in (0, 1, 2), f"{where}: exit {answer['exit']}\n{answer['stderr'][-3000:]}"
    assert "Traceback" not in answer["stderr"], f"{where}:\n{answer['stderr'][-3000:]}"
    assert answer["seconds"] < CASE_SECONDS, f"{where}: took {answer['seconds']:.1f} s"

    def refuse(name):
        raise AssertionError(f"{where}: bare {name} in the JSON output")
    try:
        doc = json.loads(answer["stdout"], parse_constant=refuse)   # exactly one document
    except json.JSONDecodeError as exc:
        raise AssertionError(f"{where}: stdout is not one JSON document ({exc}): {answer['stdout'][:500]!r}")
    assert not (isinstance(doc, dict) and doc.get("internal_error")), f"{where}: {doc}"
    assert not canary.exists(), f"{where}: a canary command ran"
    return doc


def _settings(examples: int) -> settings:
    return settings(max_examples=examples, deadline=None, derandomize=DERANDOMIZE, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])


def test_fuzzed_topologies_end_in_0_1_or_2_with_one_json_document(worker, canary, tmp_path_factory):
    folder = tmp_path_factory.mktemp("fuzz-topology")
    started = time.monotonic()
    ran = []

    @_settings(TOPOLOGY_EXAMPLES)
    @given(case=mutated(TOPOLOGIES, canary), auto_place=st.booleans())
    def check(case, auto_place):
        data, what = case
        path = folder / "case.brickyard.json"
        path.write_bytes(data)
        argv = ["plan", str(path), "--json", *(["--auto-place"] if auto_place else [])]
        ran.append(_check(worker.run(argv), argv, what, canary))

    check()
    print(f"{len(ran)} topology cases in {time.monotonic() - started:.1f} s: "
          f"{sum(isinstance(d, dict) and 'volume' in d for d in ran)} planned, the rest refused")
    assert len(ran) >= TOPOLOGY_EXAMPLES // 2     # the budget went to cases, not to rejected draws


def test_fuzzed_history_imports_end_in_0_1_or_2_and_the_history_stays_readable(worker, canary, tmp_path_factory):
    folder = tmp_path_factory.mktemp("fuzz-import")
    db = f"sqlite:///{folder / 'history.sqlite3'}"
    counter = iter(range(10**9))
    added = []

    @_settings(IMPORT_EXAMPLES)
    @given(case=mutated([EXPORT], canary))
    def check(case):
        data, what = case
        path = folder / "case.json"
        # a fresh run id per case, so a case that imports does not make later ones "already there"
        path.write_bytes(data.replace(EXPORT["runs"][0]["run_id"].encode(), f"{next(counter):032x}".encode()))
        argv = ["history", "import", "--db", db, str(path), "--json"]
        doc = _check(worker.run(argv), argv, what, canary)
        listed = _check(worker.run(["history", "list", "--db", db, "--json"]), ["history", "list"], what, canary)
        if isinstance(doc, dict) and doc.get("added"):
            run_id = doc["added"][0]
            added.append(run_id)
            assert run_id in [r["run_id"] for r in listed]
            _check(worker.run(["history", "show", "--db", db, run_id, "--json"]), ["history", "show"], what, canary)

    check()
    print(f"{IMPORT_EXAMPLES} import cases: {len(added)} imported, the rest refused whole")
    assert added, "no fuzzed export got past the checks: the store side was not exercised"
    out = folder / "all.json"
    argv = ["history", "export", "--db", db, "-o", str(out), "--json"]
    report = _check(worker.run(argv), argv, "the whole fuzz", canary)
    assert report["ok"] and not report["left_out"]        # everything that got in goes out again
