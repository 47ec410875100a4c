"""The Commands panel, `brickyard plan` and `provision --dry-run` print one command list.

The case of issue 10 item 10: nodes listed node1, node4, node3, node2, the volume's first brick on
node3. The panel used to probe "node4, node1, node2" (never node3) "on any node", `plan` said "on
the first node", and provisioning probed node3 and the others from node1; pasting the panel's
commands never probed node3 and the create failed.
"""

import json

from brickyard.cli import main
from brickyard.core import topofile
from brickyard.core.gluster_cli import command_lines, volume_commands
from brickyard.core.plan import plan_volume
from brickyard.core.topology import Brick, BrickRef, Layout, Node, Topology, Volume, VolumeType

GIB = 1 << 30


def scrambled() -> Topology:
    topo = Topology(name="t")
    for name in ("node1", "node4", "node3", "node2"):
        topo.nodes.append(Node(name, bricks=[Brick("/srv/brick1/b", GIB, filesystem=f"{name}-fs1",
                                                   mount="/srv/brick1")]))
    order = ["node3", "node4", "node1", "node2"]
    topo.volumes.append(Volume("gv0", Layout(VolumeType.DISTRIBUTED_REPLICATE, replica=2),
                               [BrickRef(n, "/srv/brick1/b") for n in order]))
    return topo


def test_every_node_of_the_volume_is_probed_from_the_topologys_first_node():
    topo = scrambled()
    cmds = volume_commands(topo, topo.volumes[0])
    probes = [(c.host, c.argv) for c in cmds if c.key.startswith("peer-probe:")]
    assert probes == [("node1", ("gluster", "peer", "probe", h)) for h in ("node3", "node4", "node2")]
    assert {c.host for c in cmds} == {"node1"}
    lines = command_lines(cmds)
    assert lines[0].startswith("# run on node1") and "gluster peer probe node3" in lines


def test_plan_and_provision_dry_run_print_the_same_commands_on_the_same_host(tmp_path, capsys):
    path = tmp_path / "t.brickyard.json"
    topofile.save(scrambled(), path)
    assert main(["plan", str(path), "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    planned = [(h, argv) for h, argv in zip(plan["commands_hosts"], plan["commands"])]
    assert main(["provision", str(path), "--dry-run", "--json"]) == 0
    dry = json.loads(capsys.readouterr().out)
    gluster_steps = [(s["host"], [w for w in s["commands"][0] if w != "--mode=script"])
                     for s in dry["steps"] if s["key"].startswith(("peer-probe:", "volume-"))]
    assert gluster_steps == planned
    assert main(["plan", str(path)]) == 0
    text = capsys.readouterr().out
    block = "\n".join(f"  {line}" for line in command_lines(plan_volume(scrambled(), scrambled().volumes[0]).commands))
    assert block in text and "peer probe node3" in text


def test_plan_ends_with_each_clients_mount_as_provisioning_runs_it(tmp_path, capsys):
    # `plan` used to stop at `volume start`: an admin pasting it had a volume no client mounted
    from brickyard.core.topology import Client, Mount

    topo = scrambled()
    topo.clients.append(Client("client1"))
    topo.volumes[0].mounts.append(Mount("client1", "/mnt/gv0", "noatime"))
    path = tmp_path / "t.brickyard.json"
    topofile.save(topo, path)
    assert main(["plan", str(path), "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    mount = ["mount", "-t", "glusterfs", "-o", "noatime,backup-volfile-servers=node4:node1:node2", "node3:/gv0",
             "/mnt/gv0"]
    assert plan["mount_commands"] == [["mkdir", "-p", "/mnt/gv0"], mount]
    assert plan["mount_commands_hosts"] == ["client1", "client1"]
    assert plan["commands_text"][-3:] == ["# run on client1 (a client: mount the started volume)",
                                          "mkdir -p /mnt/gv0", " ".join(mount)]
    assert main(["provision", str(path), "--dry-run", "--json"]) == 0
    dry = json.loads(capsys.readouterr().out)
    step = next(s for s in dry["steps"] if s["key"] == "mount:client1:/mnt/gv0")
    assert step["host"] == "client1" and step["commands"][0][-3:] == [mount[-2], mount[-1], mount[4]]
    assert main(["plan", str(path)]) == 0
    assert "mount -t glusterfs -o noatime,backup-volfile-servers=node4:node1:node2 node3:/gv0 /mnt/gv0" in \
        capsys.readouterr().out


def test_the_shown_mounts_add_the_fstab_line_and_leave_out_what_provisioning_refuses():
    from brickyard.core.gluster_cli import mount_commands
    from brickyard.core.topology import Client, Mount

    topo = scrambled()
    topo.clients.append(Client("client1"))
    vol = topo.volumes[0]
    vol.mounts += [Mount("client1", "/mnt/gv0", fstab=True), Mount("ghost", "/mnt/g"),
                   Mount("client1", "/mnt/x y"), Mount("client1", "/mnt/o", "bogus-option")]
    lines = command_lines(mount_commands(topo, vol))
    assert lines == [
        "# run on client1 (a client: mount the started volume)",
        "mkdir -p /mnt/gv0",
        "mount -t glusterfs -o backup-volfile-servers=node4:node1:node2 node3:/gv0 /mnt/gv0",
        "sh -c 'echo \"$1\" >> /etc/fstab' sh 'node3:/gv0 /mnt/gv0 glusterfs "
        "defaults,_netdev,backup-volfile-servers=node4:node1:node2 0 0'"]
