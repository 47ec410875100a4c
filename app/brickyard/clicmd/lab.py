"""`brickyard lab up N | down | status`: a real GlusterFS cluster in network namespaces on this machine."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from ..cli import emit_json
from ..core.units import UnitError, format_bytes, parse_size


def register(sub: argparse._SubParsersAction) -> None:
    from ..lab import config as cfg

    p = sub.add_parser("lab", help="a throw-away gluster cluster in network namespaces on this machine (root)",
                       description="N gluster server nodes plus clients, each in its own network "
                                   "namespace on a private bridge, each with its own sshd (and glusterd). "
                                   "Needs root. Reach them with: ssh -F LABDIR/ssh_config node1")
    lab_sub = p.add_subparsers(dest="lab_command", metavar="up|down|status")

    def with_dir(q: argparse.ArgumentParser) -> None:
        q.add_argument("--dir", default=str(cfg.DEFAULT_DIR),
                       help=f"lab folder: state, keys, brick images (default {cfg.DEFAULT_DIR})")

    up = lab_sub.add_parser("up", help="start a lab of N server nodes")
    up.add_argument("nodes", type=int, metavar="N", help=f"server nodes (1-{cfg.MAX_NODES})")
    up.add_argument("--clients", type=int, default=1, help="client machines (default 1)")
    up.add_argument("--brick-size", default="1G", help="size of each brick's XFS filesystem (default 1G = 1 GiB)")
    up.add_argument("--bricks-per-node", type=int, default=2, help="brick filesystems per node (default 2)")
    up.add_argument("--subnet", default=cfg.DEFAULT_SUBNET, help=f"private /24 for the lab (default {cfg.DEFAULT_SUBNET})")
    up.add_argument("--prefix", default=cfg.DEFAULT_PREFIX,
                    help=f"names of the lab's namespaces and links (default {cfg.DEFAULT_PREFIX})")
    up.add_argument("--admin-user", default=cfg.DEFAULT_ADMIN_USER, metavar="NAME",
                    help=f"non-root account with passwordless sudo inside every machine, only there "
                         f"(default {cfg.DEFAULT_ADMIN_USER}; ssh -F LABDIR/ssh_config node1{cfg.ADMIN_ALIAS_SUFFIX})")
    up.add_argument("--delay", action="append", default=[], metavar="NAME=MS",
                    help="add MS milliseconds each way to one machine's link (user space; repeatable)")
    up.add_argument("--json", action="store_true", help="machine-readable output (progress goes to stderr)")
    with_dir(up)
    up.set_defaults(func=run_up)

    down = lab_sub.add_parser("down", help="stop the lab and remove everything it created")
    down.add_argument("--json", action="store_true", help="machine-readable output (progress goes to stderr)")
    with_dir(down)
    down.set_defaults(func=run_down)

    status = lab_sub.add_parser("status", help="what runs, addresses, memory per machine")
    status.add_argument("--json", action="store_true", help="machine-readable output")
    with_dir(status)
    status.set_defaults(func=run_status)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def _say(text: str) -> None:
    print(f"lab: {text}", flush=True)


def _say_to_stderr(text: str) -> None:   # under --json stdout holds only the document
    print(f"lab: {text}", file=sys.stderr, flush=True)


def _fail(args: argparse.Namespace, where: str, exc: Exception) -> int:
    print(f"brickyard lab {where}: {exc}", file=sys.stderr)
    if getattr(args, "json", False):
        emit_json({"ok": False, "error": str(exc), "exit": 1})
    return 1


def run_up(args: argparse.Namespace) -> int:
    from ..cli import UsageError
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
            _emit_up(exc.state, already_up=True)
        else:
            print(f"lab: {exc}; nothing to do (ssh -F {shlex.quote(exc.state.ssh_config)} node1)")
        return 0
    except LabError as exc:
        return _fail(args, "up", exc)
    if args.json:
        _emit_up(state, already_up=False)
        return 0
    for m in state.machines:
        bricks = ", ".join(f"{b.path} ({format_bytes(b.size_bytes, binary=True)})" for b in m.bricks)
        delay = f"(+{m.delay_ms:g} ms each way) " if m.delay_ms else ""
        print(f"  {m.name:<9} {m.address:<13} {delay}{bricks}")
    print(f"  non-root admin {state.admin_user} (passwordless sudo): "
          f"ssh -F {shlex.quote(state.ssh_config)} {admin_alias('node1')}")
    return 0


def _emit_up(state, already_up: bool) -> None:
    emit_json({"ok": True, "already_up": already_up, "ssh_config": state.ssh_config,
               "topology_file": state.topology_file, "lab": state.to_dict()})


def run_down(args: argparse.Namespace) -> int:
    from ..lab.teardown import lab_down
    from ..lab.state import LabStateError
    from ..lab.system import LabError

    try:
        left = lab_down(Path(args.dir).absolute(), say=_say_to_stderr if args.json else _say)
    except (LabError, LabStateError) as exc:
        return _fail(args, "down", exc)
    for item in left:
        print(f"brickyard lab down: left behind: {item}", file=sys.stderr)
    if args.json:
        emit_json({"ok": not left, "directory": str(Path(args.dir).absolute()), "left_behind": list(map(str, left)),
                   **({"exit": 1} if left else {})})
    return 1 if left else 0


def run_status(args: argparse.Namespace) -> int:
    from ..lab.state import LabStateError
    from ..lab.status import lab_health

    try:
        health = lab_health(Path(args.dir).absolute())
    except LabStateError as exc:
        return _fail(args, "status", exc)
    if args.json:
        emit_json(health.to_dict(), indent=2)
        return 0 if health.up else 1
    if not health.recorded:
        print(f"no lab at {health.directory}")
        return 1
    state = health.state
    print(f"lab {health.status} at {health.directory}: {state.subnet} on bridge {state.bridge}"
          f"{'' if health.bridge else ' (bridge missing)'}; started {state.started_at}"
          + (f", up in {state.up_seconds:.1f} s" if state.up_seconds else ""))
    print(f"  ssh -F {shlex.quote(state.ssh_config)} node1    topology: {state.topology_file}")
    if state.admin_user:
        from ..lab.config import admin_alias

        print(f"  ssh -F {shlex.quote(state.ssh_config)} {admin_alias('node1')}    as {state.admin_user} "
              f"(non-root, passwordless sudo), topology: {state.admin_topology_file}")
    for h in health.machines:
        checks = [f"ssh {'ok' if h.ssh else 'DOWN'}"]
        if h.glusterd is not None:
            checks.append(f"glusterd {'ok' if h.glusterd else 'DOWN'}")
        run = "running" if h.running else "STOPPED"
        delay = f"  +{h.delay_ms:g} ms each way" if h.delay_ms else ""
        print(f"  {h.name:<9} {h.address:<13} {run:<8} {', '.join(checks):<24} "
              f"{h.processes:>3} processes {format_bytes(h.memory_bytes, binary=True):>11}{delay}")
    return 0 if health.up else 1
