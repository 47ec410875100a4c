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


def owned_by_live_process(host: str, pid: int | None, start: str, *, this_host: str, this_pid: int) -> bool:
    """True when another live process on this host owns a record (a campaign or change being
    run now). An owner on another host cannot be checked and counts as gone; so does a pid
    that was recycled (its start time differs)."""
    if pid is None or host != this_host or pid == this_pid:
        return False
    if not pid_alive(pid):
        return False
    return not start or process_start(pid) == start
