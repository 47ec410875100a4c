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

from ..cli import UsageError
from .remote_common import add_ssh_arguments


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("probe", help="measure brick filesystems and client→server TCP before provisioning "
                                     "(calibrates the throughput model)")
    p.add_argument("file", help="a topology file (*.brickyard.json)")
    p.add_argument("--volume", metavar="NAME", help="the volume whose bricks to probe (default: every brick)")
    p.add_argument("--client", metavar="NAME", help="the client to send TCP from (default: the first client)")
    p.add_argument("--param", action="append", default=[], metavar="K=V",
                   help="probe parameter (disk_size, block_size, tcp_bytes, together, repeats)")
    p.add_argument("--save", action="store_true", help="store the run in the history (to --calibrate on it)")
    p.add_argument("--db", metavar="URL", help="history database for --save")
    p.add_argument("--no-wait", action="store_true", help="refuse instead of waiting for a busy host")
    p.add_argument("--dry-run", action="store_true", help="print the targets and parameters and stop")
    add_ssh_arguments(p)
    p.set_defaults(func=run)


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


def run(args: argparse.Namespace) -> int:
    from ..bench import registry
    from ..bench.api import ParamError
    from ..bench.engine import TargetError, parse_target
    from .bench import _params, _run
    from .plan import _load

    topo = _load(args.file)
    targets, params = targets_of(topo, args.volume, args.client)
    try:
        params.update(_params(args.param))
        workload = registry.find("probe")
        workload.resolve(params)
        specs = [parse_target(t) for t in targets]
    except (LookupError, ParamError, TargetError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    if args.dry_run:
        print("probe targets: " + " ".join(targets))
        print("parameters: " + " ".join(f"{k}={v}" for k, v in params.items()))
        return 0
    args.server = []
    return _run(args, workload, params, specs, None)
