"""`brickyard provision FILE --volume NAME [--dry-run] [--yes]`: create a planned volume over SSH.

Exit codes: 0 provisioned (or the dry run printed), 1 a step failed, gluster would refuse the
layout, or warnings were not accepted with --yes, 2 bad input.
"""

from __future__ import annotations

import argparse

from ..remote.provision import provision_plan, run_provision
from .command import Refused
from .remote_common import VolumeStepsCommand


class ProvisionCommand(VolumeStepsCommand):
    description = ("Probe peers, create brick directories, create, configure and start the volume, and mount "
                   "it on its clients. Shows everything first with --dry-run; a re-run skips the steps already "
                   "done.")
    action = "provision"
    volume_help = "the volume to provision (default: the file's only volume)"

    def add_step_arguments(self, p: argparse.ArgumentParser) -> None:
        p.add_argument("--yes", action="store_true",
                       help="accept the warnings gluster would ask about (it runs with --mode=script)")
        p.add_argument("--fstab", action="store_true",
                       help="also add every client mount to /etc/fstab (mounts with \"fstab\": true get a line "
                            "without it)")

    def plan(self, topo, volume, args):
        plan = provision_plan(topo, volume.name, fstab=args.fstab)
        return plan.steps, [f"gluster would ask: {q}" for q in plan.questions], plan

    def confirm(self, volume, plan, args) -> None:
        if plan.questions and not args.yes:
            lines = [f"gluster would ask before creating {volume.name}:", *(f"  - {q}" for q in plan.questions),
                     "Run again with --yes to accept these and provision."]
            raise Refused("\n".join(lines), questions=plan.questions)

    async def run_steps(self, topo, volume, plan, hosts, progress, args):
        return await run_provision(plan, hosts, progress, topology_file=args.file)


COMMAND = ProvisionCommand()
