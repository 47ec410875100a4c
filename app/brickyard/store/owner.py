"""Who owns a running run: this host, a pid, and that pid's start time (Linux /proc), so
a recycled pid or a killed-but-unreaped (zombie) process is not taken for a live owner."""

from __future__ import annotations

import os


def _proc_stat(pid: int) -> list[str]:
    """Fields of /proc/<pid>/stat after the command name ([0] state, [19] start time), or []."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read().decode("ascii", "replace")
    except OSError:
        return []
    return stat[stat.rfind(")") + 2:].split()


def process_start(pid: int) -> str:
    """The kernel's start time of ``pid`` (clock ticks since boot), '' where unknown: with the
    pid it names one process, so a recycled pid is not taken for the run's owner."""
    fields = _proc_stat(pid)
    return fields[19] if len(fields) > 19 else ""


def pid_alive(pid: int) -> bool:
    """True while the process exists and is not a zombie (killed, not yet reaped)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    fields = _proc_stat(pid)
    return not (fields and fields[0] in ("Z", "X"))
