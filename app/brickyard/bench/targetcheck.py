"""Before a run starts: is each target what the run is about?

A gluster run must measure the volume, not the directory under an absent mount: after a
teardown, a reboot or a mount that failed (``mount.glusterfs`` exits 0 on some), the mount
point is an ordinary directory, often on a tmpfs, and a benchmark there would end "complete"
with figures of the wrong thing. A baseline must not be on a gluster mount. ``check_targets``
reads each target's filesystem back from its host (``findmnt -J``) and raises
``TargetNotReady`` with one sentence when one is not what the run expects; the engine asks it
before the run exists, so nothing is measured and no run is stored.
"""

from __future__ import annotations

from typing import Sequence

from ..remote.executor import Executor
from ..remote.mountstate import Mounted, mount_holding
from .api import ParamError


class TargetNotReady(ParamError):
    """A target that is not what the run expects; the message is one sentence."""

    def __init__(self, host: str, message: str):
        self.host = host
        super().__init__(message)


def expectation_problem(spec_text: str, host: str, path: str, found: Mounted | None, *,
                        volume: str | None, gluster: bool, baseline: bool) -> str:
    """Why the filesystem ``found`` under ``path`` is not what the run expects, or ''.
    ``volume``: the gluster volume it must be a mount of; ``gluster``: any gluster volume;
    ``baseline``: it must not be a gluster mount."""
    if volume or gluster:
        name = volume or "the gluster volume"
        if found is None:
            return f"{name} is not mounted on {host} — provision it first ({path} does not exist)"
        if not found.is_gluster:
            return (f"{name} is not mounted on {host} — provision it first ({path} is on {found.source} "
                    f"({found.fstype}) mounted on {found.target}, not on a gluster mount)")
        if volume and found.volume != volume:
            return f"{spec_text} is on the gluster volume {found.volume} ({found.source}), not on {volume}"
        return ""
    if baseline and found is not None and found.is_gluster:
        return (f"{spec_text} is on the gluster volume {found.volume} ({found.source}): a baseline measures "
                "something other than gluster (a local disk, tmpfs, NFS); measure the volume as the volume")
    return ""


async def check_targets(targets: Sequence[tuple[object, Executor]], *, volume: str | None = None,
                        gluster: bool = False, baseline: bool = False) -> list[Mounted | None]:
    """Read back each target's filesystem; raise ``TargetNotReady`` for the first that is not
    what the run expects (see ``expectation_problem``). Returns what was found, in order."""
    found_all = []
    for spec, ex in targets:
        path, host, text = getattr(spec, "path"), getattr(spec, "host"), getattr(spec, "text")
        found = await mount_holding(ex, path)
        problem = expectation_problem(text, host, path, found, volume=volume, gluster=gluster, baseline=baseline)
        if problem:
            raise TargetNotReady(host, problem)
        found_all.append(found)
    return found_all
