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
