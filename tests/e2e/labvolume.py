"""Test volumes on the lab: what an e2e fixture made, taken away again in one place."""

from __future__ import annotations


def drop_test_volume(lab, volume: str, bricks: list[str], mounts: dict[str, str] | None = None) -> None:
    """Unmount ``mounts`` ({machine: mount point}), stop and delete ``volume`` and remove its brick
    directories (``node:/path``, made for this test only). Each step may find nothing to do."""
    for machine, mount in (mounts or {}).items():
        lab.ssh(machine, ["umount", mount], check=False)
    lab.ssh("node1", ["gluster", "--mode=script", "volume", "stop", volume, "force"], check=False)
    lab.ssh("node1", ["gluster", "--mode=script", "volume", "delete", volume], check=False)
    for brick in bricks:
        node, path = brick.split(":", 1)
        lab.ssh(node, ["rm", "-rf", "--", path], check=False)
