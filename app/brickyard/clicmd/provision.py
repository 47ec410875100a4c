"""`brickyard provision FILE --volume NAME [--dry-run] [--yes]`: create a planned volume over SSH.

Exit codes: 0 provisioned (or the dry run printed), 1 a step failed, gluster would refuse the
layout, or warnings were not accepted with --yes, 2 bad input.
"""

from __future__ import annotations

import argparse
import sys

from ..cli import emit_json
from ..core.topology import TopologyError
from ..remote.executor import ExecutorError
from ..remote.hosts import TopologyHosts
from ..remote.hostkeys import HostKeyError
from ..remote.provision import ProvisionError, provision_plan, run_provision
from ..remote.steps import dry_run
from .plan import _load, _pick_volume
from .remote_common import add_ssh_arguments, cli_progress, host_key_exit, print_report, run_with_pool


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("provision", help="create a planned volume on its hosts over SSH",
                       description="Probe peers, create brick directories, create, configure and start the "
                                   "volume, and mount it on its clients. Shows everything first with --dry-run; "
                                   "a re-run skips the steps already done.")
    p.add_argument("file", help="a topology file (*.brickyard.json)")
    p.add_argument("--volume", metavar="NAME", help="the volume to provision (default: the file's only volume)")
    p.add_argument("--dry-run", action="store_true", help="print every command per host and run nothing")
    p.add_argument("--yes", action="store_true",
                   help="accept the warnings gluster would ask about (it runs with --mode=script)")
    p.add_argument("--fstab", action="store_true", help="also add every client mount to /etc/fstab (mounts with \"fstab\": true get a line without it)")
    add_ssh_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    topo = _load(args.file)
    volume = _pick_volume(topo, args.volume)
    try:
        plan = provision_plan(topo, volume.name, fstab=args.fstab)
    except (ProvisionError, TopologyError) as exc:
        return _refused(str(exc), args.json)
    questions = plan.questions
    if args.dry_run:
        notes = [f"gluster would ask: {q}" for q in questions]
        return print_report(dry_run("provision", volume.name, plan.steps, notes), args.json)
    if questions and not args.yes:
        lines = [f"gluster would ask before creating {volume.name}:", *(f"  - {q}" for q in questions),
                 "Run again with --yes to accept these and provision."]
        return _refused("\n".join(lines), args.json, questions)
    hosts = TopologyHosts(topo)
    progress = cli_progress(args.json)

    async def body(pool):
        hosts.pool = pool
        return await run_provision(plan, hosts, progress, topology_file=args.file)

    try:
        report = run_with_pool(args, body)
    except HostKeyError as exc:
        return host_key_exit(exc, args.json)
    except ExecutorError as exc:
        return _refused(str(exc), args.json)
    return print_report(report, args.json)


def _refused(message: str, as_json: bool, questions: list[str] | None = None) -> int:
    if as_json:
        doc = {"ok": False, "error": message, "exit": 1}
        if questions:
            doc["questions"] = questions
        emit_json(doc, indent=2)
    else:
        print(message, file=sys.stderr)
    return 1
