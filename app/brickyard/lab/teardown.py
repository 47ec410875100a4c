"""Take a lab down: undo exactly what ``lab.json`` records, whatever state it is in.

Kills only the recorded processes (checked by start time; a machine's PID namespace takes every
process inside with its init), detaches only loop devices backed by the lab's own images,
deletes only the namespaces, links and folder the lab created.
"""

from __future__ import annotations

import os
import shutil
import signal
import time
from pathlib import Path
from typing import Callable

from .state import LabState, is_alive, lab_lock, load_state, reap, start_time
from .system import LabError, link_exists, loop_backing_file, loops_of, mounts_under, netns_exists, run

Say = Callable[[str], None]


def _quiet(_: str) -> None:
    pass


def lab_down(directory: Path, say: Say = _quiet) -> list[str]:
    """Take the lab in ``directory`` apart; returns what could not be removed (empty: all gone)."""
    with lab_lock(directory):
        state = load_state(directory)
        if state is None:
            if directory.exists():
                raise LabError(f"{directory} holds no lab.json; not touching it")
            say(f"no lab at {directory}")
            return []
        return teardown(state, say)


def teardown(state: LabState, say: Say = _quiet) -> list[str]:
    """Undo everything ``state`` records (the caller holds ``lab_lock``)."""
    left: list[str] = []
    killed = []
    for m in state.machines:
        for pid, start in ((m.launcher_pid, m.launcher_start), (m.init_pid, m.init_start),
                           (m.forwarder_pid, m.forwarder_start)):
            if is_alive(pid, start):
                os.kill(pid, signal.SIGKILL)
                killed.append((m.name, pid, start))
            elif pid and start_time(pid) == start:
                reap(pid)  # ended by itself: a zombie if this process started it
    deadline = time.monotonic() + 15
    for name, pid, start in killed:
        while is_alive(pid, start) and time.monotonic() < deadline:
            reap(pid)
            time.sleep(0.02)
        reap(pid)
        if is_alive(pid, start):
            left.append(f"{name}: process {pid} still running")
    if killed:
        say(f"stopped {len({k[0] for k in killed})} machines")
    left += _detach_loops(state, say)
    for m in state.machines:
        if m.netns_created and netns_exists(m.netns):
            _try(["ip", "netns", "del", m.netns], f"deleting namespace {m.netns}", left)
    for m in state.machines:
        # a veth goes with its namespace's end, a moment after the namespace is deleted
        deadline = time.monotonic() + 5
        while m.veth_created and link_exists(m.veth) and time.monotonic() < deadline:
            time.sleep(0.02)
        if m.veth_created and link_exists(m.veth):
            _try(["ip", "link", "del", m.veth], f"deleting link {m.veth}", left)
    if state.bridge_created and link_exists(state.bridge):
        _try(["ip", "link", "del", state.bridge], f"deleting bridge {state.bridge}", left)
    say("network removed")
    left += _remove_files(state)
    if not left:
        say(f"lab at {state.directory} is down; nothing left")
    return left


def _detach_loops(state: LabState, say: Say) -> list[str]:
    left = []
    images = [Path(b.image) for m in state.servers for b in m.bricks]
    deadline = time.monotonic() + 15
    for image in images:
        while True:
            devices = loops_of(image)
            for dev in devices:
                if loop_backing_file(dev) and Path(loop_backing_file(dev) or "") == image:
                    run(["losetup", "-d", dev], f"detaching {dev}", check=False)
            devices = loops_of(image)
            if not devices or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        if devices:
            left.append(f"{', '.join(devices)} still attached to {image}")
    if images:
        say("loop devices detached")
    return left


def _try(argv: list[str], what: str, left: list[str]) -> None:
    proc = run(argv, what, check=False)
    if proc.returncode != 0:
        left.append(f"{what}: {proc.stderr.decode(errors='replace').strip()}")


def _remove_files(state: LabState) -> list[str]:
    directory = Path(state.directory)
    busy = mounts_under(directory)
    if busy:
        return [f"not removing {directory}: still mounted there: {', '.join(busy)}"]
    if state.created_directory:
        shutil.rmtree(directory, ignore_errors=True)
    else:
        for name in ("images", "machines", "leases", "id_ed25519", "id_ed25519.pub", "authorized_keys",
                     "known_hosts", "ssh_config", "hosts", "topology.brickyard.json",
                     "topology-admin.brickyard.json", "lab.json"):
            path = directory / name
            if path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
            elif path.exists():
                path.unlink()
    return [f"{directory} could not be removed completely"] if state.created_directory and directory.exists() else []
