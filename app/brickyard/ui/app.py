"""`brickyard-gui [FILE]`: the main window."""

from __future__ import annotations

import os
import sys


def _display_problem() -> str | None:
    """Why no window can open here, or None. Checked before Qt aborts with a core dump."""
    platform = os.environ.get("QT_QPA_PLATFORM", "")
    if platform.startswith(("offscreen", "minimal", "vnc", "eglfs", "linuxfb", "wayland")):
        return None
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return ("brickyard-gui: no display (DISPLAY and WAYLAND_DISPLAY are unset). Run it in a desktop "
                "session, over `ssh -X`, or under Xvfb: `xvfb-run brickyard-gui`. For headless use, see `brickyard --help`.")
    return None


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    problem = _display_problem()
    if problem:
        print(problem, file=sys.stderr)
        return 3
    from PySide6.QtWidgets import QApplication, QLabel

    app = QApplication.instance() or QApplication([sys.argv[0], *argv])
    label = QLabel("Brickyard")
    label.setWindowTitle("Brickyard")
    label.resize(640, 400)
    label.show()
    return app.exec()


if __name__ == "__main__":
    raise SystemExit(main())
