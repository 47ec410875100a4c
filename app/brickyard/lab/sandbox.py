"""Bring a lab up.

``lab_up`` records every resource in ``lab.json`` before it creates it, so ``teardown`` can
undo a half-built lab (an up that fails undoes itself the same way).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from . import config as cfg
from .state import LAYOUT_VERSION, BrickState, LabState, MachineState, children, is_alive, lab_lock, load_state, reap, start_time
from .system import LabError, free_bytes, link_exists, missing_tools, netns_exists, port_open, routes, run, run_all
from .teardown import teardown
from .topology import write_topology

Say = Callable[[str], None]
READY_TIMEOUT = 60.0
GLUSTERD_PORT = 24007


class AlreadyUp(Exception):
    """``lab up`` found a healthy lab already running in that directory."""

    def __init__(self, state: LabState):
        self.state = state
        servers, clients = len(state.servers), len(state.clients)
        old = " made by an older Brickyard (`lab down`, then `lab up` for the current layout)" if state.outdated else ""
        super().__init__(f"a lab is already up in {state.directory} ({servers} node{'s' * (servers != 1)}, "
                         f"{clients} client{'s' * (clients != 1)}){old}")


def _quiet(_: str) -> None:
    pass


def check_host(plan: cfg.LabPlan) -> None:
    """Everything that can be checked before the lab creates anything."""
    if os.geteuid() != 0:
        raise LabError("the lab needs root (network namespaces, loop devices, mounts); run it as root")
    missing = missing_tools()
    if missing:
        pkgs = " ".join(sorted(set(missing.values())))
        raise LabError(f"missing tools: {', '.join(sorted(missing))}; install: apt-get install {pkgs}")
    for point in (*cfg.PRIVATE_MOUNT_POINTS, *cfg.PRIVATE_DIRS.values(), *cfg.PRIVATE_FILES.values(),
                  cfg.GLUSTERD_DIR, cfg.GLUSTER_LOG_DIR, "/etc/hosts"):
        if not os.path.exists(point):
            raise LabError(f"{point} does not exist on this machine; the lab mounts a private copy over it")
    if plan.spec.admin_user in cfg.account_names(Path("/etc/passwd").read_text()):
        raise LabError(f"--admin-user {plan.spec.admin_user}: this machine has a user of that name already; "
                       f"the lab's admin exists only inside the lab (choose another name)")
    for sub in ("hooks", "groups"):
        if not (Path(cfg.GLUSTERD_DIR) / sub).is_dir():
            raise LabError(f"{cfg.GLUSTERD_DIR}/{sub} is missing (it comes with glusterfs-server)")
    if not Path("/proc/self/ns/net").exists() or not Path("/proc/self/ns/pid").exists():
        raise LabError("this kernel has no network/PID namespaces")
    taps = [_tap_name(plan.spec.prefix, k) for k, m in enumerate(plan.machines) if m.delayed]
    taken = [n for n in [plan.bridge, *(m.veth for m in plan.machines), *taps] if link_exists(n)]
    taken += [f"netns {m.netns}" for m in plan.machines if netns_exists(m.netns)]
    if taken:
        raise LabError(f"names the lab needs are in use: {', '.join(taken)}; another lab with "
                       f"--prefix {plan.spec.prefix} may be up (use its --dir with `lab down`, or another --prefix)")
    clash = cfg.overlapping_routes(plan.spec.subnet, routes())
    if clash:
        raise LabError(f"--subnet {plan.spec.subnet} overlaps this machine's routes ({'; '.join(clash[:3])}); "
                       f"another lab may use it (`brickyard lab down --dir ITS_DIR`), or choose another --subnet")
    short = cfg.space_shortfall(plan, free_bytes(plan.spec.directory))
    if short:
        raise LabError(short)


def lab_up(spec: cfg.LabSpec, say: Say = _quiet, owner: str = "cli") -> LabState:
    """Build the lab; returns its state. Raises AlreadyUp, LabError or LabConfigError."""
    with lab_lock(spec.directory):
        return up_locked(spec, say, owner)


def up_locked(spec: cfg.LabSpec, say: Say = _quiet, owner: str = "cli") -> LabState:
    """``lab_up`` for a caller that holds ``lab_lock`` already."""
    plan = cfg.plan_lab(spec)
    directory = spec.directory
    existing = load_state(directory)
    if existing is not None:
        if existing.status == "up" and all(machine_alive(m) for m in existing.machines):
            raise AlreadyUp(existing)
        raise LabError(f"{directory} holds a lab that is not (fully) up; run `brickyard lab down --dir {directory}` first")
    if directory.exists() and any(directory.iterdir()):
        raise LabError(f"{directory} exists and is not empty; the lab uses a new or empty folder (choose another --dir)")
    check_host(plan)
    started = time.monotonic()
    created_dir = not directory.exists()
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(directory, 0o755)
    state = _new_state(plan, created_dir, owner)
    state.save()
    try:
        _build(plan, state, say)
    except BaseException:
        say("lab up failed; undoing what it made")
        teardown(state, _quiet)
        raise
    state.status = "up"
    state.up_seconds = round(time.monotonic() - started, 2)
    state.save()
    say(f"lab up in {state.up_seconds:.1f} s: ssh -F {shlex.quote(state.ssh_config)} node1")
    return state


def _new_state(plan: cfg.LabPlan, created_dir: bool, owner: str) -> LabState:
    spec = plan.spec
    machines = [
        MachineState(m.name, m.role, m.address, m.netns, m.veth, str(m.dir), cfg.SSH_PORT,
                     [BrickState(b.index, b.mount, b.path, str(b.image)) for b in m.bricks],
                     delay_ms=m.delay_ms, delay_from_ms=m.delay_from_ms)
        for m in plan.machines
    ]
    return LabState(
        directory=str(spec.directory), prefix=spec.prefix, subnet=plan.network, bridge=plan.bridge,
        bridge_address=plan.bridge_address, brick_size=spec.brick_size,
        bricks_per_node=spec.bricks_per_node, created_directory=created_dir, owner=owner,
        started_at=datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        ssh_config=str(plan.ssh_config), known_hosts=str(plan.known_hosts),
        identity_file=str(plan.client_key), topology_file=str(plan.topology_file),
        admin_user=spec.admin_user, admin_topology_file=str(plan.admin_topology_file),
        scratch_dir=cfg.SCRATCH_DIR, mount_root=cfg.MOUNT_ROOT, machines=machines,
        layout_version=LAYOUT_VERSION,
    )


def _build(plan: cfg.LabPlan, state: LabState, say: Say) -> None:
    directory = plan.spec.directory
    say(f"keys and configs in {directory}")
    _write_files(plan)
    say(f"{len(plan.servers) * plan.spec.bricks_per_node} XFS brick images of "
        f"{plan.spec.brick_size / 2**30:.2f} GiB (preallocated)")
    _make_images(plan, state)
    say(f"network {plan.network} on bridge {plan.bridge}")
    _make_network(plan, state)
    say(f"starting {len(plan.machines)} machines (sshd{', glusterd' if plan.servers else ''})")
    _start_machines(plan, state)
    _wait_ready(state)
    _fill_brick_sizes(state)
    write_topology(state)
    say(f"topology for planning: {state.topology_file} (as {state.admin_user} through sudo: "
        f"{state.admin_topology_file})")


def _write_files(plan: cfg.LabPlan) -> None:
    d = plan.spec.directory
    (d / "images").mkdir()
    host_files = {name: Path(cfg.PRIVATE_FILES[name]).read_text() for name in ("passwd", "shadow", "group")}
    admin_id = cfg.free_account_id(host_files["passwd"], host_files["group"])
    accounts = cfg.add_admin_account(host_files, plan.spec.admin_user, admin_id)
    keygen = [(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "brickyard-lab", "-f", str(plan.client_key)],
               "making the lab's SSH client key")]
    for m in plan.machines:
        for sub in ("log", "scratch"):
            (m.dir / sub).mkdir(parents=True)
        for sub, target in cfg.PRIVATE_DIRS.items():
            (m.dir / sub).mkdir()
            os.chmod(m.dir / sub, Path(target).stat().st_mode & 0o7777)
        for name, target in cfg.PRIVATE_FILES.items():
            shutil.copy2(target, m.dir / name)
        for name, text in accounts.items():
            (m.dir / name).write_text(text)
        glusterd = m.dir / "glusterd"
        glusterd.mkdir()
        for sub in ("hooks", "groups"):
            shutil.copytree(Path(cfg.GLUSTERD_DIR) / sub, glusterd / sub, symlinks=True)
        (m.dir / "sshd_config").write_text(cfg.render_sshd_config(plan, m))
        keygen.append((["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", f"{m.name}@brickyard-lab",
                        "-f", str(m.dir / "ssh_host_ed25519_key")], f"making {m.name}'s host key"))
    run_all(keygen)
    host_keys = {m.name: (m.dir / "ssh_host_ed25519_key.pub").read_text() for m in plan.machines}
    (d / "authorized_keys").write_text(plan.client_key.with_suffix(".pub").read_text())
    os.chmod(d / "authorized_keys", 0o600)
    for m in plan.machines:
        _make_admin_home(plan, m, admin_id, plan.client_key.with_suffix(".pub").read_text())
    plan.known_hosts.write_text(cfg.render_known_hosts(plan, host_keys))
    plan.ssh_config.write_text(cfg.render_ssh_config(plan))
    plan.hosts_file.write_text(cfg.render_hosts(plan))


def _make_admin_home(plan: cfg.LabPlan, m: cfg.MachinePlan, uid: int, public_key: str) -> None:
    """The admin's sudo rule and home (with the lab key) in the machine's private folders.
    Modes and owners are what sudo and sshd's StrictModes insist on."""
    user = plan.spec.admin_user
    rule = m.dir / "sudoers.d" / cfg.ADMIN_SUDOERS
    rule.write_text(cfg.render_sudoers(user))
    os.chmod(rule, 0o440)
    home = m.dir / "homes" / user
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "authorized_keys").write_text(public_key)
    for path, mode in ((home, 0o750), (home / ".ssh", 0o700), (home / ".ssh" / "authorized_keys", 0o600)):
        os.chmod(path, mode)
        os.chown(path, uid, uid)


def _make_images(plan: cfg.LabPlan, state: LabState) -> None:
    size = str(plan.spec.brick_size)
    images = [Path(b.image) for m in state.servers for b in m.bricks]
    run_all([(["fallocate", "-l", size, str(img)], f"preallocating {img.name}") for img in images])
    run_all([(["mkfs.xfs", "-q", "-K", "-i", "size=512", str(img)], f"making XFS on {img.name}")
             for img in images])
    for m in state.servers:
        for b in m.bricks:
            proc = run(["losetup", "--find", "--show", b.image], f"attaching {Path(b.image).name} to a loop device")
            b.loop_device = proc.stdout.decode().strip()
            state.save()


def _make_network(plan: cfg.LabPlan, state: LabState) -> None:
    prefix = plan.network.split("/")[1]
    state.bridge_created = True
    state.save()
    run(["ip", "link", "add", plan.bridge, "type", "bridge"], "creating the lab bridge")
    run(["ip", "addr", "add", f"{plan.bridge_address}/{prefix}", "dev", plan.bridge], "addressing the lab bridge")
    run(["ip", "link", "set", plan.bridge, "up"], "bringing the lab bridge up")
    for k, m in enumerate(state.machines):
        m.netns_created = True
        m.veth_created = True
        state.save()
        run(["ip", "netns", "add", m.netns], f"creating network namespace {m.netns}")
        if m.delayed:
            inner = _start_forwarder(state, m, _tap_name(plan.spec.prefix, k))
            run(["ip", "link", "set", inner, "netns", m.netns], f"moving {m.name}'s delayed link into its namespace")
            run(["ip", "-n", m.netns, "link", "set", inner, "name", "eth0"], f"naming {m.name}'s delayed link eth0")
        else:
            run(["ip", "link", "add", m.veth, "type", "veth", "peer", "name", "eth0", "netns", m.netns],
                f"creating {m.name}'s network link")
        run(["ip", "link", "set", m.veth, "master", plan.bridge, "up"], f"joining {m.name} to the bridge")
        run(["ip", "-n", m.netns, "addr", "add", f"{m.address}/{prefix}", "dev", "eth0"], f"addressing {m.name}")
        run(["ip", "-n", m.netns, "link", "set", "eth0", "up"], f"bringing {m.name}'s link up")


def _tap_name(prefix: str, index: int) -> str:
    """The delayed machine's inner TAP device, until it is renamed eth0 inside its namespace."""
    return f"{prefix}-tap{index}"


def _spawn_detached(argv: list[str], log_file: Path) -> tuple[int, int]:
    """Start ``argv`` in a session of its own, its output in ``log_file``: (pid, start time).
    The Popen object is dropped on purpose: the process outlives this one, like the lab."""
    with open(log_file, "wb") as log:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True, close_fds=True)
    proc.returncode = 0     # never waited for here: no ResourceWarning when it is dropped
    return proc.pid, start_time(proc.pid) or 0


def _start_forwarder(state: LabState, m: MachineState, inner: str) -> str:
    """Start the user-space delay path for ``m``: returns the inner TAP device's name
    (the outer one is ``m.veth``, for the bridge)."""
    ready = Path(m.dir) / "delay.ready"
    m.forwarder_pid, m.forwarder_start = _spawn_detached(
        [sys.executable, "-m", "brickyard.lab.delay", "--node-tap", inner, "--host-tap", m.veth,
         "--ms", f"{m.delay_ms:g}", "--ready", str(ready),
         *(["--from-ms", f"{m.delay_from_ms:g}"] if m.delay_from_ms is not None else [])],
        Path(m.dir) / "delay.log")
    state.save()
    deadline = time.monotonic() + 15
    while not ready.exists():
        if not is_alive(m.forwarder_pid, m.forwarder_start) or time.monotonic() > deadline:
            reap(m.forwarder_pid)
            raise LabError(f"{m.name}'s delay path did not start: {_log_tail(Path(m.dir) / 'delay.log')}")
        time.sleep(0.02)
    return inner


def _start_machines(plan: cfg.LabPlan, state: LabState) -> None:
    for m in state.machines:
        mplan = plan.machine(m.name)
        script = Path(m.dir) / "init.sh"
        script.write_text(cfg.render_init(plan, mplan, {b.mount: b.loop_device for b in m.bricks}))
        m.launcher_pid, m.launcher_start = _spawn_detached(
            ["ip", "netns", "exec", m.netns, "unshare", "--pid", "--fork", "--kill-child",
             "--mount-proc", "--uts", "--propagation", "private", "/bin/bash", str(script)],
            Path(m.dir) / "init.log")
        state.save()


def _wait_ready(state: LabState) -> None:
    deadline = time.monotonic() + READY_TIMEOUT
    waiting = list(state.machines)
    while waiting:
        for m in list(waiting):
            if m.init_pid == 0:
                kids = children(m.launcher_pid)
                if kids:
                    m.init_pid = kids[0]
                    m.init_start = start_time(kids[0]) or 0
                    state.save()
            if not is_alive(m.launcher_pid, m.launcher_start):
                reap(m.launcher_pid)
                raise LabError(f"{m.name} did not start: {_log_tail(Path(m.dir) / 'init.log')}")
            ports = [m.ssh_port] + ([GLUSTERD_PORT] if m.role == "server" else [])
            if (Path(m.dir) / "ready").exists() and m.init_pid and all(port_open(m.address, p) for p in ports):
                waiting.remove(m)
        if waiting and time.monotonic() > deadline:
            names = ", ".join(m.name for m in waiting)
            raise LabError(f"{names} not ready within {READY_TIMEOUT:g} s (see init.log and sshd.log in {state.directory}/machines/)")
        if waiting:
            time.sleep(0.05)


def _log_tail(path: Path) -> str:
    try:
        lines = path.read_text(errors="replace").strip().splitlines()
    except OSError:
        return "(no log)"
    return " | ".join(lines[-3:]) or "(empty log)"


def _fill_brick_sizes(state: LabState) -> None:
    """Record each brick filesystem's size as df shows it inside the node."""
    for m in state.servers:
        if not m.bricks:
            continue
        out = machine_exec(state, m.name, ["stat", "-f", "-c", "%S %b", *(b.mount for b in m.bricks)],
                           f"reading {m.name}'s brick filesystem sizes").stdout.decode().split("\n")
        for b, line in zip(m.bricks, out):
            frsize, blocks = line.split()
            b.size_bytes = int(frsize) * int(blocks)
    state.save()


def machine_exec(state: LabState, name: str, argv: list[str], what: str = "",
                 timeout: float = 60, check: bool = True) -> subprocess.CompletedProcess:
    """Run ``argv`` inside a lab machine's namespaces as its root, without SSH."""
    m = state.machine(name)
    if not is_alive(m.init_pid, m.init_start):
        raise LabError(f"lab machine {name} is not running")
    return run(["nsenter", "--target", str(m.init_pid), "--mount", "--uts", "--net", "--pid", "--", *argv],
               what or f"running {argv[0]} on {name}", timeout=timeout, check=check)


def machine_alive(m: MachineState) -> bool:
    return is_alive(m.init_pid, m.init_start)
