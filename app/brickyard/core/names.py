"""Volume names, and the lengths of the names glusterd 10.3 derives from them and from brick paths.

A volume's name and each ``host:/path`` become file names under ``/var/lib/glusterd/vols/NAME/``,
and a file name has at most 255 bytes (NAME_MAX). glusterd checks some of those names before
it creates anything and finds out about the rest while it writes them. From gluster's source
(release 10.3), each tried on Brickyard's lab (gluster 10.3):

- ``cli/src/cli-cmd-parser.c`` ``cli_validate_volname``: a name longer than
  ``GD_VOLUME_NAME_MAX`` (``rpc/rpc-lib/src/protocol-common.h``: ``NAME_MAX + 1`` = 256) is
  refused: "Volume name exceeds 256 characters." (257 characters, on the lab).
- ``xlators/mgmt/glusterd/src/glusterd-store.c`` ``glusterd_store_is_valid_brickpath``, run on
  every brick in the staging phase: a volume name that does not fit ``volinfo->volname``
  (``char[GD_VOLUME_NAME_MAX]``, so 256 characters or more), a brick path of ``PATH_MAX``
  (4096) or more, or a path component of ``_POSIX_PATH_MAX`` (256) or more: "brick path
  HOST:PATH is too long." (a 256-character volume name, on the lab).
- ``glusterd-volgen.c`` ``glusterd_is_valid_volfpath``, next, on every brick: the brick's
  volfile ``NAME.HOST.PATH-WITH-DASHES.vol`` ("/" plus that name must stay under 256): "Volume
  file path for volume NAME and brick path HOST:PATH is too long." (a 232-character name with
  ``node1:/srv/brick1/t``: a 255-character volfile name, on the lab).
- ``glusterd-volgen.c`` ``volgen_write_volfile`` writes every volfile as ``FILE.tmp`` and
  renames it, in the commit phase: a volfile name of more than 251 characters cannot be
  written and the create fails with "Failed to create volume files". The longest volfile name
  that does not depend on the bricks is ``trusted-NAME.tcp-gfproxy-fuse.vol``
  (``glusterd-utils.c`` ``glusterd_get_gfproxy_client_volfile``; ``rdma`` for an rdma-only
  volume), so **a volume name has at most 222 characters** (221 with transport rdma): 222 was
  created on the lab, 223 failed with "Failed to create volume files" (glusterd's log:
  "failed to create volfile …/trusted-NAME.tcp-gfproxy-fuse.vol"), and so did a 231-character
  name whose brick volfile name had 254 characters, though it passed the staging check.
"""

from __future__ import annotations

import string
from operator import attrgetter

from .planmodel import ERROR, Finding, TopologyIndex
from .topology import BrickRef

# cli-cmd-parser.c cli_validate_volname: words gluster keeps for itself.
RESERVED_VOLNAMES = (
    "volume", "type", "help", "subvolumes", "option", "end-volume", "all", "volume_not_in_ring",
    "description", "force", "snap-max-hard-limit", "snap-max-soft-limit", "auto-delete",
    "activate-on-create",
)
GD_VOLUME_NAME_MAX = 256   # rpc/rpc-lib/src/protocol-common.h: NAME_MAX + 1
VOLNAME_CLI_MAX = GD_VOLUME_NAME_MAX        # the CLI refuses longer names
VOLNAME_STORE_MAX = GD_VOLUME_NAME_MAX - 1  # glusterd keeps at most this many (and a NUL)
NAME_MAX = 255             # a file name's bytes on /var/lib/glusterd
PATH_MAX = 4096
POSIX_PATH_MAX = 256       # _POSIX_PATH_MAX: glusterd's limit on a brick path component
TMP = ".tmp"               # volgen_write_volfile writes FILE.tmp, then renames it
_VOLNAME_CHARS = frozenset(string.ascii_letters + string.digits + "-_")
_PATH, _NODE = attrgetter("path"), attrgetter("node")


def gfproxy_volfile(volname: str, transport: str = "tcp") -> str:
    """The longest volfile name that does not depend on the bricks."""
    kind = "rdma" if transport == "rdma" else "tcp"
    return f"trusted-{volname}.{kind}-gfproxy-fuse.vol"


def volname_create_max(transport: str = "tcp") -> int:
    """The longest volume name gluster 10.3 can create (222 for tcp, 221 for rdma)."""
    return NAME_MAX - len(gfproxy_volfile("", transport)) - len(TMP)


def brick_volfile(volname: str, ref: BrickRef) -> str:
    """glusterd-volgen.c get_brick_filepath: ``NAME.HOST.PATH-WITH-DASHES.vol`` (the path
    without its leading "/", every other "/" but a trailing one made "-")."""
    path = ref.path
    dashed = path[1:-1].replace("/", "-") + path[-1:] if len(path) > 1 else ""
    return f"{volname}.{ref.node}.{dashed}.vol"


def volname_cli_problem(name: str) -> str | None:
    """cli_validate_volname's verdict on a name, in its words (None: it passes the CLI)."""
    if not name:
        return "a volume needs a name"
    if name.startswith("-"):
        return f"Volume name {name!r} starts with '-', which the gluster CLI reads as an option."
    if name in RESERVED_VOLNAMES:
        return f'"{name}" cannot be the name of a volume.'
    if "/" in name:
        return f"Volume name {name!r} contains '/'."
    if len(name) > VOLNAME_CLI_MAX:
        return f"Volume name exceeds {VOLNAME_CLI_MAX} characters."
    for ch in name:
        if ch not in _VOLNAME_CHARS:
            return (f'Volume name should not contain "{ch}" character. Volume names can only '
                    "contain alphanumeric, '-' and '_' characters.")
    return None


def volname_problem(name: str, transport: str = "tcp") -> str | None:
    """Why gluster 10.3 cannot create a volume of this name, whatever its bricks (None: a good
    name): the CLI's verdict, then the length glusterd can store and write volfiles for."""
    problem = volname_cli_problem(name)
    if problem:
        return problem
    limit = volname_create_max(transport)
    if len(name) > limit:
        said = "brick path HOST:PATH is too long." if len(name) > VOLNAME_STORE_MAX else "Failed to create volume files"
        return (f"Volume name has {len(name)} characters; gluster 10.3 creates volumes of at most "
                f"{limit} (it refuses this one with \"{said}\": glusterd cannot write the file "
                f"{gfproxy_volfile('NAME', transport)}{TMP} when that name passes {NAME_MAX} characters).")
    return None


def name_findings(volname: str, bricks: list[BrickRef], transport: str = "tcp",
                  index: "TopologyIndex | None" = None) -> list[Finding]:
    """What gluster says about a volume's name and the file names glusterd derives from it and
    from the brick paths, in the order it checks them: the CLI, then each brick in the staging
    phase, then the volfiles it writes at commit. One finding: gluster stops at the first.
    ``index``: the plan's ``TopologyIndex``, which has the bricks' node names and distinct
    paths already."""
    problem = volname_cli_problem(volname)
    if problem:
        return [Finding(ERROR, "volume-name", problem)]
    # Lengths first, names only for the brick a finding names: building every brick's volfile
    # name cost 35-60 ms of a 24,000-brick plan. len(brick_volfile(v, ref)) is
    # len(v) + len(node) + len(path) - 1 + 6 (the path's leading "/" dropped; two dots and ".vol").
    fixed = len(volname) + 6
    if not bricks:
        return _volname_length_findings(volname, transport)
    if index is not None and not index.resolve(bricks)[1]:
        # every brick is in the topology: the topology's longest node name and brick path are
        # bounds (a thousand names and a handful of paths, not a pass over every brick); only
        # past the limit below are the volume's own bricks measured
        longest_path = max(map(len, index.paths))
        longest_node = max(map(len, index.nodes))
        if not (len(volname) <= VOLNAME_STORE_MAX and longest_path < POSIX_PATH_MAX
                and fixed + longest_node + max(longest_path - 1, 0) + len(TMP) <= NAME_MAX):
            longest_path = max(map(len, index.distinct_paths(bricks)))
            longest_node = max(map(len, index.node_names(bricks)))
    elif index is not None:
        longest_path = max(map(len, index.distinct_paths(bricks)))
        longest_node = max(map(len, index.node_names(bricks)))
    else:
        longest_path = max(map(len, map(_PATH, bricks)))
        longest_node = max(map(len, map(_NODE, bricks)))
    # the longest node with the longest path is an upper bound of every brick's volfile name;
    # under the commit limit (stricter than staging's) no brick needs a look of its own
    if (len(volname) <= VOLNAME_STORE_MAX and longest_path < POSIX_PATH_MAX
            and fixed + longest_node + max(longest_path - 1, 0) + len(TMP) <= NAME_MAX):
        return _volname_length_findings(volname, transport)
    for ref in bricks:  # staging: glusterd_store_is_valid_brickpath, glusterd_is_valid_volfpath
        path = ref.path
        if len(volname) > VOLNAME_STORE_MAX:
            return [Finding(ERROR, "volume-name", (
                f"brick path {ref} is too long. (glusterd refuses the volume name, not the path: it keeps "
                f"at most {VOLNAME_STORE_MAX} characters, and creates volumes of at most "
                f"{volname_create_max(transport)})"), (ref,))]
        # a directory name is never longer than the path it is in
        if len(path) >= PATH_MAX or (len(path) >= POSIX_PATH_MAX
                                     and any(len(p) >= POSIX_PATH_MAX for p in path.split("/"))):
            why = (f"its path has {len(path)} characters, glusterd takes fewer than {PATH_MAX}"
                   if len(path) >= PATH_MAX else
                   f"a directory name in it has more than {POSIX_PATH_MAX - 1} characters")
            return [Finding(ERROR, "brick-path-too-long", f"brick path {ref} is too long. ({why})", (ref,))]
        if 1 + fixed + len(ref.node) + max(len(path) - 1, 0) >= POSIX_PATH_MAX:
            volfile = brick_volfile(volname, ref)
            return [Finding(ERROR, "volfile-path-too-long", (
                f"Volume file path for volume {volname} and brick path {ref} is too long. (glusterd names "
                f"the brick's volfile {volfile}: {len(volfile)} characters, at most {POSIX_PATH_MAX - 2} "
                "pass its check; shorten the volume name, the host name or the path)"), (ref,))]
    for ref in bricks:  # commit: volgen_write_volfile writes FILE.tmp
        if fixed + len(ref.node) + max(len(ref.path) - 1, 0) + len(TMP) > NAME_MAX:
            volfile = brick_volfile(volname, ref)
            return [Finding(ERROR, "volfile-name-too-long", (
                f"Failed to create volume files (glusterd cannot write the brick's volfile {volfile}: "
                f"with the {TMP} it is written under first, the name has {len(volfile) + len(TMP)} "
                f"characters, more than the {NAME_MAX} a file name may have; shorten the volume name, "
                "the host name or the path)"), (ref,))]
    return _volname_length_findings(volname, transport)


def _volname_length_findings(volname: str, transport: str) -> list[Finding]:
    """The commit phase's last word on the name alone (its gfproxy volfile)."""
    if len(volname) > volname_create_max(transport):
        return [Finding(ERROR, "volume-name", (
            f"Failed to create volume files (glusterd cannot write {gfproxy_volfile(volname, transport)}: "
            f"with its {TMP} the name passes {NAME_MAX} characters; gluster 10.3 creates volumes whose name "
            f"has at most {volname_create_max(transport)} characters, this one has {len(volname)})"))]
    return []
