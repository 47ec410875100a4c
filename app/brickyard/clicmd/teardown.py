"""`brickyard teardown FILE --volume NAME --confirm NAME`: unmount, stop, delete the volume and
remove the brick directories Brickyard created (never anything else).

Exit codes: 0 torn down, 1 a step failed, 2 bad input (including a missing or wrong --confirm).
"""

from __future__ import annotations

import argparse

from ..cli import UsageError
from ..core.topology import TopologyError
from ..remote.executor import ExecutorError
from ..remote.hostkeys import HostKeyError
from ..remote.hosts import TopologyHosts
from ..remote.provision import ProvisionError
from ..remote.steps import dry_run
from ..remote.teardown import run_teardown, teardown_plan
from .plan import _load, _pick_volume
from .provision import _refused
from .remote_common import add_ssh_arguments, cli_progress, host_key_exit, print_report, run_with_pool


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("teardown", help="unmount, stop and delete a volume; remove only what Brickyard created",
                       description="Unmount the volume on its clients, stop and delete it, and remove the "
                                   "brick directories Brickyard created for it. Type the volume name "
                                   "after --confirm.")
    p.add_argument("file", help="a topology file (*.brickyard.json)")
    p.add_argument("--volume", metavar="NAME", help="the volume to tear down (default: the file's only volume)")
    p.add_argument("--confirm", metavar="NAME", help="the volume name again, to confirm")
    p.add_argument("--dry-run", action="store_true", help="print every command per host and run nothing")
    add_ssh_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    topo = _load(args.file)
    volume = _pick_volume(topo, args.volume)
    try:
        steps = teardown_plan(topo, volume.name)
    except (ProvisionError, TopologyError) as exc:
        return _refused(str(exc), args.json)
    if args.dry_run:
        return print_report(dry_run("teardown", volume.name, steps), args.json)
    if args.confirm != volume.name:
        got = "no --confirm" if args.confirm is None else f"--confirm {args.confirm!r}"
        raise UsageError(f"tearing down {volume.name!r} deletes it and its data: confirm with "
                         f"--confirm {volume.name} ({got} given)")
    hosts = TopologyHosts(topo)
    progress = cli_progress(args.json)

    async def body(pool):
        hosts.pool = pool
        return await run_teardown(topo, volume.name, hosts, progress)

    try:
        report = run_with_pool(args, body)
    except HostKeyError as exc:
        return host_key_exit(exc, args.json)
    except ExecutorError as exc:
        return _refused(str(exc), args.json)
    return print_report(report, args.json)
