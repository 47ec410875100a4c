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


# ---- which figure bounds a host: typed, else detected on the host, else the topology's NIC ----

def test_the_hosts_own_link_wins_over_the_topology_nic_which_stands_in_when_the_host_reports_none(monkeypatch):
    import asyncio
    from types import SimpleNamespace

    from brickyard.bench import engine
    from brickyard.bench.physics import LinkInfo, link_lines

    reported = {"c1": LinkInfo(10 * GBIT, "sysfs speed of eno1 (physical) on c1"),
                "c2": LinkInfo(None, "c2 reaches the servers through ens3 (physical): sysfs reports no speed for it"),
                "c3": LinkInfo(None, "c3 reaches the servers through ens3 (physical): sysfs reports no speed for it")}

    async def detect(executor, servers, python="python3"):
        return reported[executor.host]

    monkeypatch.setattr(engine, "detect_link", detect)
    sessions = [SimpleNamespace(host=h, kind="gluster", spec=f"{h}:/mnt/gv0", executor=SimpleNamespace(host=h),
                                mount={"source": "n1:/gv0"}) for h in ("c1", "c2", "c3")]
    sessions.append(SimpleNamespace(host="c4", kind="local", spec="c4:/var/tmp", executor=None, mount={}))
    nics = {"c1": GBIT, "c2": 25 * GBIT, "c4": GBIT}           # c3 has none in the topology
    links = asyncio.run(engine._links(sessions, {"bricks": ["n1:/b"]}, "python3", nics))
    assert (links["c1"].bps, links["c1"].origin) == (10 * GBIT, "detected")      # not the topology's 1 Gbit
    assert (links["c2"].bps, links["c2"].origin) == (25 * GBIT, "topology")
    assert links["c3"].bps is None and not links["c4"].network
    lines = link_lines({"links": {h: i.as_dict() for h, i in links.items()}}, "the Link field")
    assert lines == [
        "physics bound on c1: 10 Gbit/s detected on the host (sysfs speed of eno1 (physical) on c1)",
        "physics bound on c2: 25 Gbit/s from the topology's NIC figure (the host reports none: c2 reaches the "
        "servers through ens3 (physical): sysfs reports no speed for it)",
        "physics bound on c3: unknown, no check (c3 reaches the servers through ens3 (physical): sysfs reports no "
        "speed for it); type a link speed in the Link field to check against one",
        "physics bound on c4: none, not applicable (c4:/var/tmp is a local file system: no network link in the way)"]
    # a stored run from before the origin was recorded reads as detected
    assert link_lines({"links": {"c1": {"bps": GBIT, "source": "x"}}}, "--link") == [
        "physics bound on c1: 1 Gbit/s detected on the host (x)"]


def test_a_declared_nic_wins_over_a_virtual_devices_nominal_speed_but_not_over_a_physical_one():
    from brickyard.bench.physics import LinkInfo, choose_link

    veth = LinkInfo(10 * GBIT, "sysfs speed of eth0 on c1: a veth device, so its driver's nominal speed, not a "
                               "physical limit", nominal=True)
    chosen = choose_link(veth, GBIT)
    assert (chosen.bps, chosen.origin) == (GBIT, "topology") and "only a nominal 10 Gbit/s" in chosen.source
    assert choose_link(veth, None) is veth                       # nothing declared: the nominal figure, labelled
    nic = LinkInfo(10 * GBIT, "sysfs speed of eno1 (physical) on c1")
    assert choose_link(nic, GBIT) is nic


def test_a_typed_link_wins_over_what_the_hosts_report_and_says_so(tmp_path):
    import asyncio

    from brickyard.bench.engine import TargetSpec, run_benchmark
    from brickyard.bench.registry import find
    from brickyard.remote.local import LocalExecutor
    from brickyard.remote.loop import Progress

    progress = Progress()
    run = asyncio.run(run_benchmark(find("dd", tmp_path / "none"), {"block_sizes": "64K", "concurrency": "1",
                                                                     "size": "64K", "repeats": "1"},
                                    [(TargetSpec("local", str(tmp_path)), LocalExecutor("local"))],
                                    progress=progress, link_bps=25 * GBIT, link_hints={"local": GBIT}))
    assert run.provenance.extra["link_bps"] == 25 * GBIT and "links" not in run.provenance.extra
    assert ("physics bound: 25 Gbit/s for every client host, typed in --link (it overrides what the hosts "
            "report and the topology's NIC figures)") in progress.lines


def test_notes_say_an_before_a_vowel():
    """issue 21 item 12: "a unknown file system"."""
    from brickyard.bench.engine import no_network_note
    from brickyard.bench.physics import link_from_routes

    assert no_network_note("c1:/x", "unknown") == "c1:/x is an unknown file system: no network link in the way"
    assert no_network_note("local:/x", "local") == "local:/x is a local file system: no network link in the way"
    info = link_from_routes("c1", {"n1": {"dev": "eth0", "kind": "unknown", "mbps": 1000}})
    assert "an unknown device" in info.source
