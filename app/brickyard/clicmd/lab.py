"""`brickyard lab up N | down | status`: a real GlusterFS cluster in network namespaces on this machine."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from ..core.units import UnitError, format_bytes, parse_size
from .command import Command, Group, Outcome, Refused, UsageError


def _with_dir(q: argparse.ArgumentParser) -> None:
    from ..lab import config as cfg

    q.add_argument("--dir", default=str(cfg.DEFAULT_DIR),
                   help=f"lab folder: state, keys, brick images (default {cfg.DEFAULT_DIR})")


class LabUp(Command):
    json_help = "machine-readable output (progress goes to stderr)"

    def add_arguments(self, up: argparse.ArgumentParser) -> None:
        from ..lab import config as cfg

        up.add_argument("nodes", type=int, metavar="N", help=f"server nodes (1-{cfg.MAX_NODES})")
        up.add_argument("--clients", type=int, default=1, help="client machines (default 1)")
        up.add_argument("--brick-size", default="1G", help="size of each brick's XFS filesystem (default 1G = 1 GiB)")
        up.add_argument("--bricks-per-node", type=int, default=2, help="brick filesystems per node (default 2)")
        up.add_argument("--subnet", default=cfg.DEFAULT_SUBNET,
                        help=f"private /24 for the lab (default {cfg.DEFAULT_SUBNET})")
        up.add_argument("--prefix", default=cfg.DEFAULT_PREFIX,
                        help=f"names of the lab's namespaces and links (default {cfg.DEFAULT_PREFIX})")
        up.add_argument("--admin-user", default=cfg.DEFAULT_ADMIN_USER, metavar="NAME",
                        help=f"non-root account with passwordless sudo inside every machine, only there "
                             f"(default {cfg.DEFAULT_ADMIN_USER}; ssh -F LABDIR/ssh_config "
                             f"node1{cfg.ADMIN_ALIAS_SUFFIX})")
        up.add_argument("--delay", action="append", default=[], metavar="NAME=MS",
                        help="add MS milliseconds each way to one machine's link, or NAME=TO/FROM: TO ms on "
                             "frames towards it and FROM ms on frames from it (a one-sided path; user space; "
                             "repeatable)")
        _with_dir(up)

    def run(self, args: argparse.Namespace) -> Outcome:
        from ..lab.config import LabConfigError, LabSpec, admin_alias, parse_delay, plan_lab
        from ..lab.sandbox import AlreadyUp, lab_up
        from ..lab.system import LabError

        try:
            brick_size = parse_size(args.brick_size)
        except UnitError as exc:
            raise UsageError(f"--brick-size: {exc}") from None
        try:
            delays = tuple(parse_delay(text) for text in args.delay)
            spec = LabSpec(nodes=args.nodes, clients=args.clients, brick_size=brick_size,
                           bricks_per_node=args.bricks_per_node, directory=Path(args.dir).absolute(),
                           subnet=args.subnet, prefix=args.prefix, delays=delays, admin_user=args.admin_user)
            plan_lab(spec)
        except LabConfigError as exc:
            raise UsageError(str(exc)) from None
        say = _say_to_stderr if args.json else _say
        try:
            state = lab_up(spec, say=say)
        except AlreadyUp as exc:
            if args.json:
                _say_to_stderr(f"{exc}; nothing to do")
            return Outcome(0, doc=_up_json(exc.state, already_up=True),
                           text=f"lab: {exc}; nothing to do (ssh -F {shlex.quote(exc.state.ssh_config)} node1)")
        except LabError as exc:
            raise _failed("up", exc) from None
        lines = []
        for m in state.machines:
            bricks = ", ".join(f"{b.path} ({format_bytes(b.size_bytes, binary=True)})" for b in m.bricks)
            delay = f"({delay_words(m.delay_ms, m.delay_from_ms)}) " if m.delayed else ""
            lines.append(f"  {m.name:<9} {m.address:<13} {delay}{bricks}")
        lines.append(f"  non-root admin {state.admin_user} (passwordless sudo): "
                     f"ssh -F {shlex.quote(state.ssh_config)} {admin_alias('node1')}")
        return Outcome(0, doc=_up_json(state, already_up=False), text=lines)


class LabDown(Command):
    json_help = "machine-readable output (progress goes to stderr)"

    def add_arguments(self, p: argparse.ArgumentParser) -> None:
        _with_dir(p)

    def run(self, args: argparse.Namespace) -> Outcome:
        from ..lab.teardown import lab_down
        from ..lab.state import LabStateError
        from ..lab.system import LabError

        try:
            left = lab_down(Path(args.dir).absolute(), say=_say_to_stderr if args.json else _say)
        except (LabError, LabStateError) as exc:
            raise _failed("down", exc) from None
        return Outcome(1 if left else 0,
                       doc={"ok": not left, "directory": str(Path(args.dir).absolute()),
                            "left_behind": list(map(str, left)), **({"exit": 1} if left else {})},
                       notes=[f"brickyard lab down: left behind: {item}" for item in left])


class LabStatus(Command):
    json_help = "machine-readable output"

    def add_arguments(self, p: argparse.ArgumentParser) -> None:
        _with_dir(p)

    def run(self, args: argparse.Namespace) -> Outcome:
        from ..lab.state import LabStateError
        from ..lab.status import lab_health

        try:
            health = lab_health(Path(args.dir).absolute())
        except LabStateError as exc:
            raise _failed("status", exc) from None
        code = 0 if health.up else 1
        if args.json:
            return Outcome(code, doc=health.to_dict())
        if not health.recorded:
            return Outcome(1, text=f"no lab at {health.directory}")
        state = health.state
        lines = [f"lab {health.status} at {health.directory}: {state.subnet} on bridge {state.bridge}"
                 f"{'' if health.bridge else ' (bridge missing)'}; started {state.started_at}"
                 + (f", up in {state.up_seconds:.1f} s" if state.up_seconds else ""),
                 f"  ssh -F {shlex.quote(state.ssh_config)} node1    topology: {state.topology_file}"]
        if state.admin_user:
            from ..lab.config import admin_alias

            lines.append(f"  ssh -F {shlex.quote(state.ssh_config)} {admin_alias('node1')}    as {state.admin_user} "
                         f"(non-root, passwordless sudo), topology: {state.admin_topology_file}")
        for h in health.machines:
            checks = [f"ssh {'ok' if h.ssh else 'DOWN'}"]
            if h.glusterd is not None:
                checks.append(f"glusterd {'ok' if h.glusterd else 'DOWN'}")
            run = "running" if h.running else "STOPPED"
            delay = f"  {delay_words(h.delay_ms, h.delay_from_ms)}" if h.delay_ms or h.delay_from_ms else ""
            lines.append(f"  {h.name:<9} {h.address:<13} {run:<8} {', '.join(checks):<24} "
                         f"{h.processes:>3} processes {format_bytes(h.memory_bytes, binary=True):>11}{delay}")
        return Outcome(code, text=lines)


class LabCommand(Group):
    description = ("N gluster server nodes plus clients, each in its own network namespace on a private bridge, "
                   "each with its own sshd (and glusterd). Needs root. Reach them with: "
                   "ssh -F LABDIR/ssh_config node1")
    metavar = "up|down|status"
    actions = (("up", "start a lab of N server nodes", LabUp()),
               ("down", "stop the lab and remove everything it created", LabDown()),
               ("status", "what runs, addresses, memory per machine", LabStatus()))


COMMAND = LabCommand()


def _say(text: str) -> None:
    print(f"lab: {text}", flush=True)


def _say_to_stderr(text: str) -> None:   # under --json stdout holds only the document
    print(f"lab: {text}", file=sys.stderr, flush=True)


def _failed(where: str, exc: Exception) -> Refused:
    return Refused(str(exc), line=f"brickyard lab {where}: {exc}")


def _up_json(state, already_up: bool) -> dict:
    return {"ok": True, "already_up": already_up, "ssh_config": state.ssh_config,
            "topology_file": state.topology_file, "lab": state.to_dict()}


def delay_words(to_ms: float, from_ms: float | None) -> str:
    """"+25 ms each way" or "+40 ms towards it, +0 ms from it"."""
    if from_ms is None:
        return f"+{to_ms:g} ms each way"
    return f"+{to_ms:g} ms towards it, +{from_ms:g} ms from it"
