"""`brickyard import HOST [--volume NAME] --out FILE`: draw an existing cluster.

Reads ``gluster volume info/status detail/peer status --xml`` on HOST over SSH and writes a
topology file. Exit codes: 0 written, 1 the host or gluster failed, 2 bad input.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from ..core import topofile
from ..remote.executor import ExecutorError
from ..remote.importer import import_cluster
from ..remote.ssh import check_host_name
from .command import Outcome, UsageError
from .remote_common import RemoteCommand, run_with_pool


class ImportCommand(RemoteCommand):
    description = ("Read volume info, brick status and peers from one gluster node over SSH and write them as "
                   "a topology file.")

    def add_arguments(self, p: argparse.ArgumentParser) -> None:
        p.add_argument("host", help="a gluster node (as ssh would name it)")
        p.add_argument("--volume", metavar="NAME", help="import only this volume (default: all)")
        p.add_argument("--out", metavar="FILE", required=True, help="the topology file to write")
        p.add_argument("--overwrite", action="store_true", help="replace FILE if it exists")

    def run(self, args: argparse.Namespace) -> Outcome:
        out = Path(args.out)
        _check_out(out, args.overwrite)
        try:
            check_host_name(args.host)
        except ExecutorError as exc:
            raise UsageError(str(exc)) from None

        async def body(pool):
            return await import_cluster(pool.executor(args.host), args.volume, reach=pool.executor)

        result = run_with_pool(args, body)
        try:
            topofile.save(result.topology, out)
        except OSError as exc:  # the folder changed while gluster was asked
            raise UsageError(f"--out {out}: cannot write it: {exc.strerror or exc}") from None
        topo = result.topology
        if args.json:
            return Outcome(0, doc={
                "ok": True, "out": str(out), "notes": result.notes,
                "volumes": [{"name": v.name, "type": v.layout.type.value, "bricks": [str(b) for b in v.bricks]}
                            for v in topo.volumes],
                "nodes": [n.name for n in topo.nodes]})
        return Outcome(0, text=[*(f"{v.name}: {v.layout.type.value}, {len(v.bricks)} bricks" for v in topo.volumes),
                                f"wrote {out} ({len(topo.nodes)} nodes, {len(topo.volumes)} volumes)"],
                       notes=[f"note: {note}" for note in result.notes])


COMMAND = ImportCommand()


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
