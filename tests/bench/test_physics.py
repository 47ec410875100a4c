"""The physics check: a result faster than the network allows is flagged as a cache effect."""


from brickyard.bench.context import Physics
from brickyard.bench.provenance import parse_volume_info

GBIT = 125_000_000


def test_ceilings_per_layout_and_direction():
    assert Physics(GBIT, {"replica": 3}).ceiling("write") == GBIT / 3
    assert Physics(GBIT, {"replica": 3}).ceiling("read") == GBIT
    assert Physics(GBIT, {"disperse": 4, "redundancy": 1}).ceiling("write") == GBIT * 3 / 4
    assert Physics(GBIT, {}).ceiling("write") == GBIT
    assert Physics(None, {"replica": 3}).ceiling("write") is None


VDISTDISP = """<?xml version="1.0"?><cliOutput><opRet>0</opRet><volInfo><volumes><volume>
<name>vdistdisp</name><brickCount>6</brickCount><distCount>2</distCount><replicaCount>1</replicaCount>
<arbiterCount>0</arbiterCount><disperseCount>3</disperseCount><redundancyCount>1</redundancyCount>
<typeStr>Distributed-Disperse</typeStr><bricks><brick uuid="x">node1:/b1<name>node1:/b1</name></brick></bricks>
<options><option><name>nfs.disable</name><value>on</value></option></options></volume></volumes></volInfo></cliOutput>"""


def test_volume_info_gives_the_layout_the_check_needs():
    layout = parse_volume_info(VDISTDISP)
    assert (layout["disperse"], layout["redundancy"], layout["type"]) == (3, 1, "Distributed-Disperse")
    assert layout["bricks"] == ["node1:/b1"] and layout["options"] == {"nfs.disable": "on"}
    assert Physics(GBIT, layout).ceiling("write") == GBIT * 2 / 3


def test_veth_speed_is_used_but_labelled_nominal():
    from brickyard.bench.physics import link_from_routes

    info = link_from_routes("client1", {"node1": {"addr": "10.77.0.11", "dev": "eth0", "local": False,
                                                   "kind": "veth", "mbps": 10000}})
    assert info.bps == 10_000 * 1e6 / 8 and info.nominal and "nominal" in info.source
    assert info.describe().startswith("10 Gbit/s")


def test_a_physical_nic_speed_is_authoritative():
    from brickyard.bench.physics import link_from_routes

    info = link_from_routes("c", {"a": {"dev": "eno1", "kind": "physical", "mbps": 1000},
                                  "b": {"dev": "eno1", "kind": "physical", "mbps": 1000}})
    assert info.bps == GBIT and not info.nominal


def test_unknown_speeds_stay_unknown_and_say_why():
    from brickyard.bench.physics import link_from_routes

    virtio = link_from_routes("vm", {"a": {"dev": "ens3", "kind": "physical", "mbps": None}})
    assert virtio.bps is None and "no speed" in virtio.source
    local = link_from_routes("node3", {"node3": {"dev": "lo", "local": True}, "node1": {"dev": "eth0", "mbps": 1000}})
    assert local.bps is None and "holds bricks of this volume itself" in local.source
    tunnel = link_from_routes("c", {"a": {"dev": "wg0", "kind": "tun", "mbps": 10}})
    assert tunnel.bps is None and "tunnel" in tunnel.source


def test_the_link_script_runs_here_and_finds_the_loopback_for_this_host():
    import asyncio

    from brickyard.bench.physics import detect_link
    from brickyard.remote.local import LocalExecutor

    info = asyncio.run(detect_link(LocalExecutor("local"), ["127.0.0.1"]))
    assert info.bps is None and "loopback" in info.source


def test_ceilings_add_up_over_client_hosts_and_need_every_hosts_link():
    from brickyard.bench.physics import LinkInfo

    p = Physics(layout={"replica": 2}, links={"c1": LinkInfo(GBIT, "x"), "c2": LinkInfo(GBIT, "y"),
                                              "c3": LinkInfo(None, "c3: unknown")})
    assert p.ceiling_for("write", ["c1", "c2"]) == (GBIT, "")
    assert p.ceiling_for("read", ["c1", "c3"]) == (None, "c3: unknown")


def test_servers_are_the_brick_hosts_or_the_mount_source():
    from brickyard.bench.physics import servers_of

    assert servers_of({"bricks": ["node1:/b", "node2:/b", "node1:/c"]}, "node1:/gv0") == ["node1", "node2"]
    assert servers_of({}, "node4:/gv0") == ["node4"]
    assert servers_of({}, "/dev/sda1") == []
