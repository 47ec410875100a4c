"""Whether a benchmark's steps fit in the free space of where they write, checked before Start.

A step that writes more than its target holds fails half-way with "No space left on device"
(and fills a volume other people use); the Run tab says so at the field instead. The free
space comes from what the window knows without asking a host: a local directory's file system
(``statvfs``), a volume's free space measured by pre-flight or import (else its usable size).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..core.units import format_bytes
from .api import Workload


@dataclass(frozen=True)
class Room:
    """Free space one or more targets write into: ``writers`` targets share it (the clients of
    one volume), ``how`` says where the figure comes from."""

    where: str
    free: int
    how: str
    writers: int = 1


def room_problems(workload: Workload, values: dict[str, Any], rooms: list[Room]) -> list[str]:
    """One sentence per place a step would not fit, starting with the workload's
    ``space_param`` (so the form marks that field) when it names one."""
    need = workload.space_at_once(values)
    if not need:
        return []
    prefix = f"{workload.space_param}: " if workload.space_param else ""
    out = []
    for room in rooms:
        total = need * room.writers
        if total <= room.free:
            continue
        each = f" ({room.writers} clients × {format_bytes(need)})" if room.writers > 1 else ""
        lower = f"lower {workload.space_param.replace('_', ' ')} or concurrency" if workload.space_param \
            else "lower what each step writes"
        out.append(f"{prefix}a step keeps {format_bytes(total)} at once{each}, more than the {format_bytes(room.free)} "
                   f"{room.where} has free ({room.how}): {lower}")
    return out
