"""The gluster lab is a real cluster: SSH with verified host keys, peers, a volume that stores data."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import defusedxml.ElementTree as ET
import pytest

from brickyard.lab.status import lab_health


def test_every_machine_answers_over_ssh_as_itself(lab):
    for name in lab.servers + lab.clients:
        out = lab.ssh(name, ["hostname"]).stdout.strip()
        assert out == name


def test_ssh_refuses_a_machine_whose_host_key_does_not_match(lab, tmp_path):
    # node1's address listed with node2's real key: strict checking must refuse to connect
    lines = {}
    for line in Path(lab.state.known_hosts).read_text().splitlines():
        names, key = line.split(None, 1)
        lines[names.split(",")[0]] = key
    node1 = lab.state.machine("node1")
    wrong = tmp_path / "known_hosts"
    wrong.write_text(f"node1,{node1.address} {lines['node2']}\n")
    proc = subprocess.run(
        ["ssh", "-F", str(lab.ssh_config), "-o", f"UserKnownHostsFile={wrong}", "node1", "true"],
        capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert proc.returncode == 255
    assert "host key" in proc.stderr.lower()


def test_glusterd_answers_peer_status_after_probing(lab):
    first, *others = lab.servers
    for name in others:
        lab.ssh(first, ["gluster", "--mode=script", "peer", "probe", name])
    deadline = time.monotonic() + 30
    while True:
        xml = lab.ssh(first, ["gluster", "--xml", "peer", "status"]).stdout
        root = ET.fromstring(xml)
        peers = {p.findtext("hostname"): (p.findtext("connected"), p.findtext("stateStr"))
                 for p in root.iter("peer")}
        if all(peers.get(n) == ("1", "Peer in Cluster") for n in others) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert root.findtext("opRet") == "0"
    assert {n: peers.get(n) for n in others} == {n: ("1", "Peer in Cluster") for n in others}


@pytest.fixture
def probed(lab):
    lab.form_pool(lab.servers)
    return lab


def test_distribute_volume_stores_a_file_the_client_reads_back(probed):
    lab = probed
    first = lab.servers[0]
    client = lab.clients[0]
    volume = f"labtest{os.getpid()}"
    bricks = [f"{n}:/srv/brick1/{volume}" for n in lab.servers[:4]]
    mount = f"{lab.state.mount_root}/{volume}"
    source = f"/tmp/{volume}.bin"
    try:
        lab.ssh(first, ["gluster", "--mode=script", "volume", "create", volume, *bricks])
        lab.ssh(first, ["gluster", "--mode=script", "volume", "start", volume])
        lab.ssh(client, ["mkdir", "-p", mount])
        lab.ssh(client, ["mount", "-t", "glusterfs", f"{first}:/{volume}", mount])
        lab.ssh(client, ["dd", "if=/dev/urandom", f"of={source}", "bs=1M", "count=3", "status=none"])
        want = lab.ssh(client, ["sha256sum", source]).stdout.split()[0]
        lab.ssh(client, ["dd", f"if={source}", f"of={mount}/data.bin", "bs=1M", "conv=fsync", "status=none"])
        # read back through a fresh mount, so the client's cache cannot answer
        lab.ssh(client, ["umount", mount])
        lab.ssh(client, ["mount", "-t", "glusterfs", f"{first}:/{volume}", mount])
        digest = lab.ssh(client, ["sha256sum", f"{mount}/data.bin"]).stdout.split()[0]
        assert digest == want
        # distribute: the file lives whole on exactly one brick
        holders = [b for b in bricks
                   if lab.ssh(b.split(":")[0], ["test", "-f", b.split(":")[1] + "/data.bin"], check=False).returncode == 0]
        assert len(holders) == 1
    finally:
        lab.ssh(client, ["umount", mount], check=False)
        lab.ssh(client, ["rm", "-f", source], check=False)
        lab.ssh(client, ["rmdir", mount], check=False)
        lab.ssh(first, ["gluster", "--mode=script", "volume", "stop", volume], check=False)
        lab.ssh(first, ["gluster", "--mode=script", "volume", "delete", volume], check=False)
        for brick in bricks:
            node, path = brick.split(":")
            lab.ssh(node, ["rm", "-rf", path], check=False)
    info = ET.fromstring(lab.ssh(first, ["gluster", "--xml", "volume", "info", volume]).stdout)
    assert info.findtext("opErrstr") == "Volume does not exist"
    for brick in bricks:
        node, path = brick.split(":")
        assert lab.ssh(node, ["test", "-e", path], check=False).returncode == 1


def test_topology_file_describes_the_lab_bricks_as_df_sees_them(lab):
    topo = lab.topology()
    assert [n.name for n in topo.nodes] == lab.servers
    assert [c.name for c in topo.clients] == lab.clients
    node = topo.nodes[0]
    brick = node.bricks[0]
    out = lab.ssh(node.name, ["df", "-B1", "--output=size,fstype,target", brick.mount]).stdout.split("\n")[1].split()
    assert (int(out[0]), out[1], out[2]) == (brick.size_bytes, "xfs", brick.mount)
    assert brick.path.startswith(brick.mount + "/")


def test_status_sees_every_machine_running_and_its_memory(lab):
    health = lab_health(lab.directory)
    assert health.status == "up"
    assert {m.name for m in health.machines} >= set(lab.servers + lab.clients)
    for machine in health.machines:
        assert machine.ssh and machine.running and machine.memory_bytes > 0


def test_what_a_machine_writes_to_root_var_tmp_or_fstab_stays_its_own(lab):
    first, second = lab.servers[:2]
    marker = f"brickyard-lab-test-{os.getpid()}"
    try:
        for path in (f"/root/{marker}", f"/var/tmp/{marker}", f"/tmp/{marker}"):
            lab.ssh(first, ["touch", path])
            assert lab.ssh(second, ["test", "-e", path], check=False).returncode == 1
            assert not Path(path).exists()
        lab.ssh(first, ["sh", "-c", f"echo '# {marker}' >> /etc/fstab"])
        assert marker not in lab.ssh(second, ["cat", "/etc/fstab"]).stdout
        assert marker not in Path("/etc/fstab").read_text()
    finally:
        lab.ssh(first, ["rm", "-f", f"/root/{marker}", f"/var/tmp/{marker}", f"/tmp/{marker}"], check=False)
        lab.ssh(first, ["sed", "-i", f"/{marker}/d", "/etc/fstab"], check=False)
