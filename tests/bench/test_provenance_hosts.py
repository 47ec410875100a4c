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
