"""``lab up`` / ``lab down`` on a small lab of its own: idempotent up, teardown of every kind of
partial state, and nothing left behind (processes, loop devices, namespaces, links, folders)."""

from __future__ import annotations

import functools
import json
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from brickyard import cli
from brickyard.lab import config as cfg
from brickyard.lab import sandbox
from brickyard.lab.sandbox import AlreadyUp, lab_up
from brickyard.lab.teardown import lab_down
from brickyard.lab.session import acquire, open_lab, release
from brickyard.lab.state import LAYOUT_VERSION, LabState, is_alive, load_state, take_lease
from brickyard.lab.status import lab_health
from brickyard.lab.system import LabError, link_exists, loops_of, mounts_under, netns_exists

from .freesubnet import free_subnet

# names of its own (per test process), so it never meets the session's shared lab nor the small
# labs of another test run on the same machine; its subnet is one that nothing here uses
# (tests/e2e/freesubnet.py), looked up when a test first needs it
PREFIX = f"t{os.getpid() % 100000:05d}"


@functools.cache
def subnet() -> str:
    return free_subnet()


def small_spec(directory: Path) -> cfg.LabSpec:
    return cfg.LabSpec(nodes=1, clients=1, brick_size=320 << 20, bricks_per_node=1,
                       directory=directory, subnet=subnet(), prefix=PREFIX)


def assert_nothing_left(state: LabState) -> None:
    for m in state.machines:
        assert not is_alive(m.init_pid, m.init_start), f"{m.name}'s init still runs"
        assert not is_alive(m.launcher_pid, m.launcher_start), f"{m.name}'s launcher still runs"
        assert not netns_exists(m.netns), m.netns
        assert not link_exists(m.veth), m.veth
        for b in m.bricks:
            assert loops_of(Path(b.image)) == [], b.image
    assert not link_exists(state.bridge)
    assert mounts_under(Path(state.directory)) == []


def test_the_small_lab_subnet_is_free_here_and_reserved():
    """The pid-derived subnet this module used could be another lab's (CI collided): the one
    picked overlaps no route or address of the host or of any namespace, a candidate in use
    is passed over, and another process cannot reserve the same one while this one holds it."""
    import ipaddress
    import sys

    from . import freesubnet

    mine = ipaddress.ip_network(subnet())
    assert not any(mine.overlaps(n) for n in freesubnet.networks_in_use())
    assert mine not in (ipaddress.ip_network(cfg.DEFAULT_SUBNET),
                        ipaddress.ip_network(os.environ.get("BRICKYARD_LAB_SUBNET") or cfg.DEFAULT_SUBNET))
    in_use = [ipaddress.ip_network("10.78.0.0/23"), ipaddress.ip_network("10.78.3.7/32")]
    assert freesubnet.pick(in_use, seed=0) == "10.78.2.0/24"
    assert freesubnet.pick(in_use, seed=3) == "10.78.4.0/24"
    assert freesubnet.pick([], seed=0, reserve=lambda s: s != "10.78.0.0/24") == "10.78.1.0/24"
    other = subprocess.run([sys.executable, "-c", "import sys; sys.path[:0] = [sys.argv[1]]; import freesubnet; "
                            "print(freesubnet._reserve(sys.argv[2]))", str(Path(freesubnet.__file__).parent),
                            str(mine)], capture_output=True, text=True, timeout=60)
    assert other.stdout.strip() == "False", other.stderr


def test_up_is_idempotent_and_down_removes_everything_it_made(tmp_path, capsys):
    directory = tmp_path / "lab"
    state = lab_up(small_spec(directory))
    assert state.status == "up" and (directory / "lab.json").is_file()
    assert [b.loop_device for b in state.machines[0].bricks][0].startswith("/dev/loop")
    with pytest.raises(AlreadyUp):
        lab_up(small_spec(directory))
    assert cli.main(["lab", "up", "1", "--dir", str(directory), "--prefix", PREFIX, "--subnet", subnet()]) == 0
    assert "already up" in capsys.readouterr().out
    assert cli.main(["lab", "status", "--json", "--dir", str(directory)]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["status"] == "up"
    assert [m["name"] for m in status["machines"]] == ["node1", "client1"]

    assert cli.main(["lab", "down", "--dir", str(directory)]) == 0
    assert_nothing_left(state)
    assert not directory.exists()
    capsys.readouterr()
    assert cli.main(["lab", "down", "--dir", str(directory)]) == 0  # nothing to do is fine
    assert "no lab at" in capsys.readouterr().out
    assert cli.main(["lab", "status", "--json", "--dir", str(directory)]) == 1
    assert json.loads(capsys.readouterr().out)["status"] == "down"


def test_a_failed_up_undoes_what_it_had_made(tmp_path, monkeypatch):
    directory = tmp_path / "lab"

    def broken_init(plan, machine, loops):
        return "#!/bin/bash\necho 'init exploded on purpose' >&2\nexit 3\n"

    monkeypatch.setattr(sandbox.cfg, "render_init", broken_init)
    with pytest.raises(LabError, match="did not start: .*init exploded on purpose"):
        lab_up(small_spec(directory))
    assert not directory.exists()
    for m in cfg.plan_lab(small_spec(directory)).machines:
        assert not netns_exists(m.netns) and not link_exists(m.veth)
    assert not link_exists(f"{PREFIX}-br")


def test_down_clears_a_lab_whose_machines_died(tmp_path):
    directory = tmp_path / "lab"
    state = lab_up(small_spec(directory))
    for m in state.machines:
        os.kill(m.init_pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while any(is_alive(m.init_pid, m.init_start) for m in state.machines) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert lab_down(directory) == []
    assert_nothing_left(state)
    assert not directory.exists()


def test_down_of_a_lab_in_a_folder_it_did_not_create_keeps_the_folder(tmp_path):
    directory = tmp_path / "mine"
    directory.mkdir()
    state = lab_up(small_spec(directory))
    assert load_state(directory).created_directory is False
    assert lab_down(directory) == []
    assert_nothing_left(state)
    assert directory.is_dir() and list(directory.iterdir()) == []


def test_down_refuses_a_folder_that_holds_no_lab(tmp_path):
    (tmp_path / "precious.txt").write_text("keep me")
    with pytest.raises(LabError, match="no lab.json"):
        lab_down(tmp_path)
    assert (tmp_path / "precious.txt").read_text() == "keep me"


def test_up_refuses_a_folder_with_other_files(tmp_path):
    (tmp_path / "precious.txt").write_text("keep me")
    with pytest.raises(LabError, match="not empty"):
        lab_up(small_spec(tmp_path))
    assert [p.name for p in tmp_path.iterdir()] == ["precious.txt"]


def _connect_ms(address: str, port: int = 22) -> float:
    """The fastest of a few TCP handshakes: one round trip."""
    best = float("inf")
    for _ in range(4):
        started = time.monotonic()
        with socket.create_connection((address, port), timeout=5):
            best = min(best, (time.monotonic() - started) * 1000)
    return best


def test_a_delayed_machine_answers_a_round_trip_late_and_its_delay_path_goes_with_down(tmp_path):
    directory = tmp_path / "lab"
    spec = small_spec(directory)
    state = lab_up(cfg.LabSpec(**{**spec.__dict__, "delays": (("node1", 20.0),)}))
    node1, client1 = state.machine("node1"), state.machine("client1")
    assert node1.delay_ms == 20.0 and is_alive(node1.forwarder_pid, node1.forwarder_start)
    assert _connect_ms(node1.address) >= 2 * 20.0
    assert _connect_ms(client1.address) < 2 * 20.0
    assert lab_down(directory) == []
    assert not is_alive(node1.forwarder_pid, node1.forwarder_start)
    assert_nothing_left(state)


def test_shared_test_lab_is_taken_down_by_its_last_user_only(tmp_path):
    directory = tmp_path / "lab"
    spec = small_spec(directory)
    first = acquire(spec)
    assert first.started_here and load_state(directory).owner == "pytest"
    other_user = subprocess.Popen(["sleep", "60"])
    try:
        take_lease(directory, other_user.pid)
        assert release(first) == []
        assert lab_health(directory).status == "up"  # the other user still holds it
        second = acquire(spec)
        assert not second.started_here and second.state.machines == first.state.machines
    finally:
        other_user.kill()
        other_user.wait()
    assert release(second) == []
    assert_nothing_left(first.state)
    assert not directory.exists()


def test_a_lab_started_by_hand_is_reused_by_tests_and_left_up(tmp_path):
    directory = tmp_path / "lab"
    state = lab_up(small_spec(directory))
    try:
        with pytest.raises(LabError, match="has 1 nodes and 1 clients; 2 and 1 are needed"):
            acquire(cfg.LabSpec(**{**small_spec(directory).__dict__, "nodes": 2}))
        handle = acquire(small_spec(directory))
        assert not handle.started_here
        assert handle.ssh("node1", ["hostname"]).stdout.strip() == "node1"
        assert release(handle) == []
        assert lab_health(directory).status == "up"
    finally:
        assert lab_down(directory) == []
    assert_nothing_left(state)


def test_a_cut_link_drops_traffic_silently_until_restored(tmp_path):
    directory = tmp_path / "lab"
    lab_up(small_spec(directory))
    try:
        lab = open_lab(directory)
        address = lab.state.machine("node1").address
        lab.set_link("node1", up=False)
        with pytest.raises(OSError) as failed:  # a timeout: no reset, no refusal, frames just vanish
            socket.create_connection((address, 22), timeout=1.5)
        assert not isinstance(failed.value, (ConnectionRefusedError, ConnectionResetError))
        lab.set_link("node1", up=True)
        assert lab.ssh("node1", ["hostname"]).stdout.strip() == "node1"
    finally:
        assert lab_down(directory) == []


def test_a_lab_made_by_an_older_brickyard_is_not_reused_by_tests(tmp_path):
    directory = tmp_path / "lab"
    lab_up(small_spec(directory))
    try:
        state = load_state(directory)
        state.layout_version = LAYOUT_VERSION - 1
        state.save()
        with pytest.raises(LabError, match="made by an older Brickyard"):
            acquire(small_spec(directory))  # started by hand: tell the user, touch nothing
        state.owner = "pytest"
        state.save()
        handle = acquire(small_spec(directory))  # a test's own old lab: replaced
        assert handle.started_here and load_state(directory).layout_version == LAYOUT_VERSION
        assert release(handle) == []
        assert not directory.exists()
    finally:
        if directory.exists():
            lab_down(directory)
