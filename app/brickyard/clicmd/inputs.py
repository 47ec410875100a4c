"""The inputs several commands read the same way: a topology file and the volume in it."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from .command import UsageError

if TYPE_CHECKING:
    from ..core.topology import Topology, Volume

TOPOLOGY_FILE_HELP = "a topology file (*.brickyard.json)"


def add_topology_arguments(p: argparse.ArgumentParser, volume_help: str) -> None:
    """FILE and ``--volume NAME``: the topology file and which of its volumes."""
    p.add_argument("file", help=TOPOLOGY_FILE_HELP)
    p.add_argument("--volume", metavar="NAME", help=volume_help)


def load_topology(path: str) -> Topology:
    """The topology in ``path``; a missing, unreadable or malformed file is a UsageError
    naming it (each problem with its field path and line)."""
    from ..core import topofile

    try:
        return topofile.load(path)
    except FileNotFoundError:
        raise UsageError(f"no such file: {path}") from None
    except IsADirectoryError:
        raise UsageError(f"{path} is a directory, not a topology file") from None
    except topofile.TopologyFileError as exc:
        raise UsageError(str(exc), exc.problems) from None
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None


def pick_volume(topo: Topology, name: str | None) -> Volume:
    """The volume ``--volume`` names, or the file's only one; UsageError otherwise."""
    from ..core.topology import TopologyError

    if name:
        try:
            return topo.require_volume(name)
        except TopologyError as exc:
            raise UsageError(str(exc)) from None
    if len(topo.volumes) == 1:
        return topo.volumes[0]
    if not topo.volumes:
        raise UsageError("the file defines no volume; add one to the file")
    names = ", ".join(v.name for v in topo.volumes)
    raise UsageError(f"the file defines {len(topo.volumes)} volumes ({names}); choose one with --volume")
