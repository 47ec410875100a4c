"""`brickyard import HOST [--volume NAME] --out FILE`: draw an existing cluster.

Reads ``gluster volume info/status detail/peer status --xml`` on HOST over SSH and writes a
topology file. Exit codes: 0 written, 1 the host or gluster failed, 2 bad input.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ..cli import UsageError, emit_json
from ..core import topofile
from ..remote.executor import ExecutorError
from ..remote.hostkeys import HostKeyError
from ..remote.importer import import_cluster
from ..remote.ssh import check_host_name
from .provision import _refused
from .remote_common import add_ssh_arguments, host_key_exit, run_with_pool


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("import", help="build a topology file from a running cluster",
                       description="Read volume info, brick status and peers from one gluster node over "
                                   "SSH and write them as a topology file.")
    p.add_argument("host", help="a gluster node (as ssh would name it)")
    p.add_argument("--volume", metavar="NAME", help="import only this volume (default: all)")
    p.add_argument("--out", metavar="FILE", required=True, help="the topology file to write")
    p.add_argument("--overwrite", action="store_true", help="replace FILE if it exists")
    add_ssh_arguments(p)
    p.set_defaults(func=run)


def _check_out(out: Path, overwrite: bool) -> None:
    """Refuse an --out that cannot be written, before any host is reached (UsageError)."""
    if out.is_dir():
        raise UsageError(f"--out {out} is a directory; name a file in it")
    if out.exists() and not overwrite:
        raise UsageError(f"{out} exists; choose another --out or add --overwrite")
    if out.exists() and not out.is_file():
        raise UsageError(f"--out {out} is not a regular file")
    folder = out.parent if str(out.parent) else Path(".")
    if not folder.is_dir():
        raise UsageError(f"--out {out}: {folder} is not a directory")
    # the file is written as a temporary file in the same folder, then renamed over it
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"--out {out}: the folder {folder} is not writable")


def run(args: argparse.Namespace) -> int:
    out = Path(args.out)
    _check_out(out, args.overwrite)
    try:
        check_host_name(args.host)
    except ExecutorError as exc:
        raise UsageError(str(exc)) from None

    async def body(pool):
        return await import_cluster(pool.executor(args.host), args.volume, reach=pool.executor)

    try:
        result = run_with_pool(args, body)
    except HostKeyError as exc:
        return host_key_exit(exc, args.json)
    except ExecutorError as exc:
        return _refused(str(exc), args.json)
    try:
        topofile.save(result.topology, out)
    except OSError as exc:  # the folder changed while gluster was asked
        raise UsageError(f"--out {out}: cannot write it: {exc.strerror or exc}") from None
    topo = result.topology
    if args.json:
        emit_json({"ok": True, "out": str(out), "notes": result.notes,
                          "volumes": [{"name": v.name, "type": v.layout.type.value, "bricks": [str(b) for b in v.bricks]}
                                      for v in topo.volumes],
                          "nodes": [n.name for n in topo.nodes]}, indent=2)
    else:
        for v in topo.volumes:
            print(f"{v.name}: {v.layout.type.value}, {len(v.bricks)} bricks")
        for note in result.notes:
            print(f"note: {note}", file=sys.stderr)
        print(f"wrote {out} ({len(topo.nodes)} nodes, {len(topo.volumes)} volumes)")
    return 0
