"""End-to-end tests against a real gluster cluster: Brickyard's lab (``brickyard lab up``).

- ``lab`` (session): a 4-node + 1-client lab. An already running lab in the lab directory is
  reused (``BRICKYARD_LAB_DIR``, default ``/var/lib/brickyard-lab``); otherwise one is started and
  taken down again after the last test session using it ends. A second lab beside a running one
  needs its own ``BRICKYARD_LAB_PREFIX`` (names) and ``BRICKYARD_LAB_SUBNET`` (a private /24).
- Every test here needs root, network namespaces and the lab's tools. Without them the tests
  skip, except under ``CI=true``, where a missing requirement fails the test with the reason:
  CI must never pass by skipping the real-cluster tests.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from brickyard.lab import config as cfg

E2E_DIR = Path(__file__).resolve().parent
LAB_NODES = 4
LAB_CLIENTS = 1


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def lab_unavailable_reason() -> str | None:
    """Why the lab cannot run on this machine, or None when it can."""
    if not sys.platform.startswith("linux"):
        return "the gluster lab needs Linux network namespaces"
    if os.geteuid() != 0:
        return "the gluster lab needs root (network namespaces, loop devices, mounts)"
    from brickyard.lab.system import missing_tools

    missing = missing_tools()
    if missing:
        return (f"the gluster lab needs {', '.join(sorted(missing))} "
                f"(apt-get install {' '.join(sorted(set(missing.values())))})")
    probe = subprocess.run(["unshare", "--net", "--pid", "--fork", "--mount", "true"],
                           capture_output=True, text=True, timeout=30)
    if probe.returncode != 0:
        return f"this machine cannot create network/PID namespaces: {probe.stderr.strip()}"
    return None


_REASON: list[str | None] = []


def require_lab() -> None:
    """Skip the calling test when the lab cannot run here; under CI=true, fail instead."""
    if not _REASON:
        _REASON.append(lab_unavailable_reason())
    reason = _REASON[0]
    if reason is None:
        return
    if in_ci():
        pytest.fail(f"e2e test cannot run under CI=true: {reason}", pytrace=False)
    pytest.skip(reason)


def pytest_collection_modifyitems(config, items):
    for item in items:
        if E2E_DIR in Path(item.path).resolve().parents:
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(autouse=True)
def _e2e_requirements(request):
    require_lab()


@pytest.fixture(autouse=True)
def _gc_on_the_gui_thread(request):
    """tests/conftest.py: gc_on_the_gui_thread, for each test with windows (they run real SSH on
    the loop thread); the others collect as Python does."""
    if "qtbot" in request.fixturenames:
        request.getfixturevalue("gc_on_the_gui_thread")


@pytest.fixture(autouse=True)
def _no_modal_questions(no_modal_questions):
    """tests/conftest.py: no_modal_questions (a window closed by an e2e test never blocks CI)."""


@pytest.fixture(scope="session")
def lab():
    """A running lab with at least 4 server nodes and 1 client (a ``brickyard.lab.session.Lab``)."""
    require_lab()
    from brickyard.lab.session import acquire, release

    env = os.environ.get
    spec = cfg.LabSpec(nodes=LAB_NODES, clients=LAB_CLIENTS,
                       directory=Path(env("BRICKYARD_LAB_DIR", str(cfg.DEFAULT_DIR))),
                       prefix=env("BRICKYARD_LAB_PREFIX", cfg.DEFAULT_PREFIX),
                       subnet=env("BRICKYARD_LAB_SUBNET", cfg.DEFAULT_SUBNET))
    handle = acquire(spec, say=lambda text: print(f"lab: {text}", file=sys.stderr))
    try:
        yield handle
    finally:
        left = release(handle, say=lambda text: print(f"lab: {text}", file=sys.stderr))
        if left:
            pytest.fail(f"lab teardown left things behind: {'; '.join(left)}", pytrace=False)
