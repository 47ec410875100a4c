"""gluster 10's per-brick rules for ``volume create`` (the layout's counting rules are in
``layout``).

- cli/src/cli-cmd-parser.c ``cli_cmd_bricks_parse``: ``host:/absolute/path``; no
  localhost, 127.0.0.1 or a host starting "0." (0.0.0.0/8); "Found duplicate exports".
- xlators/mgmt/glusterd/src/glusterd-utils.c ``glusterd_check_brick_order``: bricks of one
  replica or disperse set on one server need ``force``.
- glusterd-utils.c ``glusterd_validate_and_create_brickpath``: a brick on the root partition,
  or a brick that is itself a mount point, needs ``force``; a brick (or a parent of it) that
  is already part of a volume is refused unless ``force`` (``glusterd_is_path_in_use`` runs
  only without force): within one new volume that is a brick listed after a brick that
  contains it (a brick listed before its container passes).
- glusterd-utils.c ``glusterd_is_brickpath_available``: a brick inside or around a brick of
  another, existing volume is refused, force or not.
- Characters gluster 10.3 accepts in ``volume create`` but cannot serve (tried on the lab, one
  character at a time, create then start): a path with whitespace starts a brick on the path
  cut at the first space; a ``"``, a backquote or a backslash makes ``volume start`` fail with
  "Commit failed"; a ``:`` in the path is refused by the CLI ("Wrong brick type").
"""

from __future__ import annotations

from collections import Counter
from itertools import chain
from operator import attrgetter
from typing import TYPE_CHECKING

from .planmodel import ERROR, NEEDS_FORCE, WARNING, Finding, TopologyIndex
from .topology import BrickRef, Node, Topology, Volume

if TYPE_CHECKING:
    from .layout import Resolved

FORCE_TAIL = "Use 'force' at the end of the command if you want to override this behavior."
LOCAL_HOSTS = ("localhost", "127.0.0.1")
LOOPBACK_PREFIX = "0."  # cli_cmd_bricks_parse: strncmp(host, "0.", 2), 0.0.0.0/8
LOCAL_HOST_REFUSED = ("Please provide a valid hostname/ip other than localhost, 127.0.0.1 or loopback "
                      "address (0.0.0.0 to 0.255.255.255).")
_NOT_AVAILABLE = ("Brick: {ref} not available. Brick may be containing or be contained by an existing "
                  "brick.")
_NODE, _PATH = attrgetter("node"), attrgetter("path")
_START_FAILS = ('"', "`", "\\")


def path_char_problem(path: str) -> str | None:
    """Why gluster cannot serve a brick at ``path`` because of a character in it, or None."""
    if ":" in path:
        return "a ':' in the path makes gluster read it as host:path (Wrong brick type)"
    if any(c.isspace() for c in path):
        return ("gluster accepts it in volume create, but the brick process is started on the path cut "
                "at the first space, so it would serve another directory")
    bad = sorted({c for c in path if c in _START_FAILS})
    if bad:
        return (f"gluster accepts it in volume create, but volume start fails (Commit failed) with "
                f"{' or '.join(repr(c) for c in bad)} in a brick path")
    return None


def _clean(path: str) -> str:
    stripped = path.rstrip("/")
    return stripped or "/"


def _inside(inner: str, outer: str) -> bool:
    outer = _clean(outer)
    return inner != outer and inner.startswith(outer.rstrip("/") + "/")


def brick_findings(topo: Topology, volume: Volume, resolved: "Resolved",
                   sets: tuple[tuple[BrickRef, ...], ...], index: TopologyIndex) -> list[Finding]:
    fast = _clean_volume_findings(topo, volume, index)
    if fast is not None:
        if resolved.set_size > 1:
            fast.extend(_same_server_findings(index.nodes, resolved, sets, index.node_names(volume.bricks)))
        return fast
    out: list[Finding] = []
    seen: dict[tuple[str, str], BrickRef] = {}
    nodes = index.nodes
    for ref in volume.bricks:
        node_name, path = ref.node, ref.path
        if path[:1] != "/":
            out.append(Finding(ERROR, "brick-path", f"wrong brick type: {ref}, use "
                               "<HOSTNAME>:<export-dir-abs-path>", (ref,)))
            continue
        why = path_char_problem(path)
        if why:
            out.append(Finding(ERROR, "brick-path-chars", f"Brick {ref}: {why}.", (ref,)))
        if node_name in LOCAL_HOSTS or node_name.startswith(LOOPBACK_PREFIX):
            out.append(Finding(ERROR, "brick-localhost", f"{LOCAL_HOST_REFUSED} ({ref})", (ref,)))
        clean = path.rstrip("/") or "/"
        key = (node_name, clean)
        if key in seen:
            out.append(Finding(ERROR, "duplicate-brick", f"Found duplicate exports {ref}",
                               (seen[key], ref)))
            continue
        seen[key] = ref
        brick = index.brick(ref)
        if brick is None:
            what = (f"no node {node_name!r}" if node_name not in nodes
                    else f"node {node_name!r} has no brick {path!r}")
            out.append(Finding(ERROR, "unknown-brick", f"Brick {ref} is not in the topology ({what}).", (ref,)))
            continue
        mount = brick.mount
        if mount:
            mount = mount.rstrip("/") or "/"
            if mount == clean or mount == "/":
                out.append(_partition_finding(ref, at_mount=mount == clean))
    out.extend(_nesting_findings(topo, volume, seen))
    if resolved.set_size > 1:
        out.extend(_same_server_findings(nodes, resolved, sets))
    return out


def _clean_volume_findings(topo: Topology, volume: Volume, index: TopologyIndex) -> list[Finding] | None:
    """The per-brick findings of a volume without the rare problems (unknown, relative,
    duplicate or nested bricks, localhost, other volumes), in a few passes over its bricks;
    None when the volume has one of them and the brick-by-brick walk must run."""
    refs = volume.bricks
    found, missing, unique = index.resolve(refs)
    if missing or not unique:
        return None
    if LOCAL_HOSTS[0] in index.nodes or LOCAL_HOSTS[1] in index.nodes or any(
            n.startswith(LOOPBACK_PREFIX) for n in index.nodes):
        return None
    if any(v.bricks and v.name != volume.name for v in topo.volumes):
        return None
    # every brick is in the topology: paths that pass for all of the topology's pass for the
    # volume's (a handful, read when the index was built); otherwise the volume's own
    if not _clean_paths(index.paths) and not _clean_paths(index.distinct_paths(refs)):
        return None
    out: list[Finding] = []
    # only a mount equal to "/" or to the path, or written with a trailing slash, can matter
    if not index.mount_nodes:
        return out
    for i in [i for i, b in enumerate(found)
              if b.mount and (b.mount == b.path or b.mount == "/" or b.mount[-1] == "/")]:
        mount = found[i].mount.rstrip("/") or "/"
        if mount in ("/", refs[i].path):
            out.append(_partition_finding(refs[i], at_mount=mount == refs[i].path))
    return out


def _clean_paths(paths: set[str] | frozenset[str]) -> bool:
    """No relative path, trailing slash, character gluster cannot serve, or path inside another."""
    if any(p[:1] != "/" or (p[-1:] == "/" and p != "/") for p in paths):
        return False
    if any(path_char_problem(p) for p in paths):
        return False
    return not any(a in paths for p in paths for a in _ancestors(p))


def _partition_finding(ref: BrickRef, at_mount: bool) -> Finding:
    """glusterd_validate_and_create_brickpath, read from the brick's recorded mount point
    (unknown mount: no verdict)."""
    if at_mount:
        return Finding(NEEDS_FORCE, "brick-is-mount-point",
                       f"The brick {ref} is a mount point. Please create a sub-directory under "
                       "the mount point and use that as the brick directory. Or use 'force' at "
                       "the end of the command if you want to override this behavior.", (ref,))
    return Finding(NEEDS_FORCE, "brick-in-root-partition",
                   f"The brick {ref} is being created in the root partition. It is "
                   "recommended that you don't use the system's root partition for storage "
                   "backend. Or use 'force' at the end of the command if you want to "
                   "override this behavior.", (ref,))


def _ancestors(path: str) -> list[str]:
    """Every parent directory of a cleaned absolute path, nearest first ("/a/b" -> "/a", "/")."""
    out = []
    i = path.rfind("/")
    while i >= 0 and path != "/":
        out.append(path[:i] or "/")
        i = path.rfind("/", 0, i) if i > 0 else -1
    return out


def _nesting_findings(topo: Topology, volume: Volume,
                      seen: dict[tuple[str, str], BrickRef]) -> list[Finding]:
    """A brick inside another of this volume, or in or around a brick of another volume.
    ``seen`` maps (node, path without trailing slash) to each brick of this volume.

    Nesting is a relation between paths, so it is looked for among the distinct paths
    first (a handful, even on 1,000 nodes) and per node only for the nested pairs found."""
    out: list[Finding] = []
    paths = {p for _, p in seen}
    pairs = [(outer, inner) for inner in paths for outer in _ancestors(inner) if outer in paths]
    if pairs:
        # glusterd prepares the bricks in order, setting trusted.glusterfs.volume-id on each;
        # a later brick below an earlier one then hits glusterd_is_path_in_use ("parent
        # directory X is already part of a volume"), which 'force' skips. A brick above an
        # earlier one is not checked at all (the check looks at parents only).
        position = {key: i for i, key in enumerate(seen)}
        nodes_by_path: dict[str, list[str]] = {}
        for node, path in seen:
            nodes_by_path.setdefault(path, []).append(node)
        reported: set[BrickRef] = set()
        for outer_path, inner_path in sorted(pairs, key=lambda p: (-len(p[0]), p)):
            for node in nodes_by_path[inner_path]:
                outer = seen.get((node, outer_path))
                ref = seen[(node, inner_path)]
                if outer is None or ref in reported:
                    continue
                earlier = [seen[(node, a)] for a in _ancestors(inner_path)
                           if (node, a) in seen and position[(node, a)] < position[(node, inner_path)]]
                reported.add(ref)
                if earlier:
                    parent = earlier[0]
                    out.append(Finding(NEEDS_FORCE, "brick-inside-brick",
                                       f"parent directory {parent.path} is already part of a volume "
                                       f"(brick {ref} lies inside brick {parent}, which gluster prepares "
                                       f"first). {FORCE_TAIL}", (parent, ref)))
                else:
                    out.append(Finding(WARNING, "brick-contains-brick",
                                       f"Brick {outer} contains brick {ref} of the same volume: gluster "
                                       f"accepts this order, but {outer} will also hold {ref}'s files.",
                                       (outer, ref)))
    by_node: dict[str, list[tuple[str, BrickRef]]] | None = None
    for other in topo.volumes:
        if other.name == volume.name or not other.bricks:
            continue
        if by_node is None:
            by_node = {}
            for (node, path), ref in seen.items():
                by_node.setdefault(node, []).append((path, ref))
        for used in other.bricks:
            if used.node not in by_node:
                continue
            used_path = _clean(used.path)
            same = seen.get((used.node, used_path))
            if same is not None:
                # gluster 10.3's words for a brick of a volume that exists, force or not
                # (glusterd_is_brickpath_available, seen on the lab)
                out.append(Finding(ERROR, "brick-in-use", f"{_NOT_AVAILABLE.format(ref=same)} (volume "
                                                          f"{other.name} uses {same})", (same,)))
                continue
            # ours inside theirs, or theirs inside ours
            inner = [r for p, r in by_node[used.node] if _inside(p, used_path)]
            outer = [seen[(used.node, a)] for a in _ancestors(used_path) if (used.node, a) in seen]
            for ref in inner + outer:
                out.append(Finding(ERROR, "brick-inside-brick",
                                   f"{_NOT_AVAILABLE.format(ref=ref)} ({used} of volume {other.name})",
                                   (ref,)))
    return out


def _same_server_findings(nodes: dict[str, Node], resolved: "Resolved",
                          sets: tuple[tuple[BrickRef, ...], ...], all_names: list[str] | None = None) -> list[Finding]:
    """glusterd_check_brick_order: any two bricks of one set on one server (same peer name,
    or two names with the same address). ``all_names``: the node of each brick of the sets
    in order, when the caller has them."""
    kind = "replicate" if resolved.replica else "disperse"
    server_of = {name: node.address or name for name, node in nodes.items()}
    if len(set(server_of.values())) == len(server_of):
        server_of = {}  # every node is its own server: compare node names
    out: list[Finding] = []
    if all_names is None:
        all_names = list(map(_NODE, chain.from_iterable(sets)))
    size = resolved.set_size
    if not server_of and (not sets or set(map(len, sets)) == {size}):
        # whole sets of node names: the distinct ones are few (auto-placed: one per node)
        if all(len(set(names)) == size for names in set(zip(*[iter(all_names)] * size))):
            return out
    start = 0
    for index, members in enumerate(sets):
        n = len(members)
        names = all_names[start:start + n]
        start += n
        if not server_of and len(set(names)) == n:
            continue
        servers = [server_of.get(x, x) for x in names] if server_of else names
        if len(set(servers)) == len(servers):
            continue
        counts = Counter(servers)
        clashes = [r for r, srv in zip(members, servers) if counts[srv] > 1]
        out.append(Finding(
            NEEDS_FORCE, "same-server-set",
            f"Multiple bricks of a {kind} volume are present on the same server. This setup "
            f"is not optimal. Bricks should be on different nodes to have best fault tolerant "
            f"configuration. {FORCE_TAIL} (set {index + 1}: {', '.join(map(str, clashes))})",
            tuple(clashes)))
    return out


def thin_arbiter_findings(topo: Topology, volume: Volume, index: TopologyIndex) -> list[Finding]:
    """The thin-arbiter brick of ``replica 2 thin-arbiter 1`` (cli_cmd_ta_brick_parse: an
    absolute path, no loopback host; glusterd checks nothing else of it: it may even name a
    host outside the pool, which is what it is for). What the planner adds: the brick must be
    in the topology and not one of the data bricks, and its host must not run glusterd."""
    ta = volume.thin_arbiter_brick
    if not volume.layout.thin_arbiter:
        if ta is None:
            return []
        return [Finding(ERROR, "thin-arbiter-brick-unused", (
            f"The volume names thin-arbiter brick {ta} but not thin-arbiter 1: gluster would take it as one "
            "more data brick. Set replica 2 thin-arbiter 1, or remove the thin-arbiter brick."), (ta,))]
    if ta is None:
        return [Finding(ERROR, "thin-arbiter-brick-missing", (
            "replica 2 thin-arbiter 1 needs a thin-arbiter brick (gluster takes the last brick of volume "
            "create as it): give the volume one on a host outside the pool."))]
    if ta.path[:1] != "/":
        return [Finding(ERROR, "brick-path", f"Wrong brick type: {ta}, use <HOSTNAME>:<export-dir-abs-path>", (ta,))]
    if ta.node in LOCAL_HOSTS or ta.node.startswith(LOOPBACK_PREFIX):
        return [Finding(ERROR, "brick-localhost", f"{LOCAL_HOST_REFUSED} ({ta})", (ta,))]
    if index.brick(ta) is None:
        return [Finding(ERROR, "unknown-brick", f"Thin-arbiter brick {ta} is not in the topology.", (ta,))]
    if ta in volume.bricks:
        return [Finding(ERROR, "thin-arbiter-is-data", f"The thin-arbiter brick {ta} is also a data brick of "
                                                       f"volume {volume.name}.", (ta,))]
    if not thin_arbiter_reachable(topo, volume):
        return [Finding(WARNING, "thin-arbiter-on-pool-node", (
            f"gluster creates this volume, but the thin-arbiter brick is on {ta.node}, which runs glusterd "
            f"(a server of the trusted pool: it holds bricks or runs the volume's commands): the thin-arbiter process listens on glusterd's port 24007, so it "
            f"cannot run there, clients never reach a thin-arbiter (\"failed to get the port number for remote "
            f"subvolume\", seen on the lab), and each replica pair stops when one of its bricks fails. Put it "
            f"on a host outside the pool."), (ta,))]
    return []


def thin_arbiter_reachable(topo: Topology, volume: Volume) -> bool:
    """Whether the volume's thin-arbiter brick is on a host that can run the thin-arbiter
    process: not one that runs glusterd, whose port 24007 glusterd holds — the pool's origin,
    a node holding a brick of any volume of the topology, or a server drawn with brick
    filesystems of its own besides thin-arbiter bricks (a server of the pool: provisioning and
    import put such nodes in it). gluster itself creates the volume either way: glusterd checks
    nothing of the thin-arbiter brick (its commit records the path without resolving the host
    or looking at the directory; re-run on the sandbox with the brick on a peer, on the
    command's own node and outside the pool, on a brick filesystem and the root filesystem, the
    directory there or not, with and without force: accepted every time)."""
    ta = volume.thin_arbiter_brick
    if ta is None:
        return False
    if ta.node == topo.pool_origin(volume) or any(r.node == ta.node for r in volume.bricks):
        return False
    if any(r.node == ta.node for v in topo.volumes for r in v.bricks):
        return False
    node = topo.node(ta.node)
    if node is None:
        return True
    thin = {v.thin_arbiter_brick.path for v in topo.volumes if v.thin_arbiter_brick is not None
            and v.thin_arbiter_brick.node == ta.node} | {ta.path}
    return all(b.path in thin for b in node.bricks)