"""Parsing real gluster 10.3 --xml output (tests/fixtures/gluster) into the topology."""

import pytest

from brickyard.core.gluster_xml import (
    GlusterCommandError, GlusterXMLError, parse_peer_status, parse_volume_info, parse_volume_status,
    topology_from_xml,
)
from brickyard.core.plan import plan_volume
from brickyard.core.topology import BrickRef, VolumeType as T
from tests.conftest import FIXTURES

G = FIXTURES / "gluster"


def read(name):
    return (G / name).read_bytes()


@pytest.mark.parametrize("name,kind,sets,words", [
    ("lab-volume-info-vdist.xml", T.DISTRIBUTE, 4, []),
    ("lab-volume-info-vrep.xml", T.REPLICATE, 1, ["replica", "3"]),
    ("lab-volume-info-varb.xml", T.REPLICATE, 1, ["replica", "3", "arbiter", "1"]),
    ("lab-volume-info-vdisp.xml", T.DISPERSE, 1, ["disperse", "4", "redundancy", "1"]),
    ("lab-volume-info-vdistrep.xml", T.DISTRIBUTED_REPLICATE, 2, ["replica", "2"]),
    ("lab-volume-info-vdistdisp.xml", T.DISTRIBUTED_DISPERSE, 2, ["disperse", "3", "redundancy", "1"]),
    ("volume-info-vdistdisp.xml", T.DISTRIBUTED_DISPERSE, 2, ["disperse", "3", "redundancy", "1"]),
    ("volume-info-vdistrep.xml", T.DISTRIBUTED_REPLICATE, 2, ["replica", "2"]),
])
def test_every_layout_reads_back_as_gluster_made_it(name, kind, sets, words):
    topo = topology_from_xml(read(name))
    (vol,) = topo.volumes
    assert vol.layout.type is kind
    r = plan_volume(topo, vol)
    assert r.gluster_type is kind and len(r.sets) == sets
    assert r.commands[-2 - len(vol.options)].argv[4:4 + len(words)] == tuple(words)
    assert not r.errors


def test_arbiter_flag_and_brick_order():
    (info,) = parse_volume_info(read("lab-volume-info-varb.xml"))
    assert [b.is_arbiter for b in info.bricks] == [False, False, True]
    assert info.bricks[0].ref == BrickRef("node2", "/srv/brick2/varb")
    assert info.replica_count == 3 and info.arbiter_count == 1
    assert info.options["nfs.disable"] == "on"
    # what glusterd sets by itself at create time is not part of the plan; a changed value is
    assert info.to_volume().options == {}
    changed = parse_volume_info(read("lab-volume-info-varb.xml").replace(
        b"<name>nfs.disable</name>\n            <value>on</value>", b"<name>nfs.disable</name><value>off</value>"))[0]
    assert changed.options["nfs.disable"] == "off" and changed.to_volume().options == {"nfs.disable": "off"}
    topo = topology_from_xml(read("lab-volume-info-varb.xml"), read("lab-volume-status-varb-detail.xml"))
    r = plan_volume(topo, topo.volumes[0])
    assert r.sets[0].arbiter == BrickRef("node4", "/srv/brick2/varb")
    assert r.capacity.usable_bytes == 1006632960


def test_status_detail_gives_sizes_devices_and_skips_daemons():
    status = parse_volume_status(read("lab-volume-status-all-detail.xml"))
    assert set(status) == {"vdist", "vrep", "varb", "vdisp", "vdistrep", "vdistdisp"}
    bricks = status["vdistdisp"]
    assert len(bricks) == 6 and all(b.online and b.size_total and b.device.startswith("/dev/") for b in bricks)
    assert len(parse_volume_status(read("lab-volume-status-vrep.xml"))["vrep"]) == 3


def test_a_node_whose_glusterd_died_is_simply_absent():
    # the real capture has plain `peer status` text ahead of the XML on stdout
    status = parse_volume_status(read("volume-status-vdisp-node4-glusterd-killed.xml"))["vdisp"]
    assert [b.ref.node for b in status] == ["node1", "node2", "node3"]


def test_bricks_sharing_a_device_are_seen_as_sharing_a_filesystem():
    topo = topology_from_xml(read("lab-volume-info-vdistdisp.xml"), read("lab-volume-status-vdistdisp-detail.xml"),
                             read("lab-peer-status.xml"))
    assert [n.name for n in topo.nodes] == ["node1", "node2", "node3", "node4"]
    node1 = topo.node("node1")
    assert len(node1.bricks) == 2 and node1.bricks[0].filesystem != node1.bricks[1].filesystem
    assert all(b.size_bytes > 0 for n in topo.nodes for b in n.bricks)


def test_peers():
    peers = parse_peer_status(read("lab-peer-status.xml"))
    assert [p.hostname for p in peers] == ["node2", "node3", "node4"]
    assert all(p.connected and p.state == "Peer in Cluster" for p in peers)


@pytest.mark.parametrize("name,words", [
    ("lab-error-volume-info-missing.xml", "Volume does not exist"),
    ("lab-error-create-same-server.xml", "Multiple bricks of a replicate volume"),
])
def test_refusals_raise_with_glusters_reason(name, words):
    with pytest.raises(GlusterCommandError) as err:
        parse_volume_info(read(name))
    assert err.value.op_ret == -1 and words in err.value.op_errstr


@pytest.mark.parametrize("text,words", [
    (b"", "not XML"),
    (b"<html/>", "root element is <html>"),
    (b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><cliOutput>&a;</cliOutput>', "unsafe XML"),
    (b"<cliOutput><opRet>zero</opRet></cliOutput>", "not a number"),
])
def test_bad_xml_is_refused_clearly(text, words):
    with pytest.raises(GlusterXMLError, match=words):
        parse_volume_info(text)


def test_unsupported_type_is_refused():
    xml = read("lab-volume-info-vdist.xml").replace(b"<type>0</type>", b"<type>1</type>")
    with pytest.raises(GlusterXMLError, match="volume type 1"):
        parse_volume_info(xml)
