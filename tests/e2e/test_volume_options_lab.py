"""The option editor's verdicts equal real gluster's: each (option, value) goes through
``gluster volume set`` on a replica 2 volume of the lab and through ``check_option``; both
must accept, or both refuse (with gluster's own words where the translator key matches).
Mount options go through ``mount -t glusterfs`` on the lab client and ``mount_options_problem``.
"""

from __future__ import annotations

import pytest

from brickyard.core.gluster_options import check_option
from brickyard.core.mounts import mount_options_problem
from brickyard.core.topology import Layout, VolumeType
from .labvolume import drop_test_volume

VOLUME = "byopts"
LAYOUT = Layout(VolumeType.REPLICATE, replica=2)

CASES = [
    ("performance.cache-size", "64MB"), ("performance.cache-size", "64XB"), ("performance.cache-size", "1.5GB"),
    ("cluster.quorum-type", "fixed"), ("cluster.quorum-type", "sometimes"), ("cluster.quorum-type", "AUTO"),
    ("cluster.quorum-count", "2"), ("cluster.quorum-count", "3"), ("cluster.quorum-count", "two"),
    ("network.ping-timeout", "10"), ("network.ping-timeout", "2000"), ("network.ping-timeout", "10m"),
    ("network.ping-timeout", "1h"), ("network.frame-timeout", "-5"),
    ("performance.io-thread-count", "0x10"), ("performance.io-thread-count", "8.0"),
    ("performance.io-thread-count", "65"), ("performance.io-thread-count", "010"),
    ("cluster.min-free-disk", "120%"), ("cluster.min-free-disk", "5GB"), ("cluster.min-free-disk", "2.5"),
    ("cluster.min-free-inodes", "7%"), ("cluster.min-free-inodes", "abc"),
    ("cluster.background-self-heal-count", "-1"), ("cluster.background-self-heal-count", "300"),
    ("performance.write-behind", "off"), ("performance.write-behind", "Disable"),
    ("performance.write-behind", "maybe"), ("performance.write-behind-window-size", "4MB"),
    ("features.shard", "on"), ("features.shard-block-size", "1MB"), ("features.shard-block-size", "128MB"),
    ("diagnostics.brick-log-level", "WARNING"), ("diagnostics.brick-log-level", "loud"),
    ("server.statedump-path", "relative/dir"), ("client.event-threads", "0"), ("client.event-threads", "4"),
    ("storage.owner-uid", "-2"), ("storage.owner-uid", "1000"),
    ("cluster.data-self-heal", "off"), ("disperse.eager-lock", "off"), ("cluster.disperse-self-heal-daemon", "off"),
    ("cluster.brick-multiplex", "on"), ("performance.nonexistent", "on"), ("cache-size", "64MB"),
    ("transport.address-family", "inet6"), ("transport.address-family", "ipx"),
    ("performance.md-cache-timeout", "600"), ("performance.md-cache-timeout", "601"),
    # the CLI drops whitespace from a value (not from a user.* one) and takes --words for itself
    ("performance.write-behind", " o f f "), ("performance.cache-size", "64 MB"), ("performance.write-behind", "\t"),
    ("auth.allow", "--"),
    # gluster's generic namespace: user.* takes any name and any non-empty value, unchecked
    ("user.foo", "bar"), ("user.sp", "a b  c"), ("user.ws", " "), ("user.", "x"), ("user.x y", "-v"),
    ("user.k", "v" * 4084), ("USER.up", "x"), ("user", "x"), ("user.empty", ""), ("user.d1", "--x"),
    ("user.a=b", "v"), ("user.nl", "line1\nline2"),
]
# one SSH session for every case: per case "rc<TAB>what gluster said" on one line; an option
# that went in is reset again so the next case starts from the defaults (features.shard stays
# on: glusterd checks a value only against translators in the graph)
SET_ALL = r'''
v="$1"; shift
gluster --mode=script volume set "$v" features.shard on >/dev/null
while [ $# -gt 1 ]; do
  out=$(gluster --mode=script volume set "$v" "$1" "$2" 2>&1); rc=$?
  printf '%s\t%s\n' "$rc" "$(printf '%s' "$out" | tr '\n' ' ')"
  [ $rc -eq 0 ] && [ "$1" != features.shard ] && gluster --mode=script volume reset "$v" "$1" force >/dev/null 2>&1
  case "$1" in user.*) if [ $rc -eq 0 ]; then   # gluster resets user.* options only all at once
    gluster --mode=script volume reset "$v" force >/dev/null; gluster --mode=script volume set "$v" features.shard on >/dev/null
  fi;; esac
  shift 2
done
'''
# Where Brickyard is stricter than `volume set`, and why (each seen on the lab): glusterd does
# not check socket transport options at set time, but `volume start` then fails ("Commit failed
# on localhost") with transport.address-family ipx; a user.* name with '=' is read back after a
# glusterd restart as another option ("user.a=b" = "v" became "user.a" = "b=v"), and a new line
# in a value leaves a line without '=' in the volume's store, so the next glusterd start cannot
# restore the volume and glusterd exits (test_what_gluster_accepts_but_cannot_keep_is_in_its_store).
STRICTER = {("transport.address-family", "ipx"), ("user.a=b", "v"), ("user.nl", "line1\nline2")}
# Also stricter, tried by hand on the lab and kept out of this run: a user.* name and value of
# more than 4090 bytes overrun glusterd's store buffer (5,000 characters crashed glusterd).
MOUNT_OPTIONS = ["noatime,log-level=WARNING", "bogus", "noatime=1", "x-systemd.automount,ro,defaults"]


@pytest.fixture(scope="module")
def volume(lab):
    lab.form_pool(["node1", "node2"])
    bricks = [f"{node}:/srv/brick1/{VOLUME}" for node in ("node1", "node2")]
    for node in ("node1", "node2"):
        lab.ssh(node, ["mkdir", "-p", f"/srv/brick1/{VOLUME}"])
    lab.ssh("node1", ["gluster", "--mode=script", "volume", "create", VOLUME, "replica", "2", *bricks])
    lab.ssh("node1", ["gluster", "--mode=script", "volume", "start", VOLUME])
    try:
        yield VOLUME
    finally:
        drop_test_volume(lab, VOLUME, [f"{node}:/srv/brick1/{VOLUME}" for node in ("node1", "node2")],
                         {lab.clients[0]: "/mnt/byopts"})


def test_option_values_are_accepted_and_refused_as_gluster_10_3_does(lab, volume):
    words = [w for case in CASES for w in case]
    answers = lab.ssh("node1", ["sh", "-c", SET_ALL, "sh", volume, *words], timeout=600).stdout.splitlines()
    assert len(answers) == len(CASES)
    differ = []
    for (name, value), answer in zip(CASES, answers):
        rc, _, said = answer.partition("\t")
        said = said.strip().removeprefix("volume set: failed: ")
        ours = check_option(name, value, LAYOUT, replica_count=2, volume_name=volume)
        if (name, value) in STRICTER:
            assert rc == "0" and not ours.ok, (name, value, said)
        elif ours.ok != (rc == "0"):
            differ.append((name, value, "gluster: " + (said if rc != "0" else "accepted"),
                           "brickyard: " + (ours.problem or "accepted")))
        elif not ours.ok and ours.spec is not None and f"option {ours.spec.key} " in said:
            # same translator key in the message: the words must be gluster's own
            if ours.problem not in said:
                differ.append((name, value, said, ours.problem))
    assert differ == []


def test_what_gluster_accepts_but_cannot_keep_is_in_its_store(lab, volume):
    """The evidence for two STRICTER cases, without restarting glusterd: what `volume set`
    wrote into /var/lib/glusterd/vols/VOL/info, which glusterd reads back line by line,
    splitting each at its first '='."""
    try:
        for name, value in (("user.a=b", "v"), ("user.nl", "line1\nline2")):
            lab.ssh("node1", ["gluster", "--mode=script", "volume", "set", volume, name, value])
        info = lab.ssh("node1", ["cat", f"/var/lib/glusterd/vols/{volume}/info"]).stdout.splitlines()
        assert "user.a=b=v" in info                  # read back as user.a = b=v
        assert "user.nl=line1" in info and "line2" in info   # a line with no '=': the restore fails
        for name, value in (("user.a=b", "v"), ("user.nl", "line1\nline2")):
            assert not check_option(name, value, LAYOUT, replica_count=2, volume_name=volume).ok
    finally:   # leave no store glusterd could not start from
        lab.ssh("node1", ["gluster", "--mode=script", "volume", "reset", volume, "force"])
        lab.ssh("node1", ["gluster", "--mode=script", "volume", "set", volume, "features.shard", "on"])
    info = lab.ssh("node1", ["cat", f"/var/lib/glusterd/vols/{volume}/info"]).stdout.splitlines()
    assert all("=" in line for line in info if line)


def test_mount_options_are_accepted_and_refused_as_mount_glusterfs_does(lab, volume):
    client = lab.clients[0]
    differ = []
    for options in MOUNT_OPTIONS:
        run = lab.ssh(client, ["sh", "-c", 'mkdir -p /mnt/byopts && mount -t glusterfs -o "$1" node1:/byopts '
                               '/mnt/byopts; rc=$?; umount /mnt/byopts 2>/dev/null; exit $rc', "sh", options],
                      check=False, timeout=90)
        ours = mount_options_problem(options)
        if (ours is None) != (run.returncode == 0):
            differ.append((options, run.returncode, (run.stdout + run.stderr).strip(), ours))
    assert differ == []
