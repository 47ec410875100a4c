"""The Change tab plans an edited drawing off the GUI thread.

``core.change.plan_change`` on a 200-server × 24-brick volume takes a tenth of a second or
more of CPU (several times that on a busy machine): run on the GUI thread after every edit,
the canvas froze for as long. ``BackgroundPlanner`` plans on one worker thread instead, on a
copy of the drawing taken when the edit was made (the admin keeps editing meanwhile), and
hands the plan back to the GUI thread through a queued signal. Requests made while one is
planned collapse into the newest; a plan of a drawing that has changed since is dropped, so
what arrives is always the plan of the drawing as it is.
"""

from __future__ import annotations

import gc
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal

from ...core.topology import Topology


@dataclass
class PlanRequest:
    """What one background plan was asked for (handed back with its result)."""

    generation: int
    topo: Topology
    volume: str
    live: Any
    options: dict = field(default_factory=dict)


def planning_copy(topo: Topology) -> Topology:
    """A copy of everything ``plan_change`` reads, none of it shared with ``topo``: edits on
    the GUI thread (which change bricks in place) cannot reach the planning thread. A few
    milliseconds at 5,000 bricks (a file round trip, as ``runtable.snapshot`` makes, costs
    a hundred)."""
    volumes = []
    for v in topo.volumes:
        volume = _clone(v)
        volume.layout = _clone(v.layout)
        volume.bricks = list(v.bricks)
        volume.options = dict(v.options)
        volume.mounts = [_clone(m) for m in v.mounts]
        volumes.append(volume)
    nodes = []
    for n in topo.nodes:
        node = _clone(n)
        node.bricks = [_clone(b) for b in n.bricks]
        nodes.append(node)
    return Topology(topo.name, topo.description, [_clone(s) for s in topo.sites], nodes,
                    [_clone(c) for c in topo.clients], [_clone(lat) for lat in topo.latencies], volumes)


def _clone(obj):
    """A shallow copy of a plain dataclass instance (``copy.copy`` goes through
    ``__reduce_ex__``: several times slower at 5,000 bricks)."""
    new = object.__new__(type(obj))
    new.__dict__.update(obj.__dict__)
    return new


def settle_heap() -> None:
    """Collect once, then keep what lives now out of the collector's full passes until the next
    call (``gc.freeze``). A live read of 4,800 bricks leaves a quarter of a million objects
    (the drawing, the live state, the canvas items) that stay put while the admin edits; each
    edit makes a plan of thousands more, and every few edits Python's full collection walked
    them all: 150-250 ms during which no thread runs, the GUI thread included. Called after
    each live read, so what the previous read left is collected here (unfrozen first)."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


class BackgroundPlanner(QObject):
    sig_planned = Signal(object, object)
    """(PlanRequest, Planned | Exception): the plan of the newest request, on the GUI thread."""
    _sig_finished = Signal(object, object)      # (PlanRequest, Future), emitted on the worker thread

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="brickyard-change-plan")
        self._generation = 0
        self._busy = False
        self._next: PlanRequest | None = None
        self._sig_finished.connect(self._finished, Qt.ConnectionType.QueuedConnection)
        pool = self._pool
        self.destroyed.connect(lambda *_: pool.shutdown(wait=False, cancel_futures=True))

    @property
    def pending(self) -> bool:
        """A plan is being made or waits its turn."""
        return self._busy or self._next is not None

    def request(self, topo: Topology, volume: str, live, **options) -> PlanRequest:
        """Plan ``volume`` of (a copy of) ``topo`` against ``live`` on the worker thread; the
        plan of a request made earlier and not delivered yet will not be."""
        self._generation += 1
        job = PlanRequest(self._generation, planning_copy(topo), volume, live, options)
        if self._busy:
            self._next = job
        else:
            self._start(job)
        return job

    def drop(self) -> None:
        """Whatever is being planned is not wanted any more (a plan was made on the GUI thread,
        or the live volume went): its result will not be delivered."""
        self._generation += 1
        self._next = None

    def _start(self, job: PlanRequest) -> None:
        self._busy = True
        future = self._pool.submit(_plan, job)
        future.add_done_callback(lambda f, job=job: self._emit_finished(job, f))

    def _emit_finished(self, job: PlanRequest, future: Future) -> None:
        try:
            self._sig_finished.emit(job, future)
        except RuntimeError:            # the tab was closed and deleted while it planned
            pass

    def _finished(self, job: PlanRequest, future: Future) -> None:
        self._busy = False
        if self._next is not None:
            following, self._next = self._next, None
            self._start(following)
        if job.generation != self._generation or future.cancelled():
            return
        exc = future.exception()
        self.sig_planned.emit(job, exc if exc is not None else future.result())


@dataclass
class Planned:
    """A plan and what showing it needs that takes time at 5,000 bricks, made on the thread
    that planned it: the plan as JSON (the panel's figures and predictions), each brick's look
    on the canvas, and the fingerprint that says whether the steps changed."""

    plan: Any
    doc: dict | None = None
    looks: dict | None = None
    fingerprint: tuple = ()


def prepare(plan, live, offline: list | None = None) -> Planned:
    """``plan`` with what the tab shows of it (see ``Planned``); a refusal has no looks.
    ``offline``: ``live.offline`` when the caller has it."""
    from .running import plan_fingerprint
    from .scene import change_looks

    looks = change_looks(plan, set(live.offline if offline is None else offline)) if plan.bricks else {}
    return Planned(plan, plan.to_json(), looks, plan_fingerprint(plan))


def _plan(job: PlanRequest) -> Planned:
    from ...core.change import plan_change

    return prepare(plan_change(job.topo, job.volume, job.live, **job.options), job.live)
