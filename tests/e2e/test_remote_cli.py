"""The headless commands against the lab: preflight, provision, import, teardown, each --json."""

from __future__ import annotations

import json
from dataclasses import replace

from brickyard.cli import main
from brickyard.core import topofile
from brickyard.core.topology import BrickRef, Layout, VolumeType

from .test_provision_lab import lab_volume_topology


def _run(capsys, argv: list[str]) -> tuple[int, dict]:
    code = main(argv)
    out = capsys.readouterr().out
    return code, json.loads(out)


def test_preflight_provision_import_teardown_from_the_command_line(lab, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("BRICKYARD_KNOWN_HOSTS", str(tmp_path / "brickyard_known_hosts"))
    monkeypatch.setenv("BRICKYARD_QUIET", "1")
    name = "bycli"
    topo = lab_volume_topology(lab, name, Layout(VolumeType.DISTRIBUTE), [(1, 2), (2, 2)])
    path = tmp_path / "cli.brickyard.json"
    topofile.save(topo, path)
    ssh = ["--ssh-config", str(lab.ssh_config), "--json"]

    code, pre = _run(capsys, ["preflight", str(path), "--volume", name, *ssh])
    assert code == 0, [(h["host"], c) for h in pre["hosts"] for c in h["checks"] if c["status"] == "fail"]
    by_host = {h["host"]: {c["check"]: c for c in h["checks"]} for h in pre["hosts"]}
    assert set(by_host) == {"node1", "node2", lab.clients[0]}
    for node in ("node1", "node2"):
        checks = by_host[node]
        for item in ("reachable", "authenticated", "root or sudo", "gluster", "glusterd", "clock"):
            assert checks[item]["status"] == "ok", checks[item]
        # the lab's topology plans each brick at its filesystem's size (what df shows): that fits
        brick = checks[f"brick /srv/brick2/{name}"]
        assert brick["status"] == "ok" and "can be created" in brick["message"], brick
        assert "glusterfs 10" in checks["gluster"]["message"]
    assert by_host[lab.clients[0]]["FUSE client"]["status"] == "ok"

    # the client's key is not known: provisioning stops before it changes anything and says
    # which key to accept (it used to create and start the volume and fail only at the mount)
    client = lab.clients[0]
    partial = tmp_path / "known_hosts_servers_only"
    partial.write_text("".join(line + "\n" for line in (lab.directory / "known_hosts").read_text().splitlines()
                               if not line.startswith(f"{client},")))
    config = tmp_path / "ssh_config"
    config.write_text(lab.ssh_config.read_text().replace(f'"{lab.directory / "known_hosts"}"', f'"{partial}"'))
    blind = ["--ssh-config", str(config), "--json"]
    code, refused = _run(capsys, ["provision", str(path), "--volume", name, "--yes", *blind])
    assert code == 1 and refused["host_key"]["kind"] == "unknown", refused
    assert refused["host"] in (client, topo.client(client).ssh_host)
    gone = lab.ssh("node1", ["gluster", "--mode=script", "volume", "info", name], check=False)
    assert gone.returncode != 0 and "does not exist" in gone.stdout + gone.stderr
    accept = ["--accept-host-key", refused["host_key"]["fingerprint"]]
    lab.ssh(client, ["rmdir", "--", f"/mnt/{name}"], check=False)  # made by a run before mount points were marked
    code, prov = _run(capsys, ["provision", str(path), "--volume", name, "--yes", *accept, *blind])
    try:
        assert code == 0 and prov["ok"], prov
        assert [s["key"] for s in prov["steps"] if s["status"] == "done"][-3:] == [
            "volume-create", "volume-start", f"mount:{lab.clients[0]}:/mnt/{name}"]
        # the volume's own bricks now pass as provisioned; planned for another volume they fail
        code, pre2 = _run(capsys, ["preflight", str(path), "--volume", name, *ssh])
        brick = {c["check"]: c for c in pre2["hosts"][0]["checks"]}[f"brick /srv/brick2/{name}"]
        assert code == 0 and brick["status"] == "ok", brick
        assert f"already a brick of volume {name} (provisioning skips it)" in brick["message"]
        other = topofile.load(path)
        other.require_volume(name).name = "bycliother"
        other_path = tmp_path / "other.brickyard.json"
        topofile.save(other, other_path)
        code, pre3 = _run(capsys, ["preflight", str(other_path), "--volume", "bycliother", *ssh])
        brick = {c["check"]: c for c in pre3["hosts"][0]["checks"]}[f"brick /srv/brick2/{name}"]
        assert code == 1 and brick["status"] == "fail" and f"is already a brick of volume {name}" in brick["message"]

        out = tmp_path / "imported.brickyard.json"
        code, imp = _run(capsys, ["import", "node1", "--volume", name, "--out", str(out), *ssh])
        assert code == 0 and imp["volumes"] == [
            {"name": name, "type": "distribute", "bricks": [f"node1:/srv/brick2/{name}", f"node2:/srv/brick2/{name}"]}]
        assert topofile.load(out).require_volume(name).bricks == topo.require_volume(name).bricks
    finally:
        code, down = _run(capsys, ["teardown", str(path), "--volume", name, "--confirm", name, *ssh])
    assert code == 0 and down["ok"], down
    assert [s["message"] for s in down["steps"] if s["key"].startswith("rmbrick:")] == ["removed", "removed"]
    # the mount point provisioning made is gone too, with its marker
    assert [s["message"] for s in down["steps"] if s["key"].startswith("rmdir-mount:")] == ["removed"]
    assert lab.ssh(client, ["sh", "-c", 'test -e "$1" || test -e "$2"', "sh", f"/mnt/{name}",
                            f"/mnt/.{name}.brickyard-created"], check=False).returncode == 1


def test_teardown_leaves_a_same_name_volume_it_did_not_plan_alone(lab, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("BRICKYARD_KNOWN_HOSTS", str(tmp_path / "brickyard_known_hosts"))
    monkeypatch.setenv("BRICKYARD_QUIET", "1")
    name, real = "byfxforeign", "/srv/brick1/byfx-foreign/b"
    lab.ssh("node3", ["sh", "-c", 'mkdir -p -- "$1" && gluster --mode=script volume create "$2" "node3:$1" && '
                                  'gluster --mode=script volume start "$2"', "sh", real, name])
    try:
        topo = lab_volume_topology(lab, name, Layout(VolumeType.DISTRIBUTE), [(3, 1)])
        node3 = topo.node("node3")
        node3.bricks[0] = replace(node3.bricks[0], path="/srv/brick1/byfx-other/brick")
        topo.require_volume(name).bricks = [BrickRef("node3", "/srv/brick1/byfx-other/brick")]
        path = tmp_path / "foreign.brickyard.json"
        topofile.save(topo, path)
        code, down = _run(capsys, ["teardown", str(path), "--volume", name, "--confirm", name,
                                   "--ssh-config", str(lab.ssh_config), "--json"])
        assert code == 1 and down["failed_step"] == "volume-check", down
        assert f"node3:{real}" in down["error"] and "node3:/srv/brick1/byfx-other/brick" in down["error"]
        assert [s["status"] for s in down["steps"]][1:] == ["pending"] * (len(down["steps"]) - 1)
        info = lab.ssh("node3", ["gluster", "volume", "info", name]).stdout
        assert "Status: Started" in info and f"node3:{real}" in info
    finally:
        lab.ssh("node3", ["sh", "-c", 'gluster --mode=script volume stop "$1" force; '
                                      'gluster --mode=script volume delete "$1"; rm -rf -- /srv/brick1/byfx-foreign',
                          "sh", name], check=False)
