"""Host facts a run records, read the way a non-root login sees its host."""

import asyncio
import os
import shutil

import pytest

from brickyard.bench.provenance import host_facts
from brickyard.remote.local import LocalExecutor


def test_gluster_version_is_found_without_sbin_on_the_path():
    """A non-root SSH login's PATH leaves out /usr/sbin, where glusterfs lives."""
    if shutil.which("glusterfs", path="/usr/sbin:/sbin") is None:
        pytest.skip("needs glusterfs installed in /usr/sbin (glusterfs-client)")
    env = {**os.environ, "PATH": "/usr/local/bin:/usr/bin:/bin"}
    facts = asyncio.run(host_facts(LocalExecutor("plain", env=env)))
    assert facts["gluster"].startswith("glusterfs "), facts
    assert facts["kernel"] == os.uname().release


def test_findmnt_escapes_are_decoded_so_odd_mount_points_read_back_as_they_are():
    """findmnt -P writes $, a backquote, ", \\ and non-ASCII bytes as \\xHH (recorded from
    util-linux 2.38 on a tmpfs mounted at the path below)."""
    from brickyard.bench.provenance import parse_findmnt_pairs

    line = r'FSTYPE="tmpfs" SOURCE="tmpfs" OPTIONS="rw,relatime,size=1024k" TARGET="/var/tmp/a\x24b\x60c d\x22e\x5cf"'
    assert parse_findmnt_pairs(line) == {"fstype": "tmpfs", "source": "tmpfs", "options": "rw,relatime,size=1024k",
                                         "target": '/var/tmp/a$b`c d"e\\f'}
    assert parse_findmnt_pairs(r'TARGET="/mnt/\xc3\xbc \xc3\xa9"') == {"target": "/mnt/ü é"}


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("findmnt"), reason="mounts a tmpfs: needs root")
def test_mount_of_reads_a_real_mount_point_holding_shell_characters(tmp_path):
    from brickyard.bench.provenance import mount_of

    from ..tmpfs import tmpfs

    point = tmp_path / 'm$(x)`y` "q"\\z'
    with tmpfs(point, "size=1m"):
        info = asyncio.run(mount_of(LocalExecutor("local"), str(point)))
    assert info["target"] == str(point) and info["fstype"] == "tmpfs"
