"""`brickyard bench`: run one workload on one or more targets, headless.

    brickyard bench --target client1:/mnt/gv0 --workload dd --param block_sizes=4K,1M --json
    brickyard bench --target local:/tmp/base --workload smallfile
    brickyard bench --list

Exit codes: 0 every step measured and valid; 1 the run ended partial/failed, a step is
invalid, or most steps are suspect (probably cache figures; the JSON and the last line say
why); 2 bad input; 130 cancelled with Ctrl-C.
"""

from __future__ import annotations

import argparse
import dataclasses
import enum
import math
import sys
from typing import Any

from ..bench.lines import step_line
from ..core.results import RunResult, RunStatus, mostly_suspect, suspect_steps
from ..core.units import format_quantity, parse_link_rate
from .command import Outcome, Refused, UsageError
from .remote_common import RemoteCommand


class BenchCommand(RemoteCommand):
    def add_arguments(self, p: argparse.ArgumentParser) -> None:
        p.add_argument("--target", action="append", default=[], metavar="HOST:PATH",
                       help="where to measure (repeat for several client hosts); local:PATH for this machine")
        p.add_argument("--workload", metavar="NAME", help="workload name (see --list)")
        p.add_argument("--param", action="append", default=[], metavar="K=V",
                       help="workload parameter (repeatable)")
        p.add_argument("--server", action="append", default=[], metavar="HOST",
                       help="gluster server: caches dropped there before reads; volume info read from the first "
                            "(the targets must then be gluster mounts)")
        p.add_argument("--volume", metavar="NAME",
                       help="the gluster volume the targets must be mounts of (read back before the run starts)")
        p.add_argument("--link", metavar="RATE",
                       help="client link speed for the physics check, e.g. 1Gbit, 10Gbit, 117MB/s (default: each "
                            "client's, found through sysfs)")
        p.add_argument("--save", action="store_true", help="store the run in the history database as it is measured")
        p.add_argument("--db", metavar="URL", help="history database for --save (SQLAlchemy URL; default as "
                                                   "`brickyard history`)")
        p.add_argument("--list", action="store_true",
                       help="list the workloads found (and broken plugins) and exit")
        p.add_argument("--no-wait", action="store_true",
                       help="refuse (exit 1) instead of waiting when a host is running another benchmark")

    def run(self, args: argparse.Namespace) -> Outcome:
        from ..bench import registry

        if args.list:
            return _list_workloads(registry.discover(), args.json)
        if not args.workload:
            raise UsageError("give --workload NAME (see --list)")
        if not args.target:
            raise UsageError("give at least one --target HOST:PATH (or local:PATH)")
        from ..bench.api import ParamError
        from ..bench.engine import TargetError, parse_target

        try:
            workload = registry.find(args.workload)
            params = _params(args.param)
            workload.resolve(params)
            targets = [parse_target(t) for t in args.target]
            link = parse_link_rate(args.link) if args.link else None
        except (LookupError, ParamError, TargetError, ValueError) as exc:
            raise UsageError(str(exc)) from None
        if args.volume:
            from ..core.layout import volname_problem

            problem = volname_problem(args.volume)
            if problem:
                raise UsageError(f"--volume {args.volume!r}: {problem}")
        if args.server:
            from ..remote.executor import ExecutorError
            from ..remote.ssh import check_host_name

            for server in args.server:
                try:
                    check_host_name(server)
                except ExecutorError as exc:
                    raise UsageError(f"--server {exc}") from None
        return run_workload(args, workload, params, targets, link)


COMMAND = BenchCommand()


def _list_workloads(entries: list, as_json: bool) -> Outcome:
    """``bench --list``: each workload with its parameters, or why its plugin is broken."""
    if as_json:
        return Outcome(0, doc={"ok": True, "workloads": [_entry_json(e) for e in entries]}, indent=1)
    lines = []
    for entry in entries:
        if entry.ok:
            w = entry.workload
            lines.append(f"{entry.name}: {w.title}")
            lines.extend(f"    {p.describe()}" for p in w.all_params())
        else:
            lines.append(f"{entry.name}: BROKEN ({entry.source}): {entry.error}")
    return Outcome(0, text=lines)


def _params(pairs: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--param {pair!r}: write NAME=VALUE")
        out[key.strip()] = value
    return out


def to_jsonable(obj: Any) -> Any:
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, enum.Enum):
        return obj.value
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, float) and (math.isnan(obj) or math.isinf(obj)):
        return None
    return obj


def _entry_json(entry: Any) -> dict[str, Any]:
    """One workload of ``bench --list --json``: its parameters as the help lists them, or
    why its plugin is broken."""
    doc: dict[str, Any] = {"name": entry.name, "ok": entry.ok, "source": entry.source}
    if not entry.ok:
        doc["error"] = entry.error
        return doc
    w = entry.workload
    doc["title"] = w.title
    doc["params"] = [{"name": p.name, "kind": p.kind, "default": to_jsonable(p.default), "help": p.help,
                      "minimum": p.minimum, "maximum": p.maximum, "choices": list(p.choices),
                      "text": p.describe()} for p in w.all_params()]
    return doc


def exit_code(run: RunResult) -> int:
    if run.status is RunStatus.COMPLETE and all(s.valid for s in run.steps) and run.steps \
            and not mostly_suspect(run.steps):
        return 0
    return 1


SUMMARY_METRICS = ("throughput", "fio_group_bw", "objects_per_s", "files_per_s", "lstat_us", "tps", "init_seconds")


def summary(run: RunResult) -> list[dict[str, Any]]:
    """Median and spread over repeats of each headline metric, per sweep point, over the
    steps that may stand as a headline: valid and not suspect of being a cache figure."""
    from ..core.compare import metric_unit
    from ..core.stats import summarize_repeats

    out = []
    steps = [s for s in run.steps if s.headline]
    for name in SUMMARY_METRICS:
        unit = metric_unit([run], name)
        for params, s in summarize_repeats(steps, name):
            out.append({"metric": name, "unit": unit, "params": params, "n": s.n, "median": s.median,
                        "min": s.minimum, "max": s.maximum, "spread": s.spread})
    return out


def _show_summary(row: dict[str, Any]) -> str:
    unit = row.get("unit", "")
    fmt = (lambda v: format_quantity(v, unit)) if unit else (lambda v: f"{v:.4g}")
    params = " ".join(f"{k}={v}" for k, v in row["params"].items())
    spread = f", spread {row['spread'] * 100:.1f} %" if row["n"] > 1 and not math.isnan(row["spread"]) else ""
    return (f"  {row['metric']} median {fmt(row['median'])} over {row['n']} "
            f"(min {fmt(row['min'])}, max {fmt(row['max'])}{spread}): {params}")


def physics_lines(run: RunResult) -> list[str]:
    """What the physics check compared with, per client host, and where that figure came from."""
    from ..bench.physics import link_lines

    return link_lines(run.provenance.extra, "--link")


def run_workload(args: argparse.Namespace, workload, params, targets, link) -> Outcome:
    """Run one workload on its targets (``bench``, ``probe``): each step's line as it is
    measured, then the summary over repeats, flags, the physics check and the run's state."""
    from ..bench.engine import run_benchmark
    from ..bench.request import FanOutSink
    from ..remote.local import LocalExecutor
    from ..remote.loop import AsyncLoopThread, Progress

    pool = None
    if any(not t.is_local for t in targets) or args.server:
        from .remote_common import make_pool

        pool = make_pool(args)   # the pool every command builds: passphrases, passwords, accepted keys

    def executor(host: str):
        return LocalExecutor("local") if host == "local" else pool.executor(host)

    last = [""]

    def on_progress(fraction: float, text: str) -> None:
        if not args.json and sys.stderr.isatty() and text != last[0]:
            print(f"\r{fraction * 100:5.1f}% {text[:100]:<100}", end="", file=sys.stderr, flush=True)
            last[0] = text

    progress = Progress(on_progress=on_progress)

    class PrintSink:
        def run_started(self, run): pass

        def step_finished(self, run, step):
            if not args.json:
                print(("\r" if sys.stderr.isatty() else "") + step_line(step), flush=True)

        def run_finished(self, run): pass

    sinks: list[Any] = [PrintSink()]
    store = history = None
    if args.save or args.db:
        from ..store import HistoryStore
        from ..store.sink import HistorySink

        from ..store import DatabaseError, SettingsError

        try:
            store = HistoryStore.open(args.db)
        except (DatabaseError, SettingsError) as exc:     # a read-only database, a broken settings file
            raise UsageError(f"{exc}; nothing was measured") from None
        except Exception as exc:  # noqa: BLE001 - one line naming the database problem
            from ..store.engine import free_space_note
            from ..store.settings import resolve_db_url

            raise UsageError(f"cannot open the history database: {type(exc).__name__}: "
                             f"{str(exc).splitlines()[0] if str(exc) else ''}"
                             f"{free_space_note(resolve_db_url(args.db)[0])}; nothing was measured") from None
        history = HistorySink(store)
        sinks.append(history)

    from ..bench.hostlock import HostBusy, HostLocks, machine_keys
    from ..bench.targetcheck import TargetNotReady

    hosts = [t.host for t in targets] + list(args.server)
    owner = f"brickyard bench {workload.name} on {','.join(t.text for t in targets)}"

    def waiting(busy: HostBusy) -> None:
        print(f"waiting: {busy}", file=sys.stderr, flush=True)

    async def main():
        locks, lease = HostLocks(), None
        try:
            keys = await machine_keys(hosts, executor)    # the machines, not their names
            lease = (locks.try_acquire(hosts, owner, keys) if args.no_wait else
                     await locks.acquire(hosts, owner, keys=keys, is_cancelled=progress.is_cancelled, on_wait=waiting))
            return await run_benchmark(workload, params, [(t, executor(t.host)) for t in targets],
                                       servers=[executor(h) for h in args.server], progress=progress,
                                       sink=FanOutSink(sinks), link_bps=link, expect_volume=args.volume or None,
                                       expect_gluster=bool(args.server))
        finally:
            if lease is not None:
                lease.release()
            if pool is not None:
                await pool.close()

    interrupted = False

    def on_interrupt() -> None:
        nonlocal interrupted
        interrupted = True
        progress.cancel()

    try:
        with AsyncLoopThread("brickyard-bench") as loop:
            try:
                result = loop.run_through_interrupts(main(), on_interrupt)
            except TargetNotReady as exc:   # not what the run is about: nothing ran, nothing stored
                raise Refused(str(exc), code=2, line=f"brickyard {args.command}: {exc}", host=exc.host) from None
            except HostBusy as busy:   # --no-wait, or Ctrl-C while waiting: nothing ran
                raise Refused(str(busy), code=130 if interrupted else 1,
                              line=f"brickyard {args.command}: {busy}", busy_host=busy.host) from None
    finally:
        if store is not None:
            store.close()
    code = 130 if interrupted else exit_code(result)
    saved = _saved(result, history, store)
    if saved is not None and not saved["saved"] and code == 0:
        code = 1          # asked to save, not saved: the measurement is in this output only
    rows = summary(result)
    if args.json:
        extra = {"history": saved} if saved is not None else {}
        suspect = [s.index for s in result.steps if s.suspect]
        return Outcome(code, doc={"ok": code == 0, **to_jsonable(result), "summary": to_jsonable(rows),
                                  "suspect_steps": suspect, "physics": physics_lines(result), **extra,
                                  "exit_code": code}, indent=1)
    lines = []
    if rows:
        lines.append("summary over repeats:")
        lines.extend(_show_summary(row) for row in rows)
    from ..bench.context import FLAG_MEANINGS

    flags = sorted({f for s in result.steps for f in s.flags})
    if flags:
        lines.append("flags: " + "; ".join(f"{f} = {FLAG_MEANINGS[f]}" if f in FLAG_MEANINGS else f for f in flags))
    lines.extend(physics_lines(result))
    for host, removed in (result.provenance.extra.get("leftovers_removed") or {}).items():
        lines.append(f"removed what killed runs had left on {host}: {', '.join(removed)}")
    from ..bench.engine import orphan_lines

    for host, found in (result.provenance.extra.get("orphans_killed") or {}).items():
        lines.extend(orphan_lines(host, found))
    tail = f": {result.error}" if result.error else ""
    said = ""
    if saved is not None:
        said = (f"; saved as run {result.run_id[:12]}" if saved["saved"] else
                f"; NOT saved to the history ({saved['stored_as']}): {saved['problem']}")
    lines.append(f"{workload.name} on {','.join(t.text for t in targets)}: {result.status.value}"
                 f" ({len(result.steps)} steps, {sum(1 for s in result.steps if not s.valid)} invalid, "
                 f"{suspect_steps(result.steps)[0]} suspect){tail}{said}")
    return Outcome(code, text=lines)


def _saved(result: RunResult, history: Any, store: Any) -> dict[str, Any] | None:
    """What reached the history database (``--save``), for the JSON and the last line."""
    if history is None:
        return None
    stored_as = history.outcome.get(result.run_id, "not stored")
    return {"saved": stored_as == result.status.value, "database": store.describe(), "run_id": result.run_id,
            "stored_as": stored_as, "problem": history.problem}
