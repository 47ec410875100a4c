"""UI tests never block on a modal question: unsaved changes are discarded when a test's
windows close, and no crash recovery is offered unless a test asks for it. They never touch the
user's own profile either: settings, data (history, autosaves, known hosts) and logs go to a
fresh temporary XDG tree for each test."""

import pytest


@pytest.fixture(autouse=True)
def _fresh_profile(tmp_path_factory, monkeypatch):
    root = tmp_path_factory.mktemp("profile")
    for env, name in (("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data"), ("XDG_STATE_HOME", "state"),
                      ("XDG_CACHE_HOME", "cache")):
        monkeypatch.setenv(env, str(root / name))
    return root


@pytest.fixture(autouse=True)
def _gc_on_the_gui_thread(gc_on_the_gui_thread):
    """tests/conftest.py: gc_on_the_gui_thread."""


@pytest.fixture(autouse=True)
def _no_modal_questions(no_modal_questions):
    """tests/conftest.py: no_modal_questions."""
