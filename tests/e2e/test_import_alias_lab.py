"""Import reached through an IP address or another SSH alias of a node: the topology holds the
pool's nodes under their gluster names, nothing more, and the node asked keeps the way it was reached."""

from __future__ import annotations

import json

import pytest

from brickyard.cli import main
from brickyard.core import topofile

VOLUME = "byfixalias"


@pytest.fixture(scope="module")
def volume(lab):
    nodes = lab.servers[:4]
    lab.form_pool(nodes)  # a fresh lab has no pool yet; gluster stages create on every brick host
    for node in nodes:
        lab.ssh(node, ["mkdir", "-p", "--", f"/srv/brick1/{VOLUME}"])
    lab.ssh(nodes[0], ["gluster", "--mode=script", "volume", "create", VOLUME,
                       *(f"{n}:/srv/brick1/{VOLUME}" for n in nodes)])
    try:
        yield nodes
    finally:
        lab.ssh(nodes[0], ["gluster", "--mode=script", "volume", "delete", VOLUME], check=False)
        for node in nodes:
            lab.ssh(node, ["rm", "-rf", "--", f"/srv/brick1/{VOLUME}"], check=False)


@pytest.mark.parametrize("reach", ["ip", "admin alias"])
def test_import_through_an_ip_or_alias_gives_exactly_the_pool(lab, volume, reach, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("BRICKYARD_KNOWN_HOSTS", str(tmp_path / "brickyard_known_hosts"))
    first = volume[0]
    host = lab.state.machine(first).address if reach == "ip" else f"{first}-admin"
    out = tmp_path / "imported.brickyard.json"
    code = main(["import", host, "--volume", VOLUME, "--out", str(out), "--ssh-config", str(lab.ssh_config), "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0, doc
    assert sorted(doc["nodes"]) == sorted(volume)
    assert not any("holds no brick" in note for note in doc["notes"]), doc["notes"]
    topo = topofile.load(out)
    assert topo.node(first).address == host
    assert all(not topo.node(n).address for n in volume[1:])
