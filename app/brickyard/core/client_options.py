"""What a volume's options make its client do, as the throughput model sees it.

The model predicts a layout on the hardware it was calibrated on; what differs between layouts
besides their bricks is what gluster's client does with them, and that is partly the volume's
options — those an admin set, and those glusterd sets by itself:

- ``performance.client-io-threads``: the io-threads translator in the client graph. On by
  default, but glusterd turns it **off** when it creates a replicated volume (distributed-
  replicate and arbiter included; ``glusterd_op_create_volume`` in glusterd-volume-ops.c:
  "this has adverse effects on replicate volumes due to replication design issues"), when
  add-brick makes a volume replicated, and on again when remove-brick leaves replica 1
  (glusterd-brick-ops.c). Dispersed and distributed volumes keep it. Without it every request
  is wound down the graph on the FUSE reader thread, one at a time: on the sandbox 4 × replica
  2 moved 8 files at 0.55 × (writes) and 0.8 × (reads) of what the same volume moved with it
  (``throughput.NO_IO_THREADS``).
- how reads pick bricks: ``cluster.read-hash-mode`` and ``cluster.choose-local`` on replicated
  sets, ``disperse.read-policy`` on dispersed ones (``read_policy``).

Each option read here is taken as gluster would have it: what the volume sets, else glusterd's
default for that layout.
"""

from __future__ import annotations

from typing import Mapping

IO_THREADS = "performance.client-io-threads"

# how a set's reads pick bricks (from the volume's options, ``read_policy``)
READ_SPREAD = "hash"      # each file on its own brick(s) by GFID hash (gluster's default)
READ_FIRST = "first"      # cluster.read-hash-mode 0: the first readable brick of the set
READ_LEAST = "least"      # read-hash-mode 3/4/5 (least outstanding/latency), disperse round-robin
READ_LOCAL = "local"      # cluster.choose-local: the client holds a brick of the set
READ_POLICIES = (READ_SPREAD, READ_FIRST, READ_LEAST, READ_LOCAL)

_TRUE = ("on", "true", "yes", "1", "enable")
_FALSE = ("off", "false", "no", "0", "disable")


def _boolean(value: object, default: bool) -> bool:
    text = str(value).strip().lower()
    return True if text in _TRUE else False if text in _FALSE else default


def read_policy(kind: str, options: Mapping[str, str]) -> str:
    """A set's read policy from the volume's options (gluster's defaults where unset):
    replica ``cluster.read-hash-mode`` (default 1: GFID hash; 2, GFID and client PID, spreads
    the same for files read by different processes), disperse ``disperse.read-policy``
    (default gfid-hash)."""
    if kind == "replica":
        mode = str(options.get("cluster.read-hash-mode", "1")).strip()
        return {"0": READ_FIRST, "3": READ_LEAST, "4": READ_LEAST, "5": READ_LEAST}.get(mode, READ_SPREAD)
    if kind == "disperse":
        return READ_LEAST if str(options.get("disperse.read-policy", "")).strip() == "round-robin" else READ_SPREAD
    return READ_SPREAD


def chooses_local(options: Mapping[str, str]) -> bool:
    """``cluster.choose-local`` (on by default)."""
    return _boolean(options.get("cluster.choose-local", "on"), True)


def io_threads(replicated: bool, options: Mapping[str, str]) -> bool:
    """Whether the volume's client graph holds io-threads: the volume's own
    ``performance.client-io-threads``, else glusterd's default for the layout (off for a
    replicated volume, on for any other)."""
    if IO_THREADS in options:
        return _boolean(options[IO_THREADS], not replicated)
    return not replicated


def io_threads_words(on: bool, replicated: bool, options: Mapping[str, str]) -> str:
    """Where ``io_threads`` came from, for a note."""
    if IO_THREADS in options:
        return f"{IO_THREADS} {options[IO_THREADS]} (set on the volume)"
    return (f"{IO_THREADS} off: glusterd turns it off when it creates a replicated volume" if replicated and not on
            else f"{IO_THREADS} on (gluster's default)")


#: what a client without io-threads moves, all files at once, of what it moves with them
#: (value, pessimistic, optimistic), until a calibration measures it. On servers of their own, 1:
#: the FUSE thread winds a 128 KiB request in microseconds, far below what links move (the
#: NFS-to-GlusterFS write-up's 4 × replica 2 is met without a penalty). Where the servers share
#: the client's CPUs (the probe finds it), the client's threads compete for them with the bricks'
#: and everything else running, and fewer runnable threads get a smaller share: how much depends
#: on that competition. Paired runs on the 2-core sandbox at load 19-28 (the same volume, the
#: option switched between repeats, six pairs each) moved 8 files at 0.59 × (4 × replica 2),
#: 0.57 × (distribute 8) and 0.65 × (2 × disperse 3+1) written, 0.77 ×, 0.84 × and 0.7 × read;
#: at load 2-10 (the campaign of 2026-11-23) 4 × replica 2 read 8 files as fast as distribute.
#: One file went as fast either way, within its scatter (distribute and disperse a little faster
#: without them: one thread hand-off less per request).
NO_IO_THREADS_ASSUMED = {"write": (1.0, 0.6, 1.0), "read": (1.0, 0.6, 1.0)}
NO_IO_THREADS_NOTE = ("assumed 1: the FUSE thread winds a 128 KiB request in microseconds, far below what links "
                      "move, so a client without io-threads moves what it moves with them; calibrate on a layout "
                      f"without them (a replicated one, or distribute with {IO_THREADS} off) to measure yours")
NO_IO_THREADS_SHARED = {"write": (1.0, 0.5, 1.0), "read": (1.0, 0.5, 1.0)}
NO_IO_THREADS_SHARED_NOTE = ("assumed 1 (range 0.5 … 1): the servers share the client's CPUs, where a client "
                             "without io-threads gets a smaller share of them the busier they are (the 2-core "
                             "sandbox: 0.57 … 0.84 × for 8 files at load 19-28, about 1 at load 2-10); measure "
                             "it: calibrate on the calibration layout run again with "
                             f"{IO_THREADS} off (benchmarks/model_check.py does)")
