"""The planner on a real X server (Xvfb, the xcb platform): screenshots of its main states.

Skipped when Xvfb is not installed, except under CI=true, where it must run.
"""

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from ..conftest import ROOT

SHOTS = ROOT / "tests" / "screenshots"
STATES = ("01-planner", "02-node-failed", "03-three-site-two-failures", "04-compare-layouts", "05-refused-layout",
          "06-clients-mounts-options", "07-lab-topology-edited-live", "08-history-tab")


def _free_display() -> int:
    for n in range(90, 200):
        if not Path(f"/tmp/.X{n}-lock").exists() and not Path(f"/tmp/.X11-unix/X{n}").exists():
            return n
    raise RuntimeError("no free X display number between :90 and :199")


@pytest.fixture(scope="module")
def xvfb():
    binary = shutil.which("Xvfb")
    if binary is None:
        if os.environ.get("CI") == "true":
            pytest.fail("Xvfb is missing under CI=true (scripts/apt-packages.txt installs it)")
        pytest.skip("Xvfb is not installed (apt-get install xvfb xauth)")
    for _attempt in range(3):
        n = _free_display()
        proc = subprocess.Popen([binary, f":{n}", "-screen", "0", "1920x1080x24", "-nolisten", "tcp"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and proc.poll() is None and not Path(f"/tmp/.X11-unix/X{n}").exists():
            time.sleep(0.05)
        if proc.poll() is None and Path(f"/tmp/.X11-unix/X{n}").exists():
            break
        proc.kill()
        proc.wait()
    else:
        pytest.fail("Xvfb did not start: " + (proc.stderr.read().decode(errors="replace") if proc.stderr else ""))
    yield f":{n}"
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _distinct_colours(image: QImage, step: int = 5) -> int:
    return len({image.pixel(x, y) for x in range(0, image.width(), step) for y in range(0, image.height(), step)})


@pytest.mark.xvfb
def test_screenshots_of_the_main_states_on_a_real_x_server_are_real_pictures(xvfb):
    env = dict(os.environ, DISPLAY=xvfb, QT_QPA_PLATFORM="xcb")
    env.pop("WAYLAND_DISPLAY", None)
    run = subprocess.run([sys.executable, str(Path(__file__).with_name("screenshot_states.py")), str(SHOTS)],
                         env=env, capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stderr[-3000:]
    sizes = {}
    for name in STATES:
        image = QImage(str(SHOTS / f"{name}.png"))
        assert not image.isNull(), name
        assert image.width() >= 1200 and image.height() >= 800, (name, image.size())
        assert _distinct_colours(image) > 60, name
        sizes[name] = (SHOTS / f"{name}.png").stat().st_size
    # the states differ from one another (a failure, another example, another layout)
    assert len({(SHOTS / f"{n}.png").read_bytes() for n in STATES}) == len(STATES)


@pytest.mark.xvfb
def test_brickyard_gui_on_a_real_x_server_opens_and_quits_cleanly(xvfb, tmp_path):
    """The entry point itself under xcb: window up, then closed by a timer, exit code 0."""
    script = (
        "import sys\n"
        "from PySide6.QtCore import QTimer\n"
        "from PySide6.QtWidgets import QApplication\n"
        "from brickyard.ui.frame import app\n"
        "run = QApplication.exec\n"
        "def exec_then_close(self):\n"
        "    QTimer.singleShot(1500, lambda: [w.close() for w in QApplication.topLevelWidgets()])\n"
        "    return run()\n"
        "QApplication.exec = exec_then_close\n"
        f"sys.exit(app.main([{str(ROOT / 'resources/examples/three-site.brickyard.json')!r}]))\n"
    )
    env = dict(os.environ, DISPLAY=xvfb, XDG_CONFIG_HOME=str(tmp_path / "config"),
               XDG_DATA_HOME=str(tmp_path / "data"))
    env.pop("QT_QPA_PLATFORM", None)
    run = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    settings = tmp_path / "config" / "brickyard" / "settings.json"
    assert "three-site.brickyard.json" in settings.read_text()
