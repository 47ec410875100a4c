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
    """What to open: the FILE argument, else the last file, else nothing (the welcome view)."""
    from pathlib import Path

    if argv:
        return "open", Path(argv[0])
    last = files.last_file()
    if last is not None:
        return "open", last
    return None


USAGE = "usage: brickyard-gui [--ssh-config FILE] [FILE] | --self-test"


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
            from ...remote.sshconfig import ssh_config_problem

            problem = ssh_config_problem(value)   # as `brickyard`'s commands check it
            if problem:
                return f"--ssh-config {value}: {problem}"
            ssh_config = value
        elif arg.startswith("-") and arg != "-":
            return f"unknown option {arg}"
        else:
            rest.append(arg)
    if len(rest) > 1:
        return "give at most one topology FILE"
    chosen = os.environ.get("BRICKYARD_SSH_CONFIG", "")   # bridge.SSH_CONFIG_ENV (no Qt import here)
    if ssh_config is None and chosen:
        from ...remote.sshconfig import ssh_config_problem

        problem = ssh_config_problem(chosen)
        if problem:
            return f"BRICKYARD_SSH_CONFIG={chosen}: {problem}"
    return ssh_config, rest


def settle_gc() -> None:
    """Once the window is up. What start-up built (Qt wrappers, modules, the scene) lives as long
    as the app: keep it out of the garbage collector's full passes, which otherwise stall the GUI
    for ~100 ms now and then (benchmarks/run_view_frames.py prints what collections cost while a
    run streams)."""
    gc.collect()
    gc.freeze()


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if any(a in ("-h", "--help") for a in argv):
        print(f"{USAGE}\n\nOpen the Brickyard planner with FILE (a .brickyard.json topology), "
              "or the last file, or the welcome view.\n\n  --ssh-config FILE  OpenSSH client config for reaching hosts "
              "(default ~/.ssh/config; also $BRICKYARD_SSH_CONFIG)\n  --self-test        check this installation "
              "offscreen (window, plugins, history, a tiny local benchmark, PDF) and exit 0, or 1 naming what failed")
        return 0
    if argv and argv[0] == "--self-test":
        from .selftest import main as self_test

        return self_test(argv[1:])
    parsed = _parse(argv)
    if isinstance(parsed, str):
        print(f"{USAGE}\nbrickyard-gui: {parsed}", file=sys.stderr)
        return 2
    ssh_config, argv = parsed
    problem = _display_problem()
    if problem:
        print(problem, file=sys.stderr)
        return 3
    from ...core.settings import SettingsError, apply_unit_preference

    try:
        apply_unit_preference()        # MB/s (default) or MiB/s, as in the CLI
    except SettingsError as exc:
        print(f"brickyard-gui: {exc}", file=sys.stderr)
        return 2
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    import logging

    from ...core import applog

    applog.setup("brickyard-gui")
    app = QApplication.instance() or QApplication([sys.argv[0]])
    app.setOrganizationName("Brickyard")
    app.setApplicationName("Brickyard")
    app.setDesktopFileName("brickyard")
    from ..widgets.style import app_icon
    from .bridge import RemoteBridge
    from .crash import CrashReporter
    from .files import config_dir, data_dir
    from .mainwindow import MainWindow
    from .profile import migrate_old_locations

    app.setWindowIcon(app_icon())
    crashes = CrashReporter(app)
    crashes.install()
    from .collector import GuiThreadCollector

    collector = GuiThreadCollector(app)   # cycles are collected on this thread, never the SSH loop's
    collector.start()
    from ...store.settings import Settings

    # a settings file Brickyard cannot read never stops it: it is set aside, defaults are used, and we say so
    settings = Settings(config_dir() / "settings.json", set_aside=True)
    notices: list[str] = [settings.notice] if settings.notice else []
    if settings.notice:
        logging.getLogger("brickyard").warning("%s", settings.notice)
        print(f"brickyard-gui: {settings.notice}", file=sys.stderr)
    for line in migrate_old_locations(settings, data_dir() / "autosave"):
        logging.getLogger("brickyard").info("moved into the one settings place: %s", line)
    window = MainWindow(remote=RemoteBridge(ssh_config=ssh_config))
    problems: list[str] = []
    window.files.sig_error.connect(problems.append)
    opened = window.files.offer_recovery()
    if not opened:
        start = _startup_file(argv, window.files)
        if start is not None:
            kind, path = start
            opened = window.files.open(path)
            if not opened:
                print(f"brickyard-gui: cannot open {path}:", *problems, sep="\n", file=sys.stderr)
    if not opened:   # a first start: a new topology behind the welcome view, as File ▸ New makes
        window.files.new()
        window.open_welcome()
    window.show()
    # a window manager frames the window once it is shown: then its title bar is known, and the
    # frame (not only the window) is fitted into the screen's free area
    for delay in (0, 400):
        QTimer.singleShot(delay, window, window.window_layout.fit_into_screen)
    window.canvas.fit()
    # a full collection and the freeze once the first frame is painted, not before it
    QTimer.singleShot(0, settle_gc)
    if notices or problems:
        from PySide6.QtWidgets import QMessageBox

        QMessageBox.warning(window, "Brickyard", "\n\n".join(notices + problems))
    try:
        return app.exec()
    finally:
        collector.stop()
        crashes.uninstall()


if __name__ == "__main__":
    raise SystemExit(main())
