"""The lab's plain logic, no root needed: names and addresses, input checks, free-space check,
rendered configs (read back by the real ssh and bash), lab.json, process identity, leases."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from brickyard import cli
from brickyard.core import topofile
from brickyard.lab import config as cfg
from brickyard.lab.state import (
    BrickState, LabState, LabStateError, MachineState, is_alive, live_leases, load_state,
    start_time, take_lease,
)
from brickyard.lab.topology import lab_topology


def spec(**kw) -> cfg.LabSpec:
    base = dict(nodes=4, clients=1, directory=Path("/var/lib/test lab"))
    base.update(kw)
    return cfg.LabSpec(**base)


def test_plan_gives_each_machine_its_address_namespace_and_bricks():
    plan = cfg.plan_lab(spec())
    assert plan.bridge == "bylab-br" and plan.bridge_address == "10.77.0.1" and plan.network == "10.77.0.0/24"
    assert [(m.name, m.role, m.address, m.netns) for m in plan.machines] == [
        ("node1", "server", "10.77.0.11", "bylab-node1"),
        ("node2", "server", "10.77.0.12", "bylab-node2"),
        ("node3", "server", "10.77.0.13", "bylab-node3"),
        ("node4", "server", "10.77.0.14", "bylab-node4"),
        ("client1", "client", "10.77.0.101", "bylab-client1"),
    ]
    node2 = plan.machine("node2")
    assert [(b.mount, b.path, b.image.name) for b in node2.bricks] == [
        ("/srv/brick1", "/srv/brick1/brick", "node2-brick1.xfs"),
        ("/srv/brick2", "/srv/brick2/brick", "node2-brick2.xfs"),
    ]
    assert plan.clients[0].bricks == ()
    assert plan.image_bytes == 4 * 2 * (1 << 30)


def test_interface_names_fit_the_kernel_limit_at_the_largest_lab():
    plan = cfg.plan_lab(spec(nodes=cfg.MAX_NODES, clients=cfg.MAX_CLIENTS, prefix="abcdef",
                             subnet="192.168.200.0/24"))
    names = [plan.bridge] + [m.veth for m in plan.machines]
    assert max(len(n) for n in names) <= 15
    addresses = [m.address for m in plan.machines]
    assert len(set(addresses)) == len(addresses) and "192.168.200.1" not in addresses


@pytest.mark.parametrize("kw, message", [
    (dict(nodes=0), "number of server nodes must be 1 to 80, not 0"),
    (dict(nodes=81), "number of server nodes must be 1 to 80, not 81"),
    (dict(clients=-1), "--clients must be 0 to 50"),
    (dict(bricks_per_node=0), "--bricks-per-node must be 1 to 8"),
    (dict(brick_size=100 << 20), "--brick-size must be at least 300.00 MiB"),
    (dict(brick_size=(1 << 30) + 100), "--brick-size must be a whole number of 4 KiB blocks"),
    (dict(admin_user="root"), "--admin-user must be a login name other than root"),
    (dict(admin_user="Admin"), "--admin-user must be a login name"),
    (dict(admin_user="-rf"), "--admin-user must be a login name"),
    (dict(admin_user="a;id"), "--admin-user must be a login name"),
    (dict(prefix="Lab_1"), "--prefix must be 1-6 lower-case"),
    (dict(prefix="toolongname"), "--prefix must be 1-6 lower-case"),
    (dict(directory=Path("relative/lab")), "--dir must be an absolute path"),
    (dict(directory=Path("/run/lab")), "--dir must not be under /run"),
    (dict(directory=Path("/srv")), "--dir must not be under /srv"),
    (dict(directory=Path("/var/lib/lab%h")), "--dir must not contain '%'"),
    (dict(directory=Path('/var/lib/"lab"')), "--dir must not contain '\"'"),
    (dict(subnet="10.77.0.0/16"), "--subnet must be a /24, not /16"),
    (dict(subnet="8.8.8.0/24"), "--subnet must be a private range"),
    (dict(subnet="10.77.0.5/24"), "is not an IPv4 network"),
    (dict(subnet="lab"), "is not an IPv4 network"),
])
def test_bad_lab_requests_are_refused_with_the_reason(kw, message):
    with pytest.raises(cfg.LabConfigError, match=message.replace(".", r"\.").replace("(", r"\(")):
        cfg.plan_lab(spec(**kw))


def test_subnets_that_overlap_this_machines_routes_are_named():
    routes = [{"dst": "default", "dev": "eth0"}, {"dst": "10.77.0.0/16", "dev": "wg0"},
              {"dst": "10.78.0.0/24", "dev": "br1"}, {"dst": "10.77.0.9", "dev": "tun0"}]
    assert cfg.overlapping_routes("10.77.0.0/24", routes) == ["10.77.0.0/16 dev wg0", "10.77.0.9 dev tun0"]
    assert cfg.overlapping_routes("10.99.0.0/24", routes) == []


def test_free_space_check_says_what_is_needed_and_what_is_free():
    plan = cfg.plan_lab(spec(nodes=4, bricks_per_node=2, brick_size=2 << 30))
    need = 16 * 2**30 + cfg.HEADROOM_BYTES
    assert cfg.space_shortfall(plan, need) is None
    text = cfg.space_shortfall(plan, need - 1)
    assert "8 brick images (4 nodes x 2 x 2.00 GiB) need 16.00 GiB plus 512.00 MiB headroom" in text
    assert "/var/lib/test lab has only 16.50 GiB free" in text


def test_ssh_config_resolves_in_openssh_to_strict_checking_with_the_lab_key(tmp_path):
    plan = cfg.plan_lab(spec(directory=tmp_path / "a lab"))
    plan.spec.directory.mkdir()
    plan.ssh_config.write_text(cfg.render_ssh_config(plan))
    for name, address in (("node3", "10.77.0.13"), ("client1", "10.77.0.101"), ("10.77.0.12", "10.77.0.12")):
        out = subprocess.run(["ssh", "-F", str(plan.ssh_config), "-G", name], capture_output=True,
                             text=True, check=True).stdout
        resolved = dict(line.split(" ", 1) for line in out.splitlines() if " " in line)
        assert resolved["hostname"] == address
        assert resolved["user"] == "root"
        assert resolved["port"] == "22"
        assert resolved["stricthostkeychecking"] == "true"
        assert resolved["userknownhostsfile"] == str(plan.known_hosts)
        assert resolved["identityfile"] == str(plan.client_key)
        assert resolved["batchmode"] == "yes"


def test_known_hosts_lists_each_machine_by_name_and_address():
    plan = cfg.plan_lab(spec(nodes=1, clients=1))
    keys = {"node1": "ssh-ed25519 AAAAnode1 node1@brickyard-lab\n", "client1": "ssh-ed25519 AAAAclient1 c"}
    assert cfg.render_known_hosts(plan, keys) == (
        "node1,10.77.0.11 ssh-ed25519 AAAAnode1\nclient1,10.77.0.101 ssh-ed25519 AAAAclient1\n")


def test_hosts_file_names_every_machine():
    text = cfg.render_hosts(cfg.plan_lab(spec(nodes=2, clients=1)))
    assert "10.77.0.11\tnode1\n10.77.0.12\tnode2\n10.77.0.101\tclient1\n" in text
    assert "127.0.0.1\tlocalhost" in text


def test_init_script_is_valid_bash_quotes_the_lab_folder_and_starts_glusterd_only_on_servers():
    plan = cfg.plan_lab(spec(nodes=1, clients=1))
    loops = {"/srv/brick1": "/dev/loop7", "/srv/brick2": "/dev/loop8"}
    server = cfg.render_init(plan, plan.machine("node1"), loops)
    client = cfg.render_init(plan, plan.machine("client1"), {})
    for script in (server, client):
        subprocess.run(["bash", "-n"], input=script, text=True, check=True)
        assert "mount --bind '/var/lib/test lab' /run/brickyard/lab" in script
        # everything else from the lab folder is reached through the private bind
        assert script.count("/var/lib/test lab") == 1
        assert script.index("brickyard-run /run") < script.index("--bind '/var/lib/test lab'") < script.index("brickyard-tmp /tmp")
    assert "mount -t xfs -o noatime /dev/loop8 /srv/brick2" in server
    assert "glusterd" in server and "glusterd -N" not in client
    assert "/usr/sbin/sshd -D -f /run/brickyard/lab/machines/client1/sshd_config" in client


def test_sshd_config_allows_only_the_lab_key_for_root():
    plan = cfg.plan_lab(spec(nodes=1, clients=0))
    text = cfg.render_sshd_config(plan, plan.machine("node1"))
    assert "ListenAddress 10.77.0.11:22" in text
    assert "PasswordAuthentication no" in text and "UsePAM no" in text
    assert "HostKey /run/brickyard/lab/machines/node1/ssh_host_ed25519_key" in text


def _state(directory: Path) -> LabState:
    return LabState(
        directory=str(directory), prefix="bylab", subnet="10.77.0.0/24", bridge="bylab-br",
        bridge_address="10.77.0.1", brick_size=1 << 30, bricks_per_node=1, created_directory=True,
        topology_file=str(directory / "topology.brickyard.json"),
        machines=[
            MachineState("node1", "server", "10.77.0.11", "bylab-node1", "bylab-node1", str(directory / "n1"),
                         bricks=[BrickState(1, "/srv/brick1", "/srv/brick1/brick", str(directory / "i.xfs"),
                                            "/dev/loop3", 1006632960)]),
            MachineState("client1", "client", "10.77.0.101", "bylab-client1", "bylab-client1", str(directory / "c1")),
        ])


def test_lab_json_round_trips_and_garbage_is_refused_by_name(tmp_path):
    state = _state(tmp_path)
    state.save()
    assert load_state(tmp_path) == state
    assert load_state(tmp_path / "nothing-here") is None
    (tmp_path / "lab.json").write_text('{"format": 1, "machines": "x"}')
    with pytest.raises(LabStateError, match="lab.json: 9 problems") as err:
        load_state(tmp_path)
    assert "machines: must be an array, not a string" in str(err.value) and "prefix: is required" in str(err.value)
    (tmp_path / "lab.json").write_text("{not json")
    with pytest.raises(LabStateError, match="lab.json: line 1: not valid JSON"):
        load_state(tmp_path)


def test_a_corrupt_lab_json_is_refused_field_by_field_before_lab_down_acts_on_it(tmp_path):
    """lab.json says which processes `lab down` kills and which files it removes: every field
    is checked, and the file is read strictly (regular, bounded, no NaN or key given twice)."""
    state = _state(tmp_path)
    state.save()
    good = json.loads((tmp_path / "lab.json").read_text())
    bad = json.loads(json.dumps(good))
    bad["machines"][0]["init_pid"] = "1"                  # a string where a pid goes
    bad["machines"][0]["bricks"][0]["image"] = ["/etc"]
    bad["machines"][1]["surprise"] = True
    bad["brick_size"] = 1.5
    (tmp_path / "lab.json").write_text(json.dumps(bad))
    with pytest.raises(LabStateError) as err:
        load_state(tmp_path)
    text = str(err.value)
    for words in ("machines[0].init_pid: must be an integer, not a string",
                  "machines[0].bricks[0].image: must be a string, not an array",
                  "machines[1].surprise: unknown field", "brick_size: must be an integer, not a number"):
        assert words in text, text
    (tmp_path / "lab.json").write_text(json.dumps(good).replace('"brick_size": 1073741824', '"brick_size": NaN'))
    with pytest.raises(LabStateError, match="brick_size: NaN is not a number JSON allows"):
        load_state(tmp_path)
    (tmp_path / "lab.json").write_text(json.dumps(good)[:-1] + ', "prefix": "other"}')
    with pytest.raises(LabStateError, match="prefix: appears twice"):
        load_state(tmp_path)
    (tmp_path / "lab.json").unlink()
    os.mkfifo(tmp_path / "lab.json")                       # never waits for a writer
    with pytest.raises(LabStateError, match="not a regular file"):
        load_state(tmp_path)
    (tmp_path / "lab.json").unlink()
    with open(tmp_path / "lab.json", "wb") as fh:
        fh.truncate(5 * 2**20)
    with pytest.raises(LabStateError, match="at most 4.0 MiB"):
        load_state(tmp_path)


def test_lab_topology_file_lists_nodes_bricks_and_clients(tmp_path):
    topo = lab_topology(_state(tmp_path))
    again = topofile.loads(topofile.dumps(topo))
    assert [(n.name, n.address) for n in again.nodes] == [("node1", "10.77.0.11")]
    brick = again.nodes[0].bricks[0]
    assert (brick.path, brick.size_bytes, brick.filesystem, brick.mount, brick.fs_type) == (
        "/srv/brick1/brick", 1006632960, "/dev/loop3", "/srv/brick1", "xfs")
    assert [(c.name, c.address) for c in again.clients] == [("client1", "10.77.0.101")]


def test_a_recorded_process_is_alive_only_with_its_own_start_time():
    me = os.getpid()
    assert is_alive(me, start_time(me))
    assert not is_alive(me, start_time(me) + 1)  # a reused PID is not our process
    assert not is_alive(0, 0)
    done = subprocess.Popen(["true"])
    started = start_time(done.pid)
    done.wait()
    assert not is_alive(done.pid, started)


def test_leases_of_ended_processes_are_dropped(tmp_path):
    mine = take_lease(tmp_path)
    gone = subprocess.Popen(["true"])
    stale = take_lease(tmp_path, gone.pid)
    gone.wait()
    assert live_leases(tmp_path) == [mine]
    assert not stale.exists()


@pytest.mark.parametrize("argv, message", [
    (["lab", "up", "0"], "number of server nodes must be 1 to 80"),
    (["lab", "up", "2", "--brick-size", "10M"], "--brick-size must be at least"),
    (["lab", "up", "2", "--brick-size", "lots"], "--brick-size: not a size"),
    (["lab", "up", "2", "--subnet", "1.2.3.0/24"], "--subnet must be a private range"),
])
def test_cli_refuses_bad_lab_requests_with_exit_2(argv, message, capsys):
    assert cli.main(argv) == 2
    assert message in capsys.readouterr().err


def test_cli_status_of_an_empty_folder_says_there_is_no_lab(tmp_path, capsys):
    assert cli.main(["lab", "status", "--dir", str(tmp_path)]) == 1
    assert f"no lab at {tmp_path}" in capsys.readouterr().out


def test_e2e_rule_skips_without_the_lab_but_fails_under_ci(monkeypatch):
    from tests.e2e import conftest as e2e

    monkeypatch.setattr(e2e, "_REASON", ["the gluster lab needs root"])
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="needs root"):
        e2e.require_lab()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="cannot run under CI=true: the gluster lab needs root"):
        e2e.require_lab()
    monkeypatch.setattr(e2e, "_REASON", [None])
    e2e.require_lab()  # available: neither skips nor fails


def test_delays_are_read_as_name_and_one_way_milliseconds_and_checked_against_the_machines():
    assert cfg.parse_delay("node4=25") == ("node4", 25.0)
    assert cfg.parse_delay("client1=2.5ms") == ("client1", 2.5)
    for bad in ("node4", "node4=", "=25", "node4=fast"):
        with pytest.raises(cfg.LabConfigError, match="--delay takes NAME=MS"):
            cfg.parse_delay(bad)
    plan = cfg.plan_lab(spec(delays=(("node2", 25.0),)))
    assert [m.delay_ms for m in plan.machines] == [0.0, 25.0, 0.0, 0.0, 0.0]
    with pytest.raises(cfg.LabConfigError, match="--delay names 'node9', which is not a machine"):
        cfg.plan_lab(spec(delays=(("node9", 25.0),)))
    with pytest.raises(cfg.LabConfigError, match="at most 1000 ms"):
        cfg.plan_lab(spec(delays=(("node1", 5000.0),)))


def test_the_smallest_brick_size_the_lab_accepts_is_one_mkfs_xfs_takes(tmp_path):
    from brickyard.lab.system import which

    mkfs = which("mkfs.xfs")
    if mkfs is None:
        pytest.skip("mkfs.xfs is not installed (xfsprogs)")
    assert cfg.MIN_BRICK_SIZE % cfg.BRICK_SIZE_ALIGN == 0
    image = tmp_path / "min.xfs"
    for size, ok in ((cfg.MIN_BRICK_SIZE, True), (300 * 1000 * 1000, False)):
        with open(image, "wb") as fh:
            fh.truncate(size)   # sparse: -N only computes the layout, writes nothing
        proc = subprocess.run([mkfs, "-N", "-q", "-K", "-i", "size=512", str(image)], capture_output=True, text=True)
        assert (proc.returncode == 0) is ok, (size, proc.stderr)
    cfg.plan_lab(spec(brick_size=cfg.MIN_BRICK_SIZE))


def test_admin_alias_resolves_in_openssh_to_the_admin_with_the_same_key_and_strict_checking(tmp_path):
    plan = cfg.plan_lab(spec(directory=tmp_path / "lab", admin_user="ops"))
    plan.spec.directory.mkdir()
    plan.ssh_config.write_text(cfg.render_ssh_config(plan))
    for name, user in (("node2", "root"), (cfg.admin_alias("node2"), "ops"), ("10.77.0.12", "root")):
        out = subprocess.run(["ssh", "-F", str(plan.ssh_config), "-G", name], capture_output=True,
                             text=True, check=True).stdout
        resolved = dict(line.split(" ", 1) for line in out.splitlines() if " " in line)
        assert (resolved["hostname"], resolved["user"]) == ("10.77.0.12", user)
        assert resolved["stricthostkeychecking"] == "true"
        assert resolved["identityfile"] == str(plan.client_key)


def test_admin_account_gets_a_free_id_no_password_and_its_own_group():
    passwd = "root:x:0:0:root:/root:/bin/bash\nalice:x:4200:4200::/home/alice:/bin/sh\n"
    group = "root:x:0:\nstaff:x:4201:\n"
    uid = cfg.free_account_id(passwd, group)
    assert uid == 4202
    files = cfg.add_admin_account({"passwd": passwd, "shadow": "root:*:1::::::", "group": group}, "byadmin", uid)
    assert files["passwd"].endswith("alice:x:4200:4200::/home/alice:/bin/sh\n"
                                    "byadmin:x:4202:4202:Brickyard lab admin:/home/byadmin:/bin/bash\n")
    # '*': no password but not locked ('!' makes sshd with UsePAM no refuse the login)
    assert files["shadow"] == "root:*:1::::::\nbyadmin:*:19000:0:99999:7:::\n"
    assert files["shadow"].splitlines()[1].count(":") == 8
    assert files["group"].endswith("staff:x:4201:\nbyadmin:x:4202:\n")
    assert cfg.account_names(files["passwd"]) == {"root", "alice", "byadmin"}
    assert cfg.render_sudoers("byadmin").splitlines()[-1] == "byadmin ALL=(ALL) NOPASSWD: ALL"


def test_init_covers_the_account_files_and_homes_with_private_copies():
    plan = cfg.plan_lab(spec(nodes=1, clients=0))
    script = cfg.render_init(plan, plan.machine("node1"), {"/srv/brick1": "/dev/loop7", "/srv/brick2": "/dev/loop8"})
    for name, target in (("passwd", "/etc/passwd"), ("shadow", "/etc/shadow"), ("group", "/etc/group"),
                         ("sudoers", "/etc/sudoers"), ("sudoers.d", "/etc/sudoers.d"), ("homes", "/home")):
        assert f"mount --bind /run/brickyard/lab/machines/node1/{name} {target}\n" in script
    text = cfg.render_sshd_config(plan, plan.machine("node1"))
    # root keeps the lab key on the private /run; other users read their home's key file
    assert "\nAuthorizedKeysFile .ssh/authorized_keys\n" in text
    assert text.rstrip().endswith("Match User root\n  AuthorizedKeysFile /run/brickyard/authorized_keys")


def test_lab_topology_for_the_admin_names_it_as_ssh_user_everywhere(tmp_path):
    topo = lab_topology(_state(tmp_path), ssh_user="byadmin")
    assert {m.ssh_user for m in (*topo.nodes, *topo.clients)} == {"byadmin"}
    assert {m.ssh_user for m in (*lab_topology(_state(tmp_path)).nodes,)} == {"root"}


def test_a_one_sided_delay_is_read_as_towards_then_from_the_machine():
    assert cfg.parse_delay("client2=40/0") == ("client2", 40.0, 0.0)
    assert cfg.parse_delay("client2=0/12.5ms") == ("client2", 0.0, 12.5)
    with pytest.raises(cfg.LabConfigError, match="NAME=TO/FROM"):
        cfg.parse_delay("client2=40/0/1")
    plan = cfg.plan_lab(spec(delays=(("client1", 40.0, 0.0),)))
    client = next(m for m in plan.machines if m.name == "client1")
    assert (client.delay_ms, client.delay_from_ms, client.delayed) == (40.0, 0.0, True)
    assert cfg.plan_lab(spec(delays=(("node1", 25.0),))).machines[0].delay_from_ms is None   # each way
    with pytest.raises(cfg.LabConfigError, match="not both 0"):
        cfg.plan_lab(spec(delays=(("node1", 0.0, 0.0),)))


def test_the_delay_path_holds_frames_towards_the_machine_and_from_it_for_their_own_times():
    import socket
    import threading
    import time

    from brickyard.lab.delay import forward

    bridge_side, bridge_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    machine_side, machine_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    for s in (bridge_side, machine_side):
        s.setblocking(False)
    worker = threading.Thread(target=forward, args=(bridge_side.fileno(), machine_side.fileno(), 0.2),
                              kwargs={"stop_after": 1.0, "back_s": 0.0}, daemon=True)
    worker.start()
    try:
        sent = time.monotonic()
        bridge_end.send(b"to the machine")
        machine_end.send(b"from the machine")
        assert bridge_end.recv(64) == b"from the machine"
        back = time.monotonic() - sent
        assert machine_end.recv(64) == b"to the machine"
        there = time.monotonic() - sent
        assert back < 0.1 and there >= 0.2
    finally:
        worker.join()
        for s in (bridge_side, bridge_end, machine_side, machine_end):
            s.close()
