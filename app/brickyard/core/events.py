"""A tiny observer, so views can mirror the model without the model knowing Qt."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable


@dataclass(frozen=True)
class Change:
    """What changed: ``kind`` is e.g. 'node-added', 'brick-removed', 'volume-changed';
    ``subject`` names the object (a node name, a brick id 'node:/path', a volume name);
    ``detail`` carries anything else a view may want (old name on a rename, …)."""

    kind: str
    subject: str = ""
    detail: dict[str, Any] = field(default_factory=dict)


class Emitter:
    """Callbacks run in the order they were connected; a batch collapses into one call
    with every change it collected, so a quick-fill of 500 bricks repaints once."""

    def __init__(self) -> None:
        self._callbacks: list[Callable[[list[Change]], None]] = []
        self._batch_depth = 0
        self._pending: list[Change] = []

    def connect(self, callback: Callable[[list[Change]], None]) -> None:
        self._callbacks.append(callback)

    def disconnect(self, callback: Callable[[list[Change]], None]) -> None:
        self._callbacks.remove(callback)

    def emit(self, change: Change) -> None:
        if self._batch_depth:
            self._pending.append(change)
            return
        self._deliver([change])

    def batch(self) -> "_Batch":
        return _Batch(self)

    def _deliver(self, changes: list[Change]) -> None:
        for callback in list(self._callbacks):
            callback(changes)


class _Batch:
    def __init__(self, emitter: Emitter) -> None:
        self._emitter = emitter

    def __enter__(self) -> None:
        self._emitter._batch_depth += 1

    def __exit__(self, *exc: object) -> None:
        emitter = self._emitter
        emitter._batch_depth -= 1
        if emitter._batch_depth == 0 and emitter._pending:
            pending, emitter._pending = emitter._pending, []
            emitter._deliver(pending)
