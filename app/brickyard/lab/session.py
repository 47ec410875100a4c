"""Using a running lab from Python: the ``Lab`` handle, and sharing one lab between test sessions.

Tests and benchmarks call ``acquire`` (reuse the lab that is up, or start one) and ``release``
at the end. Each user holds a lease (a file naming its PID and start time); the last user out
takes down a lab that a test session started, never one a person started with ``lab up``.
"""

from __future__ import annotations

import shlex
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from ..core import topofile
from ..core.topology import Topology
from . import config as cfg
from .sandbox import AlreadyUp, machine_alive, machine_exec, up_locked
from .state import LAYOUT_VERSION, LabState, drop_lease, lab_lock, live_leases, load_state, take_lease
from .system import LabError, run
from .teardown import teardown

TEST_OWNER = "pytest"


@dataclass
class Lab:
    """A running lab: its recorded state plus ways to run commands on its machines."""

    state: LabState
    lease: Path | None = None
    started_here: bool = False

    @property
    def directory(self) -> Path:
        return Path(self.state.directory)

    @property
    def ssh_config(self) -> Path:
        return Path(self.state.ssh_config)

    @property
    def servers(self) -> list[str]:
        return [m.name for m in self.state.servers]

    @property
    def clients(self) -> list[str]:
        return [m.name for m in self.state.clients]

    @property
    def admin_user(self) -> str:
        """The lab's non-root account with passwordless sudo (in every machine)."""
        return self.state.admin_user

    def topology(self, ssh_user: str | None = None) -> Topology:
        """The lab as a topology; ``ssh_user`` (e.g. ``lab.admin_user``) instead of root."""
        topo = topofile.load(self.state.topology_file)
        if ssh_user is not None:
            for machine in (*topo.nodes, *topo.clients):
                machine.ssh_user = ssh_user
        return topo

    def ssh_argv(self, machine: str, argv: list[str], user: str | None = None) -> list[str]:
        """The ``ssh`` command line that runs ``argv`` on ``machine`` (as ``user``, default
        root), each word quoted."""
        self.state.machine(machine)  # unknown names fail here, not in ssh
        login = ["-l", user] if user else []
        return ["ssh", "-F", str(self.ssh_config), *login, machine, "--", shlex.join(argv)]

    def form_pool(self, servers: list[str], seconds: float = 60.0) -> None:
        """Probe ``servers`` into one trusted pool from the first, then wait until EVERY one
        of them sees the whole pool connected. ``volume create`` is staged on each peer, and
        one that does not see a brick host yet refuses ("Host node4 not connected"), so
        waiting for the prober's view alone races. Through the machines' own namespaces, not
        SSH: an SSH round costs a second or more on a busy machine (a fresh 4-node pool at load
        24-31: 8-17 s, with SSH 12-21 s; the rest is glusterd's own peer handshake)."""
        first, *others = servers
        for name in others:   # probing a peer that is in the pool already is harmless
            self.exec(first, ["gluster", "--mode=script", "peer", "probe", name], timeout=120)
        deadline = time.monotonic() + seconds
        for name in servers:
            while True:
                listing = self.exec(name, ["gluster", "pool", "list"], timeout=120).stdout
                listing = listing.decode(errors="replace") if isinstance(listing, bytes) else listing
                if listing.count("Connected") >= len(servers):   # "Disconnected" has no capital C
                    break
                if time.monotonic() > deadline:
                    raise LabError(f"{name} did not see all of {', '.join(servers)} connected within "
                                   f"{seconds:g} s:\n{listing}")
                time.sleep(0.3)

    def ssh(self, machine: str, argv: list[str], check: bool = True, timeout: float = 120,
            input: str | None = None, user: str | None = None) -> subprocess.CompletedProcess:
        """Run ``argv`` on ``machine`` over SSH (strict host keys); text output."""
        proc = subprocess.run(self.ssh_argv(machine, argv, user), capture_output=True, text=True,
                              timeout=timeout, input=input,
                              stdin=None if input is not None else subprocess.DEVNULL)
        if check and proc.returncode != 0:
            raise LabError(f"on {machine}: `{shlex.join(argv)}` exited {proc.returncode}: "
                           f"{(proc.stderr or proc.stdout).strip()[-500:]}")
        return proc

    def exec(self, machine: str, argv: list[str], check: bool = True,
             timeout: float = 60) -> subprocess.CompletedProcess:
        """Run ``argv`` inside ``machine``'s namespaces without SSH (bytes output)."""
        return machine_exec(self.state, machine, argv, timeout=timeout, check=check)

    def set_link(self, machine: str, up: bool) -> None:
        """Cut (``up=False``) or restore ``machine``'s link to the lab bridge. A cut is silent,
        like a pulled cable: frames are dropped, nobody gets a reset."""
        m = self.state.machine(machine)
        run(["ip", "link", "set", m.veth, "up" if up else "down"],
            f"{'restoring' if up else 'cutting'} {machine}'s link")


def open_lab(directory: Path = cfg.DEFAULT_DIR) -> Lab:
    """The lab that is up in ``directory``; LabError when there is none or it is unhealthy."""
    state = load_state(directory)
    if state is None:
        raise LabError(f"no lab at {directory}; start one with `brickyard lab up 4`")
    dead = [m.name for m in state.machines if not machine_alive(m)]
    if state.status != "up" or dead:
        raise LabError(f"the lab at {directory} is not fully up ({', '.join(dead) or state.status}); "
                       f"`brickyard lab down --dir {directory}` and up again")
    return Lab(state)


def acquire(spec: cfg.LabSpec, say=lambda _: None) -> Lab:
    """Reuse the lab that is up in ``spec.directory`` if it has at least the machines asked
    for, otherwise start one; either way take a lease on it. A broken lab that a test
    session started (and nobody uses) is taken down and started again, and so is one made by
    an older Brickyard (another ``LAYOUT_VERSION``)."""
    directory = spec.directory
    with lab_lock(directory):
        state = load_state(directory)
        if state is not None:
            healthy = state.status == "up" and all(machine_alive(m) for m in state.machines)
            if healthy and state.outdated and state.owner != TEST_OWNER:
                raise LabError(f"the lab up at {directory} was made by an older Brickyard (layout "
                               f"{state.layout_version}, tests need {LAYOUT_VERSION}); "
                               f"`brickyard lab down --dir {directory}` and up again")
            if healthy and not state.outdated:
                if len(state.servers) < spec.nodes or len(state.clients) < spec.clients:
                    raise LabError(
                        f"the lab up at {directory} has {len(state.servers)} nodes and "
                        f"{len(state.clients)} clients; {spec.nodes} and {spec.clients} are needed "
                        f"(`brickyard lab down --dir {directory}` first)")
                return Lab(state, take_lease(directory))
            if state.owner != TEST_OWNER or live_leases(directory):
                why = "made by an older Brickyard" if healthy else "not fully up"
                raise LabError(f"the lab at {directory} is {why} and is not this test run's to "
                               f"replace; `brickyard lab down --dir {directory}` first")
            say(f"replacing the {'outdated' if healthy else 'broken'} test lab at {directory}")
            left = teardown(state, say)
            if left:
                raise LabError(f"could not clear the broken lab at {directory}: {'; '.join(left)}")
        try:
            state = up_locked(spec, say, owner=TEST_OWNER)
        except AlreadyUp as exc:  # cannot happen under the lock, but harmless
            state = exc.state
            return Lab(state, take_lease(directory))
        return Lab(state, take_lease(directory), started_here=True)


def release(lab: Lab, say=lambda _: None) -> list[str]:
    """Drop ``lab``'s lease; the last user of a test-started lab takes it down.
    Returns what teardown could not remove (empty when nothing was left or it stays up)."""
    directory = lab.directory
    with lab_lock(directory):
        if lab.lease is not None:
            drop_lease(lab.lease)
        state = load_state(directory)
        if state is None or state.owner != TEST_OWNER or live_leases(directory):
            return []
        return teardown(state, say)
