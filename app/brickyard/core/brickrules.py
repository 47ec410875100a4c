"""gluster 10's per-brick rules for ``volume create`` (the layout's counting rules are in
``layout``).

- cli/src/cli-cmd-parser.c ``cli_cmd_bricks_parse``: ``host:/absolute/path``; no
  localhost/127.0.0.1; "Found duplicate exports".
- xlators/mgmt/glusterd/src/glusterd-utils.c ``glusterd_check_brick_order``: bricks of one
  replica or disperse set on one server need ``force``.
- glusterd-utils.c ``glusterd_validate_and_create_brickpath``: a brick on the root partition,
  or a brick that is itself a mount point, needs ``force``; a brick (or a parent of it) that
  is already part of a volume is refused.
- glusterd-utils.c ``glusterd_is_brickpath_available``: a brick inside another brick (or
  containing one) is refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .planmodel import ERROR, NEEDS_FORCE, Finding
from .topology import BrickRef, Node, Topology, Volume

if TYPE_CHECKING:
    from .layout import Resolved

FORCE_TAIL = "Use 'force' at the end of the command if you want to override this behavior."
LOCAL_HOSTS = ("localhost", "127.0.0.1")


def _clean(path: str) -> str:
    stripped = path.rstrip("/")
    return stripped or "/"


def _inside(inner: str, outer: str) -> bool:
    outer = _clean(outer)
    return inner != outer and inner.startswith(outer.rstrip("/") + "/")


def brick_findings(topo: Topology, volume: Volume, resolved: "Resolved",
                   sets: tuple[tuple[BrickRef, ...], ...]) -> list[Finding]:
    out: list[Finding] = []
    seen: dict[tuple[str, str], BrickRef] = {}
    nodes = {n.name: n for n in topo.nodes}
    for ref in volume.bricks:
        if not ref.path.startswith("/"):
            out.append(Finding(ERROR, "brick-path", f"wrong brick type: {ref}, use "
                               "<HOSTNAME>:<export-dir-abs-path>", (ref,)))
            continue
        if ref.node in LOCAL_HOSTS:
            out.append(Finding(ERROR, "brick-localhost", "Please provide a valid hostname/ip "
                               "other than localhost or 127.0.0.1", (ref,)))
        key = (ref.node, _clean(ref.path))
        if key in seen:
            out.append(Finding(ERROR, "duplicate-brick", f"Found duplicate exports {ref}",
                               (seen[key], ref)))
            continue
        seen[key] = ref
        node = nodes.get(ref.node)
        brick = node.brick(ref.path) if node else None
        if brick is None:
            what = f"no node {ref.node!r}" if node is None else f"node {ref.node!r} has no brick {ref.path!r}"
            out.append(Finding(ERROR, "unknown-brick", f"Brick {ref} is not in the topology ({what}).", (ref,)))
            continue
        out.extend(_partition_findings(ref, brick.mount))
    out.extend(_nesting_findings(topo, volume, list(seen.values())))
    if resolved.set_size > 1:
        out.extend(_same_server_findings(nodes, resolved, sets))
    return out


def _partition_findings(ref: BrickRef, mount: str) -> list[Finding]:
    """glusterd_validate_and_create_brickpath, read from the brick's recorded mount point
    (unknown mount: no verdict)."""
    if not mount:
        return []
    if _clean(mount) == _clean(ref.path):
        return [Finding(NEEDS_FORCE, "brick-is-mount-point",
                        f"The brick {ref} is a mount point. Please create a sub-directory under "
                        "the mount point and use that as the brick directory. Or use 'force' at "
                        "the end of the command if you want to override this behavior.", (ref,))]
    if _clean(mount) == "/":
        return [Finding(NEEDS_FORCE, "brick-in-root-partition",
                        f"The brick {ref} is being created in the root partition. It is "
                        "recommended that you don't use the system's root partition for storage "
                        "backend. Or use 'force' at the end of the command if you want to "
                        "override this behavior.", (ref,))]
    return []


def _nesting_findings(topo: Topology, volume: Volume, bricks: list[BrickRef]) -> list[Finding]:
    """A brick inside another of this volume, or in or around a brick of another volume."""
    out: list[Finding] = []
    by_node: dict[str, list[BrickRef]] = {}
    for ref in bricks:
        if ref.path.startswith("/"):
            by_node.setdefault(ref.node, []).append(ref)
    others: dict[str, list[tuple[BrickRef, str]]] = {}
    for other in topo.volumes:
        if other.name == volume.name:
            continue
        for ref in other.bricks:
            if ref.node in by_node:
                others.setdefault(ref.node, []).append((ref, other.name))
    for node, refs in by_node.items():
        ordered = sorted(refs, key=lambda r: _clean(r.path))
        # Sorted paths put a parent right before its children, so one pass finds nesting.
        stack: list[BrickRef] = []
        for ref in ordered:
            path = _clean(ref.path)
            while stack and not _inside(path, stack[-1].path):
                stack.pop()
            if stack:
                out.append(Finding(ERROR, "brick-inside-brick",
                                   f"Brick {ref} is inside brick {stack[-1]} of the same volume. "
                                   "Brick may be containing or be contained by an existing brick.",
                                   (stack[-1], ref)))
            stack.append(ref)
        for used, vol_name in others.get(node, ()):
            used_path = _clean(used.path)
            for ref in refs:
                path = _clean(ref.path)
                if path == used_path:
                    out.append(Finding(ERROR, "brick-in-use",
                                       f"{ref} is already part of a volume ({vol_name}).", (ref,)))
                elif _inside(path, used_path) or _inside(used_path, path):
                    out.append(Finding(ERROR, "brick-inside-brick",
                                       f"Brick: {ref} not available. Brick may be containing or be "
                                       f"contained by an existing brick ({used} of volume {vol_name}).",
                                       (ref,)))
    return out


def _same_server_findings(nodes: dict[str, Node], resolved: "Resolved",
                          sets: tuple[tuple[BrickRef, ...], ...]) -> list[Finding]:
    """glusterd_check_brick_order: any two bricks of one set on one server (same peer name,
    or two names with the same address)."""
    kind = "replicate" if resolved.replica else "disperse"
    out: list[Finding] = []
    for index, members in enumerate(sets):
        hosts: dict[str, BrickRef] = {}
        clashes: list[BrickRef] = []
        for ref in members:
            node = nodes.get(ref.node)
            server = (node.address or node.name) if node else ref.node
            if server in hosts:
                clashes.extend(r for r in (hosts[server], ref) if r not in clashes)
            else:
                hosts[server] = ref
        if clashes:
            out.append(Finding(
                NEEDS_FORCE, "same-server-set",
                f"Multiple bricks of a {kind} volume are present on the same server. This setup "
                f"is not optimal. Bricks should be on different nodes to have best fault tolerant "
                f"configuration. {FORCE_TAIL} (set {index + 1}: {', '.join(map(str, clashes))})",
                tuple(clashes)))
    return out
