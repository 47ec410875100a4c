"""Why a node's rebalance failed, from its log (``/var/log/glusterfs/VOL-rebalance.log``).

gluster's ``rebalance status`` only says *failed*; the cause is in the rebalance process's own
log on that node. Each start appends to the same file, beginning with glusterfsd's
``Started running version`` line, so only the lines after the last such line belong to the
run that failed. A line reads::

    [2026-11-27 18:30:18.885969 +0000] E [MSGID: 109023] [dht-rebalance.c:4246:gf_defrag_start_crawl] 0-v-dht: Failed to start rebalance: look up on / failed [Transport endpoint is not connected]

The rebalance process runs with ``assert-no-child-down``: when a subvolume of the volume (a
replica or disperse set, or a brick of a plain distribute volume) is down or not yet
reachable, DHT logs ``Received CHILD_DOWN. Exiting`` (a W line) and the node's status turns
*failed*; a lookup or fix-layout of ``/`` fails with ``Transport endpoint is not connected``
for the same reason. Such a cause is transient: once every brick is online, a new
``rebalance start`` goes through (gluster migrates file by file, so starting again is safe).
"""

from __future__ import annotations

import re

# the remote script (remote.changeread) prints the E, C and W lines of the last run
_LINE = re.compile(r"^\[(?P<date>\d{4}-\d\d-\d\d) (?P<time>\d\d:\d\d:\d\d)(?:\.\d+)?(?: [+-]\d{4})?\] "
                   r"(?P<level>[A-Z]) (?P<rest>.*)$")
_MSGID = re.compile(r"^\[MSGID: \d+\] ")
_SOURCE = re.compile(r"^\[(?P<where>[\w.-]+:\d+:\w+)\] ")
# a call chain gluster prints before some messages: (--> lib.so(func+0x1)[0x7f…] (--> …)))
_CALLS = re.compile(r"(?:\(-->\s*[^\[\s]*\[0x[0-9a-fA-F]+\]\s*)+\)*\s*")
# DHT's own word that it stopped because a subvolume went down
_CHILD_DOWN = re.compile(r"CHILD_DOWN")
# cleanup_and_exit's W line on every normal end: not a cause
_NORMAL_END = re.compile(r"received signum \(15\)|cleanup_and_exit")
# what a subvolume that is down or not yet reachable looks like in the log
_TRANSIENT = re.compile(r"CHILD_DOWN|Transport endpoint is not connected|ENOTCONN|not connected|"
                        r"failed to get the port number|Connection refused|disconnected from|"
                        r"subvolume.* down|subvol .* is down", re.I)
MAX_LINE = 240
KEEP = 4


def short(line: str) -> str:
    """A log line without its date, message id and fractions of a second: 'HH:MM:SS E
    file.c:N:function: text' (cut to MAX_LINE characters)."""
    m = _LINE.match(line.strip())
    if m is None:
        text = line.strip()
    else:
        rest = _MSGID.sub("", m["rest"])
        src = _SOURCE.match(rest)
        rest = _CALLS.sub("", f"{src['where']}: {rest[src.end():]}" if src else rest).rstrip()
        text = f"{m['time']} {m['level']} {rest}"
    return text if len(text) <= MAX_LINE else text[:MAX_LINE - 1] + "…"


def cause(text: str) -> list[str]:
    """The lines that say why the last run failed, in the log's order, KEEP of them at most:
    DHT's 'Received CHILD_DOWN. Exiting' (the process stopped because a subvolume went down),
    then the last error (E) and critical (C) lines, then the last W lines about a subvolume down
    or not reachable; when there are none of these, its last W lines (but the normal end's).
    Shortened by ``short``."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    parsed = [(m["level"] if (m := _LINE.match(ln.strip())) else "", ln) for ln in lines]
    exits = [i for i, (level, ln) in enumerate(parsed) if level == "W" and _CHILD_DOWN.search(ln)][-1:]
    errors = [i for i, (level, _) in enumerate(parsed) if level in ("E", "C")]
    downs = [i for i, (level, ln) in enumerate(parsed) if level == "W" and i not in exits
             and _TRANSIENT.search(ln) and not _NORMAL_END.search(ln)]
    chosen = list(exits)
    for group in (errors, downs):
        room = KEEP - len(chosen)
        chosen += group[-room:] if room > 0 else []
    if not chosen:
        chosen = [i for i, (level, ln) in enumerate(parsed) if level == "W" and not _NORMAL_END.search(ln)][-KEEP:]
    return [short(parsed[i][1]) for i in sorted(chosen)]


def names_an_error(lines: list[str]) -> bool:
    """Some of ``cause``'s lines is an error (E) or critical (C) line, or DHT's CHILD_DOWN exit:
    the process said why it stopped. Only other warnings (a hard link skipped, …) name nothing:
    glusterd marks a node's rebalance *failed* when it loses the process before it heard the
    final status (``glusterd_defrag_notify``: disconnected, the process gone, status still
    started), which can happen at a normal end whose log says "Rebalance is completed"."""
    return any(_CHILD_DOWN.search(ln) or (len(ln.split(" ", 2)) > 1 and ln.split(" ", 2)[1] in ("E", "C"))
               for ln in lines)


def transient(lines: list[str]) -> bool:
    """The cause is a subvolume that was down or not reachable (a new brick not yet online,
    a connection lost): a new start can succeed once every brick is online. False when the
    log names nothing, or names something else."""
    return bool(lines) and any(_TRANSIENT.search(ln) for ln in lines)
