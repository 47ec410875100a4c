"""Client mounts: what ``mount -t glusterfs`` accepts for a mount point and its options.

The option words are those ``mount.glusterfs`` of gluster 10.3 knows
(``xlators/mount/fuse/utils/mount.glusterfs.in``: ``with_options`` and ``without_options``);
any other word makes it print "Invalid option" and exit 1, so the mount step would fail.
Options beginning ``x-`` are dropped by it (comments for fstab and systemd).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .topology import Mount, Topology, Volume

# mount.glusterfs 10.3, with_options(): KEY=VALUE options it reads
WITH_VALUE = frozenset({
    "log-level", "log-file", "transport", "direct-io-mode", "volume-name", "volume-id", "subdir-mount",
    "volfile-check", "server-port", "attribute-timeout", "entry-timeout", "negative-timeout", "gid-timeout",
    "lru-limit", "invalidate-limit", "background-qlen", "backup-volfile-servers", "backupvolfile-server",
    "fetch-attempts", "congestion-threshold", "oom-score-adj", "xlator-option", "fuse-mountopts", "use-readdirp",
    "event-history", "reader-thread-count", "auto-invalidation", "no-root-squash", "root-squash",
    "kernel-writeback-cache", "attr-times-granularity", "dump-fuse", "fuse-flush-handle-interrupt",
    "fuse-dev-eperm-ratelimit-ns", "context", "fscontext", "defcontext", "rootcontext", "halo-max-latency",
    "halo-max-replicas", "halo-min-replicas", "process-name", "fopen-keep-cache", "io-engine",
})
# without_options(): bare words it takes (passes to the kernel, or ignores)
WITHOUT_VALUE = frozenset({
    "ro", "acl", "selinux", "worm", "enable-ino32", "mem-accounting", "aux-gfid-mount", "thin-client",
    "resolve-gids", "rw", "global-threading", "localtime-logging", "async", "sync", "dirsync", "mand",
    "nomand", "silent", "loud", "iversion", "noiversion", "nofail", "atime", "noatime", "diratime",
    "nodiratime", "relatime", "norelatime", "strictatime", "nostrictatime", "lazyatime", "nolazyatime",
    "dev", "nodev", "exec", "noexec", "suid", "nosuid", "auto_unmount", "auto", "noauto", "_netdev",
    "fopen-keep-cache",
})
LOG_LEVELS = ("CRITICAL", "ERROR", "WARNING", "INFO", "DEBUG", "TRACE", "NONE")
ADDED_BY_BRICKYARD = "backup-volfile-servers"


def mount_point_problem(path: str) -> str | None:
    """Why ``path`` cannot be a mount point Brickyard creates and mounts, or None."""
    if not path:
        return "a mount point is needed, e.g. /mnt/gv0"
    if not path.startswith("/"):
        return f"a mount point must be an absolute path (start with '/'), not {path!r}"
    if path == "/":
        return "the root directory cannot be a mount point"
    if any(c.isspace() for c in path) or "\0" in path:
        return f"{path!r}: a mount point cannot hold spaces (fstab and mount options split on them)"
    parts = path.split("/")
    if any(p in (".", "..") for p in parts) or "//" in path or path.endswith("/"):
        return f"{path!r}: write the mount point plainly (no '.', '..', '//' or trailing '/')"
    return None


def mount_options_problem(text: str) -> str | None:
    """Why ``mount.glusterfs`` 10.3 would refuse these ``-o`` options, or None: every bad word
    named, not only the first (a fix of one must not reveal the next only on the next try)."""
    text = text.strip()
    if not text:
        return None
    if any(c in text for c in "\"'`\\"):
        return "mount options are comma-separated without spaces or quotes, e.g. noatime,log-level=WARNING"
    problems: list[str] = []
    refused: list[str] = []
    if any(c.isspace() for c in text):
        problems.append("mount options are comma-separated without spaces, e.g. noatime,log-level=WARNING")
    items = [item.strip() for item in text.split(",")]
    if any(not item for item in items):
        problems.append(f"{text!r}: an empty option between commas")
    for item in (i for i in items if i):
        key, sep, value = item.partition("=")
        if key.startswith("x-"):
            continue
        if sep:
            if key not in WITH_VALUE:
                hint = "; it takes no value" if key in WITHOUT_VALUE else ""
                refused.append(f"{item!r} (Invalid option: {key}{hint})")
            elif not value:
                problems.append(f"{key}= needs a value")
            elif key == "log-level" and value.upper() not in LOG_LEVELS:
                problems.append(f"mount.glusterfs ignores log-level={value} (\"invalid log level {value}, using "
                                f"INFO\"): one of {', '.join(LOG_LEVELS)}")
            elif key == ADDED_BY_BRICKYARD:
                problems.append("Brickyard adds backup-volfile-servers itself (every other server of the volume); "
                                "leave it out")
        elif item not in WITHOUT_VALUE and item != "defaults":  # mount(8) strips 'defaults'
            hint = "; it needs =VALUE" if item in WITH_VALUE else ""
            refused.append(f"{item!r} (Invalid option {item}{hint})")
    if refused:
        listed = refused[0] if len(refused) == 1 else ", ".join(refused[:-1]) + " and " + refused[-1]
        problems.insert(0, f"mount.glusterfs refuses {listed}")
    return "; ".join(problems) or None


def mount_field_problems(path: str, options: str) -> list[tuple[str, str]]:
    """("path" | "options", why) for each field of a mount ``mount.glusterfs`` or Brickyard
    would refuse: the one check the mount editor, the topology reader and the campaign loader
    share."""
    out = []
    for key, problem in (("path", mount_point_problem(path)), ("options", mount_options_problem(options))):
        if problem:
            out.append((key, problem))
    return out


def describe_mount(volume: str, path: str, options: str = "", fstab: bool = False) -> str:
    """How a mount reads wherever it is listed: 'gv0 at /mnt/gv0 (noatime) · fstab'."""
    text = f"{volume} at {path}"
    if options:
        text += f" ({options})"
    if fstab:
        text += " · fstab"
    return text


def option_words() -> list[str]:
    """Every option word for completion: 'noatime', 'log-level=', …"""
    return sorted(WITHOUT_VALUE) + sorted(f"{k}=" for k in WITH_VALUE)


_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")


def client_name_problem(name: str) -> str | None:
    """A client's name is a host name (the SSH alias when no address is given)."""
    if not name:
        return "a client needs a name"
    if not _NAME_RE.match(name):
        return f"{name!r}: a client name is a host name (letters, digits, '.', '-', '_')"
    return None


def mount_source(volume: Volume) -> tuple[str, str]:
    """``first-node:/volume`` and the backup-volfile-servers option naming the others."""
    hosts = list(dict.fromkeys(r.node for r in volume.bricks))
    backup = f"backup-volfile-servers={':'.join(hosts[1:])}" if len(hosts) > 1 else ""
    return f"{hosts[0]}:/{volume.name}", backup


def mount_options(volume: Volume, extra: str) -> str:
    """The -o options of a mount: the admin's own, then the backup volfile servers."""
    _, backup = mount_source(volume)
    return ",".join(o for o in (extra, backup) if o)


def fstab_line(volume: Volume, mount_path: str, extra: str) -> str:
    """The /etc/fstab line that mounts ``volume`` at ``mount_path`` at boot (after the network)."""
    source, _ = mount_source(volume)
    opts = ",".join(o for o in ("defaults", "_netdev", mount_options(volume, extra)) if o)
    return f"{source} {mount_path} glusterfs {opts} 0 0"


def mount_argv(volume: Volume, mount_path: str, extra: str = "") -> list[str]:
    """``mount -t glusterfs [-o OPTIONS] first-node:/volume PATH``: how a client mounts it."""
    source, _ = mount_source(volume)
    opts = mount_options(volume, extra)
    return ["mount", "-t", "glusterfs", *(["-o", opts] if opts else []), source, mount_path]


def mount_problem(topo: Topology, mount: Mount) -> str | None:
    """Why provisioning would refuse this mount (a client the topology lacks, a bad mount
    point or option), or None."""
    if topo.client(mount.client) is None:
        return f"client {mount.client!r} is not in the topology"
    return mount_point_problem(mount.path) or mount_options_problem(mount.options)
