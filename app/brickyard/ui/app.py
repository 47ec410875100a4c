"""`brickyard-gui [FILE]`: the main window."""

from __future__ import annotations

import gc
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


USAGE = "usage: brickyard-gui [--ssh-config FILE] [FILE]"


def _parse(argv: list[str]) -> tuple[str | None, list[str]] | str:
    """(ssh config, [FILE]) or an error message."""
    ssh_config = None
    rest: list[str] = []
    items = iter(argv)
    for arg in items:
        if arg == "--ssh-config" or arg.startswith("--ssh-config="):
            value = arg.partition("=")[2] if "=" in arg else next(items, "")
            if not value:
                return "--ssh-config needs a FILE"
            if not os.path.isfile(value):
                return f"--ssh-config {value}: no such file"
            ssh_config = value
        elif arg.startswith("-") and arg != "-":
            return f"unknown option {arg}"
        else:
            rest.append(arg)
    if len(rest) > 1:
        return "give at most one topology FILE"
    return ssh_config, rest


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if any(a in ("-h", "--help") for a in argv):
        print(f"{USAGE}\n\nOpen the Brickyard planner with FILE (a .brickyard.json topology), "
              "or the last file, or an example.\n\n  --ssh-config FILE  OpenSSH client config for reaching hosts "
              "(default ~/.ssh/config; also $BRICKYARD_SSH_CONFIG)")
        return 0
    parsed = _parse(argv)
    if isinstance(parsed, str):
        print(f"{USAGE}\nbrickyard-gui: {parsed}", file=sys.stderr)
        return 2
    ssh_config, argv = parsed
    problem = _display_problem()
    if problem:
        print(problem, file=sys.stderr)
        return 3
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([sys.argv[0]])
    app.setOrganizationName("Brickyard")
    app.setApplicationName("Brickyard")
    from .bridge import RemoteBridge
    from .mainwindow import MainWindow

    window = MainWindow(remote=RemoteBridge(ssh_config=ssh_config))
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
    # what start-up built (Qt wrappers, modules, the scene) lives as long as the app: keep it out
    # of the garbage collector's full passes, which otherwise stall the GUI for ~100 ms now and then
    gc.collect()
    gc.freeze()
    if problems:
        from PySide6.QtWidgets import QMessageBox

        QMessageBox.warning(window, "Brickyard", "\n".join(problems))
    return app.exec()


if __name__ == "__main__":
    raise SystemExit(main())
