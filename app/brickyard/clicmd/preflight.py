"""`brickyard preflight FILE [--volume NAME]`: a checklist per host before provisioning.

Exit codes: 0 every check ok or warn, 1 at least one check failed, 2 bad input.
"""

from __future__ import annotations

import argparse
import sys

from ..core import topofile
from ..core.edits import record_free_space
from ..core.topology import TopologyError
from ..remote.hostkeys import UnknownHostKey
from ..remote.hosts import TopologyHosts
from ..remote.preflight import preflight
from .command import Outcome, UsageError
from .inputs import add_topology_arguments, load_topology
from .remote_common import RemoteCommand, run_with_pool


class PreflightCommand(RemoteCommand):
    description = ("Per host: reachable, authenticated, root or sudo, gluster and glusterd, peers, brick paths "
                   "(creatable, empty, not root fs, not a mount point, xattrs, free space), clock; on clients "
                   "the FUSE client, fio, python3, tar.")

    def add_arguments(self, p: argparse.ArgumentParser) -> None:
        add_topology_arguments(p, "check only the hosts and bricks of this volume")
        p.add_argument("--record", action="store_true",
                       help="write the free space measured on each brick's filesystem into FILE (the plan's "
                            "'free now')")

    def run(self, args: argparse.Namespace) -> Outcome:
        topo = load_topology(args.file)
        if args.volume:
            try:
                topo.require_volume(args.volume)
            except TopologyError as exc:
                raise UsageError(str(exc)) from None
        hosts = TopologyHosts(topo)

        async def body(pool):
            hosts.pool = pool
            return await preflight(topo, hosts, args.volume)

        report = run_with_pool(args, body)
        unknown = [h.host_key_error for h in report.hosts if isinstance(h.host_key_error, UnknownHostKey)]
        if unknown and not args.json and sys.stdin is not None and sys.stdin.isatty():
            accepted = 0
            for exc in unknown:
                print(f"{exc.host}: the host key of {exc.lookup} is not known yet:\n  {exc.algorithm} "
                      f"{exc.fingerprint}", file=sys.stderr)
                if input("Type 'yes' to trust it and remember it in Brickyard's known_hosts: ").strip() == "yes":
                    print(f"stored in {exc.accept()}", file=sys.stderr)
                    accepted += 1
            if accepted:
                report = run_with_pool(args, body)
        recorded = _record(args.file, report) if args.record else None
        code = 0 if report.ok else 1
        if args.json:
            doc = report.to_json()
            if recorded is not None:
                doc["recorded"] = recorded
            return Outcome(code, doc=doc)
        lines = [report.text()]
        if recorded is not None:
            lines.append(f"recorded the free space of {recorded} brick(s) in {args.file}")
        return Outcome(code, text=lines)


COMMAND = PreflightCommand()


def _record(path: str, report) -> int:
    """Write each measured brick's free space into the topology file (read again now, so
    nothing else in it changes)."""
    topo = load_topology(path)
    edit = record_free_space(topo, report.free_space(), report.finished)
    if edit is None:
        return 0
    edit.apply(topo)
    try:
        topofile.save(topo, path)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    return len(edit.parts)
