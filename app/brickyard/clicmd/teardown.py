"""`brickyard teardown FILE --volume NAME --confirm NAME`: unmount, stop, delete the volume and
remove the brick directories Brickyard created (never anything else).

Exit codes: 0 torn down, 1 a step failed, 2 bad input (including a missing or wrong --confirm).
"""

from __future__ import annotations

import argparse

from ..remote.teardown import run_teardown, teardown_plan
from .command import UsageError
from .remote_common import VolumeStepsCommand


class TeardownCommand(VolumeStepsCommand):
    description = ("Unmount the volume on its clients, stop and delete it, and remove the brick directories "
                   "Brickyard created for it. Type the volume name after --confirm.")
    action = "teardown"
    volume_help = "the volume to tear down (default: the file's only volume)"

    def add_step_arguments(self, p: argparse.ArgumentParser) -> None:
        p.add_argument("--confirm", metavar="NAME", help="the volume name again, to confirm")

    def plan(self, topo, volume, args):
        return teardown_plan(topo, volume.name), [], None

    def confirm(self, volume, planned, args) -> None:
        if args.confirm != volume.name:
            got = "no --confirm" if args.confirm is None else f"--confirm {args.confirm!r}"
            raise UsageError(f"tearing down {volume.name!r} deletes it and its data: confirm with "
                             f"--confirm {volume.name} ({got} given)")

    async def run_steps(self, topo, volume, planned, hosts, progress, args):
        return await run_teardown(topo, volume.name, hosts, progress)


COMMAND = TeardownCommand()
