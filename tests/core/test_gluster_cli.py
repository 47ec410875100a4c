"""The exact gluster argv lists, the one place command lines are built."""

import pytest

from brickyard.core.gluster_cli import (
    peer_probe_argv, provision_commands, render, volume_create_argv, volume_set_argv, volume_start_argv,
)
from brickyard.core.topology import VolumeType as T

from ._topo import build, volume


def test_create_spells_out_replica_arbiter_transport_and_bricks():
    topo = build({"a": 1, "b": 1, "c": 1})
    vol = volume(topo, T.REPLICATE, replica=2, arbiter=1)
    assert volume_create_argv(topo, vol) == [
        "gluster", "volume", "create", "gv0", "replica", "3", "arbiter", "1", "transport", "tcp",
        "a:/data/b1/brick", "b:/data/b1/brick", "c:/data/b1/brick"]
    assert volume_create_argv(topo, vol, force=True)[-1] == "force"


def test_create_gives_gluster_no_redundancy_to_choose():
    topo = build({f"n{i}": 1 for i in range(6)})
    vol = volume(topo, T.DISPERSE)
    argv = volume_create_argv(topo, vol)
    assert argv[4:8] == ["disperse", "6", "redundancy", "2"]


def test_distribute_has_no_layout_words_and_file_force_is_honoured():
    topo = build({"a": 1, "b": 1})
    vol = volume(topo, T.DISTRIBUTE)
    vol.force = True
    assert volume_create_argv(topo, vol) == ["gluster", "volume", "create", "gv0", "transport", "tcp",
                                             "a:/data/b1/brick", "b:/data/b1/brick", "force"]


def test_provision_probes_other_nodes_then_creates_sets_and_starts():
    topo = build({"a": 2, "b": 2})
    vol = volume(topo, T.DISTRIBUTED_REPLICATE, replica=2)
    vol.options["performance.write-behind"] = "off"
    cmds = provision_commands(topo, vol)
    assert cmds[0] == ["gluster", "peer", "probe", "b"]
    assert cmds[1][:4] == ["gluster", "volume", "create", "gv0"]
    assert cmds[2] == ["gluster", "volume", "set", "gv0", "performance.write-behind", "off"]
    assert cmds[3] == ["gluster", "volume", "start", "gv0"]
    assert provision_commands(topo, vol, mode_script=True)[3] == ["gluster", "--mode=script", "volume", "start", "gv0"]


def test_rendering_quotes_and_builders_refuse_option_lookalikes():
    assert render(volume_set_argv("gv0", "auth.allow", "10.0.0.* 10.1.0.1")) == \
        "gluster volume set gv0 auth.allow '10.0.0.* 10.1.0.1'"
    assert peer_probe_argv("n2") == ["gluster", "peer", "probe", "n2"]
    for bad in (lambda: peer_probe_argv("-x"), lambda: volume_start_argv("--help"),
                lambda: volume_set_argv("gv0", "-k", "v")):
        with pytest.raises(ValueError):
            bad()
