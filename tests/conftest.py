"""Test setup shared by every layer."""

import os
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "resources" / "examples"
FIXTURES = ROOT / "tests" / "fixtures"

if os.environ.get("BRICKYARD_BLOCK_IMPORTS"):
    # `bootstrap.sh test` runs tests/core once more with Qt, SSH and SQL made unimportable,
    # proving at run time what import-linter proves statically: core needs none of them.
    import importlib.abc
    import sys

    _BLOCKED = ("PySide6", "shiboken6", "pyqtgraph", "asyncssh", "sqlalchemy", "alembic", "keyring")

    class _Block(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in _BLOCKED:
                raise ImportError(f"{name} is blocked: core must not need it")
            return None

    sys.meta_path.insert(0, _Block())


import pytest  # noqa: E402


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item, nextitem):
    """A crash names the test it happened in: pytest's own protocol (setup, call, teardown) runs
    from a frame whose file name is the test's node id, so the stacks Python's faulthandler prints
    on a segmentation fault (pytest enables it, every thread, to stderr: the CI log) and the ones
    pytest-timeout prints on a hang show ``File "<test tests/ui/…::test_…>"``. Without it a crash
    in a shared fixture's teardown (pytest-qt closing a test's windows, the GUI-thread collector)
    or in a later event showed only pytest's and Qt's frames, and "-q" had printed no test name:
    twice a segfault in tests/ui could be placed only "near" two files."""
    from _pytest.runner import runtestprotocol

    item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    named = compile("runtestprotocol(item, nextitem=nextitem)", f"<test {item.nodeid}>", "exec")
    exec(named, {"runtestprotocol": runtestprotocol, "item": item, "nextitem": nextitem})  # noqa: S102
    item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    return True


@pytest.fixture(autouse=True, scope="session")
def _log_to_a_temporary_folder(tmp_path_factory):
    """Commands run in-process (cli.main, the app) log (core.applog): into this run's temporary
    folder, never the tester's ~/.local/state."""
    os.environ["XDG_STATE_HOME"] = str(tmp_path_factory.mktemp("state"))
    yield


@pytest.fixture
def no_modal_questions(monkeypatch):
    """Windows a test closes never wait for an answer nobody gives: unsaved changes are
    discarded, no crash recovery is offered, quitting while something runs goes ahead. A real
    question box once hung CI for good (a pre-flight records the free space it measured as an
    undoable edit, so closing the e2e test's window asked to save; pytest-timeout cannot
    interrupt Qt's modal loop). tests/ui and tests/e2e use it for every test."""
    from brickyard.ui.frame import files
    from brickyard.ui.frame.mainwindow import MainWindow

    monkeypatch.setattr(files.FileController, "_ask_box", lambda self, question: "discard")
    monkeypatch.setattr(files.FileController, "_ask_recover_box", lambda self, question: False)
    monkeypatch.setattr(MainWindow, "_confirm_quit_while_busy", lambda self: True)


@pytest.fixture(scope="session")
def _gui_thread_collector(qapp):
    from brickyard.ui.frame.collector import GuiThreadCollector

    return GuiThreadCollector()


@pytest.fixture
def gc_on_the_gui_thread(_gui_thread_collector):
    """Python's cycle collector runs on the GUI thread only, as in the app (ui/frame/collector.py), and
    once more when the test ends, after its windows were closed. Left to itself it ran on the SSH
    loop thread now and then and deleted a test's window there: the next event crashed the run.
    tests/ui and tests/e2e use it for every test."""
    _gui_thread_collector.start()
    yield _gui_thread_collector
    _gui_thread_collector.stop()
