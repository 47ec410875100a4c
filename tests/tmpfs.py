"""Small tmpfs mounts for the tests of full and read-only disks (root only: CI runs as root)."""

from __future__ import annotations

import contextlib
import os
import subprocess
from pathlib import Path
from typing import Iterator

import pytest

CI = os.environ.get("CI", "").lower() == "true"


def needs_root(what: str = "mounting a small tmpfs") -> None:
    """Skip the test when not root, but fail it under CI (which runs as root), so it never
    passes there by skipping."""
    if os.geteuid() != 0:
        if CI:
            pytest.fail(f"{what} needs root, and CI runs as root")
        pytest.skip(f"{what} needs root")


@contextlib.contextmanager
def tmpfs(where: Path, options: str) -> Iterator[Path]:
    """A tmpfs mounted at ``where`` (made if missing) with mount ``options`` ("size=2m,…"),
    unmounted on the way out."""
    where.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)], check=True)
    try:
        yield where
    finally:
        subprocess.run(["umount", "--lazy", str(where)], check=False)


def fill(path: Path) -> None:
    """Write zeros to ``path`` until its filesystem is full (unbuffered: the last short write is
    the disk full)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError:
        pass
    finally:
        os.close(fd)
