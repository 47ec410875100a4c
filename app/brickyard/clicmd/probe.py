"""`brickyard probe FILE`: measure the hardware under a planned volume before it exists, to
calibrate the throughput model.

    brickyard probe lab.brickyard.json --save          # every brick filesystem, client1 → each node
    brickyard plan lab.brickyard.json --calibrate RUN  # the probe run calibrates the prediction

It runs the ``probe`` workload (the same engine as ``brickyard bench``) on targets built from
the topology: each distinct brick filesystem of the volume's bricks (its mount point, or the
brick directory's parent when no mount is drawn) and one client (``--client``, default the
topology's first). dd works in a run directory the engine creates in each filesystem and
removes; TCP goes from the client to a receiver on each server, by the node's gluster name
(the name the client's mount uses too). Exit codes as ``bench``.
"""

from __future__ import annotations

import argparse
import posixpath

from .command import Outcome, UsageError
from .inputs import add_topology_arguments, load_topology
from .remote_common import RemoteCommand


class ProbeCommand(RemoteCommand):
    def add_arguments(self, p: argparse.ArgumentParser) -> None:
        add_topology_arguments(p, "the volume whose bricks to probe (default: every brick)")
        p.add_argument("--client", metavar="NAME", help="the client to send TCP from (default: the first client)")
        p.add_argument("--param", action="append", default=[], metavar="K=V",
                       help="probe parameter (disk_size, block_size, tcp_bytes, together, repeats)")
        p.add_argument("--save", action="store_true", help="store the run in the history (to --calibrate on it)")
        p.add_argument("--db", metavar="URL", help="history database for --save")
        p.add_argument("--no-wait", action="store_true", help="refuse instead of waiting for a busy host")
        p.add_argument("--dry-run", action="store_true", help="print the targets and parameters and stop")

    def run(self, args: argparse.Namespace) -> Outcome:
        from ..bench import registry
        from ..bench.api import ParamError
        from ..bench.engine import TargetError, parse_target
        from .bench import _params, run_workload

        topo = load_topology(args.file)
        targets, params = targets_of(topo, args.volume, args.client)
        try:
            params.update(_params(args.param))
            workload = registry.find("probe")
            workload.resolve(params)
            specs = [parse_target(t) for t in targets]
        except (LookupError, ParamError, TargetError, ValueError) as exc:
            raise UsageError(str(exc)) from None
        if args.dry_run:
            return Outcome(0, doc={"ok": True, "targets": targets, "params": params},
                           text=["probe targets: " + " ".join(targets),
                                 "parameters: " + " ".join(f"{k}={v}" for k, v in params.items())])
        args.server = []
        return run_workload(args, workload, params, specs, None)


COMMAND = ProbeCommand()


def targets_of(topo, volume_name: str | None = None, client: str | None = None) -> tuple[list[str], dict[str, str]]:
    """(targets, parameters) for the probe workload: one target per distinct brick filesystem
    (``node:/mount``) and one client target (``client:/tmp``)."""
    from ..core.topology import TopologyError

    if volume_name:
        try:
            refs = topo.require_volume(volume_name).bricks
        except TopologyError as exc:
            raise UsageError(str(exc)) from None
    else:
        refs = [b for n in topo.nodes for b in ((n.name, x.path) for x in n.bricks)]
    seen: dict[tuple[str, str], str] = {}
    for ref in refs:
        node_name, path = (ref.node, ref.path) if hasattr(ref, "node") else ref
        node = topo.node(node_name)
        brick = node.brick(path) if node else None
        if node is None or brick is None:
            continue
        where = brick.mount or posixpath.dirname(brick.path.rstrip("/")) or "/"
        seen.setdefault((node.name, node.filesystem_of(brick)), f"{node.name}:{where}")
    if not seen:
        raise UsageError("no brick to probe: the topology (or the volume) has no bricks")
    names = [c.name for c in topo.clients]
    chosen = client or (names[0] if names else None)
    if chosen is not None and chosen not in names:
        raise UsageError(f"--client {chosen}: no such client in the topology ({', '.join(names) or 'none'})")
    targets = list(seen.values())
    params: dict[str, str] = {}
    if chosen is not None:
        targets.append(f"{chosen}:/tmp")
        params["clients"] = chosen
    return targets, params
