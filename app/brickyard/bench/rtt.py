"""The round-trip time a client sees to each server of its gluster volume, as small-file runs
record it beside their figures (``RunContext.round_trips``): per object an extract or an lstat
costs its local work plus round trips × RTT (``core.latency``), so a stored run calibrates that
model only if it says at which RTT it was measured.

Measured the way a gluster client meets it: TCP connects from the client to glusterd (port
24007) on each server, a few in a row; the lower half's median of them, because other jobs on
the path only ever add time (on the sandbox, a user-space delay path queues under load and
doubles single samples). A connect is one round trip (SYN, SYN-ACK) — what ping measures,
without needing ICMP or root — plus the kernels' own microseconds.
"""

from __future__ import annotations

import json
import statistics
from typing import Any, Sequence

GLUSTERD_PORT = 24007
SAMPLES = 9

# Run on the client with python3 (the agent needs it anyway): argv = port, samples, hosts…
RTT_SCRIPT = r"""
import json, socket, sys, time
port, samples, hosts = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
out = {}
for host in hosts:
    times, error = [], ""
    for _ in range(samples):
        t = time.perf_counter()
        try:
            s = socket.create_connection((host, port), timeout=5)
        except OSError as exc:
            error = str(exc)
            break
        times.append((time.perf_counter() - t) * 1000.0)
        s.close()
        time.sleep(0.005)
    out[host] = {"ms": times, "error": error}
print(json.dumps(out))
"""


def lower_median(samples: Sequence[float]) -> float:
    """The median of the lower half of ``samples`` (at least one): what the path costs when
    nothing else queues on it."""
    ordered = sorted(samples)
    return statistics.median(ordered[:max(1, (len(ordered) + 1) // 2)])


def parse(text: str) -> dict[str, float]:
    """{host: RTT ms} from the script's output; a host it could not reach is left out."""
    try:
        doc: Any = json.loads(text)
    except ValueError:
        return {}
    if not isinstance(doc, dict):
        return {}
    out = {}
    for host, got in doc.items():
        ms = got.get("ms") if isinstance(got, dict) else None
        if isinstance(ms, list) and ms and all(isinstance(v, (int, float)) and v >= 0 for v in ms):
            out[str(host)] = round(lower_median(ms), 4)
    return out


def argv(python: str, hosts: Sequence[str], samples: int = SAMPLES) -> list[str]:
    return [python, "-c", RTT_SCRIPT, str(GLUSTERD_PORT), str(samples), *hosts]
