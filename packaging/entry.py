"""The bundle's executable: ``brickyard`` (the CLI), ``brickyard-gui`` or ``brickyard gui``
(the window) and ``--self-test`` on either.

Before Brickyard is imported:
- ``site-packages`` beside the executable joins ``sys.path``, so a third-party workload
  installed there (``pip install --no-deps --target DIR/site-packages PLUGIN``) is found by
  its entry point like a built-in;
- the library path PyInstaller's loader set for this process is taken back for the programs
  Brickyard starts (dd, python3 for the benchmark agent, ssh-agent, xdg-open): they must load
  the system's libraries, not the bundle's.
"""

import os
import sys


def _prepare() -> None:
    here = os.path.dirname(os.path.realpath(sys.executable))
    beside = os.path.join(here, "site-packages")
    if os.path.isdir(beside):
        sys.path.append(beside)
    original = os.environ.pop("LD_LIBRARY_PATH_ORIG", None)
    if original is not None:
        os.environ["LD_LIBRARY_PATH"] = original
    elif "LD_LIBRARY_PATH" in os.environ and getattr(sys, "_MEIPASS", None) in os.environ["LD_LIBRARY_PATH"].split(":"):
        del os.environ["LD_LIBRARY_PATH"]


def main() -> int:
    _prepare()
    args = sys.argv[1:]
    gui = os.path.basename(sys.argv[0]).startswith("brickyard-gui")
    if args[:1] == ["gui"]:
        gui, args = True, args[1:]
    if gui or args[:1] == ["--self-test"]:
        from brickyard.ui.frame.app import main as gui_main

        return gui_main(args)
    from brickyard.cli import main as cli_main

    return cli_main(args)


if __name__ == "__main__":
    sys.exit(main())
