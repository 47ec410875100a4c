"""Run one workload on one or more targets and produce a ``RunResult``.

``run_benchmark`` is a plain async function with a progress/cancel object (``remote.loop.
Progress``) and a result sink that receives each step as it is measured (the store writes
them as they arrive). Failure modes end the run in a named state, never as a crash:

- cancel → the agents kill their workers and remove the run directories; status CANCELLED
  (the steps measured so far kept), error "cancelled by the user";
- a host dying → PARTIAL/FAILED with ``failed_host`` set and the steps measured so far kept;
- a stalled mount → a step flagged ``stall`` (invalid) and the run PARTIAL with the stall named.

A run that completes with most of its steps suspect (probably cache figures: faster than the
link allows, faster than a first read, bricks' caches not dropped) says so in ``error``; the
CLI exits 1 for it. The link speed of each client host is found by itself (``physics``)
unless ``link_bps`` gives one for all.
"""

from __future__ import annotations

import asyncio
import re
import time
import uuid
from dataclasses import dataclass
from typing import Any, Protocol, Sequence

from .. import __version__
from ..core.results import Provenance, RunResult, RunStatus, StepResult, mostly_suspect, suspect_steps
from ..remote.executor import Executor, ExecutorError
from ..remote.loop import Cancelled, Progress, run_log
from . import provenance as prov
from .agentclient import AgentError, AgentSession, HostLost, StepStalled
from .api import ParamError, Workload
from .context import RunContext, TargetSession
from .physics import LinkInfo, Physics, choose_link, detect_link, link_lines, servers_of
from .targetcheck import check_targets


class ResultSink(Protocol):
    """Receives results as they are measured (the store implements this; so can a test).
    A sink may also define ``progress(run, event: ProgressEvent)`` for live progress."""

    def run_started(self, run: RunResult) -> None: ...

    def step_finished(self, run: RunResult, step: StepResult) -> None: ...

    def run_finished(self, run: RunResult) -> None: ...


class _GuardedSink:
    """The engine's side of a sink: a sink that raises (a database on a full disk, a closed
    screen) never stops the measurement. The first failure is named in the run's error;
    the results stay in the ``RunResult``."""

    def __init__(self, sink: ResultSink, notes: list[str]):
        self.sink = sink
        self.notes = notes
        self.failed = False

    def call(self, method: str, *args: Any) -> None:
        fn = getattr(self.sink, method, None)
        if fn is None:
            return
        try:
            fn(*args)
        except Exception as exc:  # noqa: BLE001 - reported once, measuring goes on
            if not self.failed:
                self.failed = True
                self.notes.append(f"the result sink failed ({type(exc).__name__}: {exc}); "
                                  "every measured step is still in this result")


class TargetError(ValueError):
    """A ``--target`` text that does not name a host and an absolute path."""


@dataclass(frozen=True)
class TargetSpec:
    host: str        # "local" for this workstation
    path: str

    @property
    def text(self) -> str:
        return f"{self.host}:{self.path}"

    @property
    def is_local(self) -> bool:
        return self.host == "local"


_HOST = re.compile(r"^(?!-)[A-Za-z0-9_.%:-]{1,253}$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def parse_target(text: str) -> TargetSpec:
    host, sep, path = text.partition(":")
    if not sep or not host or not path:
        raise TargetError(f"target {text!r}: write HOST:PATH (e.g. client1:/mnt/gv0) or local:PATH")
    spec = TargetSpec(host, path.rstrip("/") or "/")
    check_target(spec)
    return spec


def check_target(spec: TargetSpec) -> None:
    """Refuse what no host or tool can be given safely. Any other character in a path is
    fine: paths reach hosts as quoted argument lists, and tools that parse paths get an
    alias (``RunContext.alias``)."""
    text = f"{spec.host}:{spec.path}"
    if spec.host != "local" and not _HOST.match(spec.host):
        raise TargetError(f"target {text!r}: {spec.host!r} is not a host name")
    if not spec.path.startswith("/"):
        raise TargetError(f"target {text!r}: the path must be absolute")
    if _CONTROL.search(spec.path):
        raise TargetError(f"target {text!r}: the path holds a control character (a newline, tab, …), "
                          "which tools read as the end of a line or a field")


async def run_benchmark(
    workload: Workload,
    params: dict[str, Any],
    targets: Sequence[tuple[TargetSpec, Executor]],
    *,
    servers: Sequence[Executor] = (),
    progress: Progress | None = None,
    sink: ResultSink | None = None,
    link_bps: float | None = None,
    volume_info_xml: str = "",
    agent_python: str = "python3",
    heartbeat_timeout: float = 20.0,
    link_hints: dict[str, float] | None = None,
    link_typed_as: str = "--link",
    expect_volume: str | None = None,
    expect_gluster: bool = False,
    expect_baseline: bool = False,
) -> RunResult:
    """Measure ``workload`` on ``targets``; see the module docstring for the end states.
    ``link_bps`` (bytes/s) is every client's link for the physics check; without it each
    client's is detected, and ``link_hints`` (host → bytes/s, e.g. the topology's NIC field)
    stands in where detection finds no speed or only a virtual device's nominal one; the figures taken, and which source each is,
    are logged through ``progress`` (``link_typed_as`` names where a typed one came from). Raises ParamError for bad parameters (before
    anything runs on a host). ``expect_volume`` (every target a mount of that gluster volume),
    ``expect_gluster`` (of any gluster volume) and ``expect_baseline`` (no target on a gluster
    mount) are read back from the hosts first (``targetcheck``): a target that is not what the
    run is about raises ``targetcheck.TargetNotReady`` (a ParamError) saying so in one
    sentence, before the run exists: nothing is measured and nothing is stored."""
    values = workload.resolve(params)
    if not targets:
        raise ParamError("give at least one target")
    for spec, _ in targets:
        try:
            check_target(spec)
        except TargetError as exc:
            raise ParamError(str(exc)) from None
    if expect_volume or expect_gluster or expect_baseline:
        await check_targets(targets, volume=expect_volume, gluster=expect_gluster, baseline=expect_baseline)
    progress = progress or Progress()
    run = RunResult(
        run_id=uuid.uuid4().hex,
        workload=workload.name,
        status=RunStatus.RUNNING,
        started_at=time.time(),
        ended_at=None,
        provenance=Provenance(brickyard_version=__version__, hosts={}, target=",".join(t.text for t, _ in targets),
                              target_kind="unknown", workload=workload.name,
                              parameters={p.name: p.show(values[p.name]) for p in workload.all_params()}),
    )
    sessions: list[TargetSession] = []
    server_agents: list[AgentSession] = []
    cleanup_notes: list[str] = []
    outcome: list[str] = [""]       # why the run ended as it did; ``run.error`` adds the notes once
    stalled = False
    guard = _GuardedSink(sink, cleanup_notes) if sink is not None else None

    def record(step: StepResult) -> None:
        run.steps.append(step)
        if guard is not None:
            guard.call("step_finished", run, step)

    def finish(status: RunStatus, error: str = "", host: str = "") -> RunResult:
        if status is RunStatus.COMPLETE and mostly_suspect(run.steps):
            suspect, measured = suspect_steps(run.steps)
            flags = sorted({f for s in run.steps if s.suspect for f in s.flags} & set(SUSPECT_WORDS))
            error = (f"most steps suspect: {suspect} of {measured} are probably cache figures "
                     f"({', '.join(SUSPECT_WORDS[f] for f in flags)}); they are kept, flagged and never the headline")
        run.status = status
        outcome[0] = error
        run.error = _said_once(error, cleanup_notes)
        run.failed_host = host
        run.ended_at = time.time()
        run_log.info("run %s ended %s after %.1f s: %d steps%s%s", run.run_id[:12], status.value,
                     run.ended_at - run.started_at, len(run.steps), f" ({run.error})" if run.error else "",
                     f", failed host {host}" if host else "")
        return run

    run_log.info("run %s started: %s on %s (%s)", run.run_id[:12], workload.name, run.provenance.target,
                 " ".join(f"{k}={v}" for k, v in run.provenance.parameters.items()))
    if guard is not None:
        guard.call("run_started", run)
    loop = asyncio.get_running_loop()

    def cancel_agents() -> None:   # on the loop thread: agents kill workers, remove run dirs
        for s in sessions:
            asyncio.ensure_future(s.agent.cancel())

    progress.on_cancel(lambda: loop.call_soon_threadsafe(cancel_agents))
    try:
        try:
            physics = Physics(link_bps=link_bps)
            layout: dict[str, Any] = {}
            if volume_info_xml:
                layout = prov.parse_volume_info(volume_info_xml)
            progress.set_progress(0.0, "starting agents")
            for spec, ex in targets:
                agent = AgentSession(ex, python=agent_python, heartbeat_timeout=heartbeat_timeout)
                sessions.append(TargetSession(spec.text, ex.host, spec.path, ex, agent))
                await agent.open()
            for ex in servers:
                agent = AgentSession(ex, python=agent_python, heartbeat_timeout=heartbeat_timeout)
                server_agents.append(agent)
                await agent.open()
            for agent in [s.agent for s in sessions] + server_agents:
                if agent.orphans:       # an earlier run's agent was killed with its watchdog
                    for line in orphan_lines(agent.host, agent.orphans):
                        progress.log(line)
                    if guard is not None:
                        guard.call("orphans_killed", run, agent.host, agent.orphans)
            await _check_requirements(workload, sessions)
            hosts: dict[str, dict[str, str]] = {}
            kinds, mount_opts = [], []
            for s in sessions:
                hosts.setdefault(s.host, await prov.host_facts(s.executor))
                mount = await prov.mount_of(s.executor, s.path)
                s.mount = mount
                s.kind = prov.target_kind(mount.get("fstype", ""))
                kinds.append(s.kind)
                mount_opts.append(f"{s.spec}: {mount.get('fstype', '?')} {mount.get('source', '')} {mount.get('options', '')}".strip())
            for a in server_agents:
                hosts.setdefault(a.host, await prov.host_facts(a.executor))
            _drop_gluster_of_baselines(hosts, sessions, server_agents)
            volume_settings: dict[str, str] = {}
            if not volume_info_xml and server_agents:
                volume_info_xml, layout = await _volume_info(server_agents[0].executor, sessions)
            if layout.get("name") and server_agents:
                volume_settings = await _volume_settings(server_agents[0].executor, str(layout["name"]))
            physics.layout = layout
            if not link_bps:
                physics.links = await _links(sessions, layout, agent_python, link_hints or {})
            for s in sessions:
                try:
                    await s.agent.sweep(s.path)     # run directories killed runs of this host left here
                except AgentError:
                    pass     # an unreadable target: creating the run directory below says why
            run.provenance = Provenance(
                brickyard_version=__version__, hosts=hosts, target=run.provenance.target,
                target_kind=",".join(dict.fromkeys(kinds)),   # each kind once: a probe has nine targets
                volume_name=str(layout.get("name", "")), volume_info_xml=volume_info_xml,
                volume_options=dict(layout.get("options", {})),
                layout={k: v for k, v in layout.items() if k != "options"},
                mount_options="; ".join(mount_opts), workload=workload.name,
                parameters=run.provenance.parameters,
                extra={**({"link_bps": link_bps} if link_bps else
                          {"links": {h: info.as_dict() for h, info in physics.links.items()}}),
                       **_swept(sessions, server_agents), **_orphans(sessions, server_agents)},
                volume_settings=volume_settings,
            )
            for line in link_lines(run.provenance.extra, link_typed_as):
                progress.log(line)
            for s in sessions:
                try:
                    # one directory per target: several clients may mount the same volume
                    tag = re.sub(r"[^A-Za-z0-9_.-]", "_", s.host)
                    s.rundir = await s.agent.mkdir(f"{s.path}/brickyard-{run.run_id[:12]}-{tag}")
                except AgentError as exc:
                    raise ParamError(f"cannot create a run directory on {s.spec}: {exc}") from None
            ctx = RunContext(workload, values, sessions, run, record_sink=record,
                             progress=progress.set_progress, is_cancelled=progress.is_cancelled,
                             physics=physics, servers=server_agents,
                             step_total=workload.step_count(values) * int(values.get("repeats", 1)),
                             on_event=(lambda ev: guard.call("progress", run, ev)) if hasattr(sink, "progress") else None)
            progress.set_progress(0.0, f"{workload.name}: measuring")
            await workload.run(ctx)
            return finish(RunStatus.COMPLETE)
        except (Cancelled, HostLost, AgentError, ExecutorError, asyncio.CancelledError) as exc:
            if not progress.is_cancelled():
                if isinstance(exc, asyncio.CancelledError):
                    raise
                for s in sessions:
                    await s.agent.cancel()
                return finish(RunStatus.PARTIAL if run.steps else RunStatus.FAILED, str(exc), getattr(exc, "host", ""))
            for s in sessions:
                await s.agent.cancel()
            return finish(RunStatus.CANCELLED, "cancelled by the user")
        except StepStalled as exc:
            stalled = True
            measured = bool(run.steps)
            record(_stall_step(len(run.steps), exc))
            for s in sessions:
                await s.agent.cancel()
            return finish(RunStatus.PARTIAL if measured else RunStatus.FAILED, str(exc), exc.host)
        except ParamError as exc:
            return finish(RunStatus.FAILED, str(exc))
        except Exception as exc:  # noqa: BLE001 - a plugin's bug ends its run, never the app
            for s in sessions:
                await s.agent.cancel()
            return finish(RunStatus.PARTIAL if run.steps else RunStatus.FAILED,
                          f"workload {workload.name} failed: {type(exc).__name__}: {exc}")
    finally:
        for s in sessions:
            if s.agent.cancelled or not s.rundir:
                continue     # a cancelled agent removes its run directory itself (checked below)
            try:
                await s.agent.rmtree(s.rundir, timeout=120)
            except Exception as exc:  # noqa: BLE001 - reported, not raised
                cleanup_notes.append(f"could not remove {s.spec}/{s.rundir.rsplit('/', 1)[-1]}: {exc}")
        for agent in [s.agent for s in sessions] + server_agents:
            cleanup_notes += await agent.close(timeout=5 if stalled else 30)
        for s in sessions:
            if s.rundir and s.agent.cancelled:
                note = await _left_behind(s, stalled)
                if note:
                    cleanup_notes.append(note)
        if run.status is not RunStatus.RUNNING:
            run.error = _said_once(outcome[0], cleanup_notes)
        if guard is not None and run.status is not RunStatus.RUNNING:
            guard.call("run_finished", run)
            run.error = _said_once(outcome[0], cleanup_notes)     # a sink failing at the end is said too
        progress.set_progress(1.0, f"{workload.name}: {run.status.value}")


def _said_once(error: str, notes: Sequence[str]) -> str:
    """The run's error: why it ended, then each cleanup note, each once."""
    return "; ".join(dict.fromkeys(x for x in [error, *notes] if x))


SUSPECT_WORDS = {
    "cache-effect-suspected": "faster than the link allows",
    "faster-than-cold": "re-reads faster than the first read",
    "server-caches-not-dropped": "the bricks' caches were not dropped",
}


def no_network_note(spec: str, kind: str) -> str:
    """Why a target has no link to check: 'local:/x is a local file system', 'an unknown'."""
    article = "an" if kind[:1] in "aeiou" else "a"
    return f"{spec} is {article} {kind} file system: no network link in the way"


async def _links(sessions: Sequence[TargetSession], layout: dict[str, Any], python: str,
                 hints: dict[str, float]) -> dict[str, LinkInfo]:
    """Each client host's link to the volume's servers (see ``physics``)."""
    links: dict[str, LinkInfo] = {}
    for s in sessions:
        if s.host in links:
            continue
        if s.kind not in ("gluster", "nfs"):
            links[s.host] = LinkInfo(None, no_network_note(s.spec, s.kind), network=False)
            continue
        found = await detect_link(s.executor, servers_of(layout, s.mount.get("source", "")), python=python)
        links[s.host] = choose_link(found, hints.get(s.host))
    return links


async def _left_behind(s: TargetSession, stalled: bool) -> str:
    """After a cancel, a lost agent or a stall: name the run directory if it may still be on
    the target. An agent that died before removing it leaves it to us: removed here when the
    host still answers (never on a stalled mount: that would hang too)."""
    left = s.agent.left_behind(s.rundir)
    if left is False:
        return ""
    if left is None and not stalled:
        try:
            res = await s.executor.run(["rm", "-rf", "--one-file-system", "--", s.rundir], timeout=60)
            if res.ok:
                return ""
        except Exception:  # noqa: BLE001 - the host is gone: name the directory instead
            pass
    why = ("the mount stalled" if stalled else
           "the agent could not remove it" if left else "the benchmark agent stopped before removing it")
    return f"{s.host}:{s.rundir} may be left behind ({why})"


def _stall_step(index: int, exc: StepStalled) -> StepResult:
    return StepResult(index=index, params={"stalled_host": exc.host}, repeat=0, workers=(), metrics=(),
                      flags=("stall",), valid=False, note=str(exc))


def _swept(sessions: Sequence[TargetSession], servers: Sequence[AgentSession]) -> dict[str, Any]:
    """What the agents removed at start that killed earlier runs had left on their hosts."""
    swept = {a.host: a.swept for a in [s.agent for s in sessions] + list(servers) if a.swept}
    return {"leftovers_removed": swept} if swept else {}


def _orphans(sessions: Sequence[TargetSession], servers: Sequence[AgentSession]) -> dict[str, Any]:
    """What the agents killed at start that killed agents' workers had left running."""
    found = {a.host: a.orphans for a in [s.agent for s in sessions] + list(servers) if a.orphans}
    return {"orphans_killed": found} if found else {}


def orphan_lines(host: str, found: Sequence[dict[str, Any]]) -> list[str]:
    """One sentence per killed agent whose workers outlived it (the CLI and the log)."""
    out = []
    for item in found:
        runs = ", ".join(item.get("runs") or []) or "unknown"
        where = f" in {', '.join(item['dirs'])}" if item.get("dirs") else ""
        out.append(f"{host}: killed {item.get('killed', 0)} worker process(es) that run {runs} left running when "
                   f"its agent (pid {item.get('agent_pid')}) was killed{where}")
    return out


async def _check_requirements(workload: Workload, sessions: Sequence[TargetSession]) -> None:
    missing = []
    for s in sessions:
        for req in workload.requires:
            res = await s.executor.run(req.probe_argv(), timeout=30)
            if not res.ok and not req.optional:
                missing.append(f"{req.program} is missing on {s.host}" + (f" ({req.hint})" if req.hint else ""))
    if missing:
        raise ParamError("; ".join(missing))


def _drop_gluster_of_baselines(hosts: dict[str, dict[str, str]], sessions: Sequence[TargetSession],
                               servers: Sequence[AgentSession]) -> None:
    """A host that only holds local, NFS or tmpfs targets is not a gluster host: the glusterfs
    client it happens to have installed says nothing about what was measured, and a
    recorded version would list a local baseline as a gluster run."""
    gluster_hosts = {s.host for s in sessions if s.kind == "gluster"} | {a.host for a in servers}
    for host, facts in hosts.items():
        if host not in gluster_hosts:
            facts.pop("gluster", None)


async def _volume_settings(server: Executor, volume: str) -> dict[str, str]:
    """``gluster volume get VOL all --xml``: every option's value at run time, defaults
    marked, so an option unset in one run compares by its real value. Best effort: {}."""
    res = await server.run(["gluster", "--mode=script", "volume", "get", volume, "all", "--xml"], sudo=True,
                           timeout=60)
    if not res.ok:
        return {}
    try:
        return prov.parse_volume_get(res.text)
    except ValueError:
        return {}


async def _volume_info(server: Executor, sessions: Sequence[TargetSession]) -> tuple[str, dict[str, Any]]:
    """``gluster volume info VOL --xml`` on a server for the volume the first target mounts."""
    mount = await prov.mount_of(sessions[0].executor, sessions[0].path)
    source = mount.get("source", "")
    if ":" not in source:
        return "", {}
    volume = source.split(":", 1)[1].lstrip("/")
    # the gluster CLI needs root (and /usr/sbin): through sudo when the login is not root
    res = await server.run(["gluster", "--mode=script", "volume", "info", volume, "--xml"], sudo=True, timeout=60)
    if not res.ok:
        return "", {}
    try:
        return res.text, prov.parse_volume_info(res.text)
    except ValueError:
        return res.text, {}

