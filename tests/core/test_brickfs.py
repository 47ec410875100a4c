"""Which filesystems of a server could hold bricks (core.brickfs), from a real lab node's
findmnt: the two XFS brick filesystems, never the root, the lab's bind mounts or proc/tmpfs."""

from __future__ import annotations

from pathlib import Path

import pytest

from brickyard.core import brickfs

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "findmnt"


def test_a_lab_node_offers_its_two_xfs_brick_filesystems_and_nothing_else():
    every = brickfs.parse_findmnt((FIXTURES / "lab-node1.json").read_bytes())
    assert {"/", "/proc", "/srv/scratch", "/etc/hosts"} <= {fs.mount for fs in every}
    found = brickfs.brick_filesystems(every)
    assert [(fs.mount, fs.fs_type, fs.brick_path) for fs in found] == [
        ("/srv/brick1", "xfs", "/srv/brick1/brick"), ("/srv/brick2", "xfs", "/srv/brick2/brick")]
    assert all(fs.device.startswith("/dev/loop") for fs in found)
    sizes = brickfs.parse_statfs((FIXTURES / "lab-node1-statfs.txt").read_text())
    assert sizes["/srv/brick1"][0] == 245760 * 4096 and 0 < sizes["/srv/brick1"][1] <= sizes["/srv/brick1"][0]


@pytest.mark.parametrize("mount, device, fstype, kept", [
    ("/data/disk1", "/dev/sdb1", "xfs", True),
    ("/bricks/b1", "/dev/mapper/vg-b1", "ext4", True),
    ("/srv", "/dev/sdc", "xfs", True),                      # a data disk mounted at /srv itself
    ("/tank/gluster", "tank/gluster", "zfs", True),          # a ZFS dataset has no /dev source
    ("/", "/dev/sda1", "ext4", False),
    ("/boot/efi", "/dev/sda15", "ext4", False),
    ("/var/lib/docker", "/dev/sdd", "xfs", False),
    ("/home", "/dev/sde", "xfs", False),
    ("/data/nfs", "server:/export", "nfs4", False),
    ("/data/bind", "/dev/sdb1[/sub]", "xfs", False),         # a bind mount of part of a disk
    ("/mnt/fuse", "gv0", "fuse.glusterfs", False),
])
def test_only_a_data_filesystem_on_a_device_of_its_own_is_a_brick_filesystem(mount, device, fstype, kept):
    fs = brickfs.Filesystem(mount, device, fstype, 10**12)
    assert (brickfs.brick_filesystems([fs]) == [fs]) is kept


def test_one_device_mounted_twice_is_offered_once_and_bad_output_is_refused():
    a, b = brickfs.Filesystem("/data/a", "/dev/sdb", "xfs"), brickfs.Filesystem("/data/b", "/dev/sdb", "xfs")
    assert brickfs.brick_filesystems([a, b]) == [a]
    with pytest.raises(brickfs.FindmntError):
        brickfs.parse_findmnt("findmnt: unknown column")
    with pytest.raises(brickfs.FindmntError):
        brickfs.parse_findmnt('{"mounts": []}')
    assert brickfs.parse_statfs("garbage\n12 3 4096 /x\n") == {"/x": (12 * 4096, 3 * 4096)}
