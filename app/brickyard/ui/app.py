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


def _startup_file(argv: list[str], files) -> tuple[str, object] | None:
    """What to open: the FILE argument, else the last file, else the first example."""
    from pathlib import Path

    from .files import example_files

    if argv:
        return "open", Path(argv[0])
    last = files.last_file()
    if last is not None:
        return "open", last
    examples = example_files()
    return ("example", examples[0]) if examples else None


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if any(a in ("-h", "--help") for a in argv):
        print("usage: brickyard-gui [FILE]\n\nOpen the Brickyard planner with FILE (a .brickyard.json topology), "
              "or the last file, or an example.")
        return 0
    if len(argv) > 1:
        print("usage: brickyard-gui [FILE]", file=sys.stderr)
        return 2
    problem = _display_problem()
    if problem:
        print(problem, file=sys.stderr)
        return 3
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([sys.argv[0]])
    app.setOrganizationName("Brickyard")
    app.setApplicationName("Brickyard")
    from .mainwindow import MainWindow

    window = MainWindow()
    problems: list[str] = []
    window.files.sig_error.connect(problems.append)
    if not window.files.offer_recovery():
        start = _startup_file(argv, window.files)
        if start is not None:
            kind, path = start
            ok = window.files.open(path) if kind == "open" else window.files.open_example(path)
            if not ok:
                print(f"brickyard-gui: cannot open {path}:", *problems, sep="\n", file=sys.stderr)
    window.show()
    window.canvas.fit()
    if problems:
        from PySide6.QtWidgets import QMessageBox

        QMessageBox.warning(window, "Brickyard", "\n".join(problems))
    return app.exec()


if __name__ == "__main__":
    raise SystemExit(main())
