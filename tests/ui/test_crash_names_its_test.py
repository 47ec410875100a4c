"""A segmentation fault in a GUI test names the test: faulthandler prints each frame's file name,
and tests/conftest.py runs every test's setup, call and teardown under a frame named after it."""

import faulthandler
import subprocess
import sys
import textwrap

import pytest


def _named_frames() -> list[str]:
    frame, names = sys._getframe(), []
    while frame is not None:
        if frame.f_code.co_filename.startswith("<test "):
            names.append(frame.f_code.co_filename)
        frame = frame.f_back
    return names


@pytest.fixture
def frames_at_teardown(request):
    seen: list[str] = []
    yield seen
    seen.extend(_named_frames())
    assert seen == [f"<test {request.node.nodeid}>"]


def test_the_test_and_its_fixtures_teardown_run_under_a_frame_named_after_it(request, frames_at_teardown):
    assert faulthandler.is_enabled()
    assert _named_frames() == [f"<test {request.node.nodeid}>"]


def test_a_segfault_in_a_shared_fixtures_teardown_prints_the_tests_name(tmp_path):
    """The real thing, in a pytest of its own: a crash where no frame of the test module is on the stack."""
    root = tmp_path / "run"
    (root / "tests").mkdir(parents=True)
    conftest = open(__file__.replace("ui/test_crash_names_its_test.py", "conftest.py"), encoding="utf-8").read()
    (root / "tests" / "conftest.py").write_text(conftest + textwrap.dedent("""

        @pytest.fixture
        def crashes_at_teardown():
            yield
            import ctypes
            ctypes.string_at(0)
    """), encoding="utf-8")
    (root / "tests" / "test_crash.py").write_text("def test_that_crashes(crashes_at_teardown):\n    pass\n",
                                                   encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:pytest-qt",
                           "tests/test_crash.py"], cwd=root, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "Fatal Python error: Segmentation fault" in done.stderr
    assert 'File "<test tests/test_crash.py::test_that_crashes>"' in done.stderr, done.stderr
