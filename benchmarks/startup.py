"""How fast Brickyard starts: `brickyard --help`, and the window from a cold start.

    .venv/bin/python benchmarks/startup.py [--runs 7]

Each figure is a fresh process, min / median / max wall clock over the runs, with the child's
CPU time (user + system) beside it:
- ``brickyard --help`` (the console script as installed); target < 0.2 s; ``python -c pass``
  beside it for scale;
- ``brickyard-gui`` offscreen, from the process start to the first window shown (the main
  window built, the topology planned and drawn, ``show()`` done: the moment the event loop
  would start); a first start (the welcome view) and with an example topology; target < 1 s.
  The libraries that must not be on that path (asyncssh, cryptography, SQLAlchemy, Alembic)
  are checked in every run.

Bytecode: Brickyard's modules are compiled by scripts/bootstrap.sh (and frozen in the bundle);
``--no-bytecode`` measures a start that has to compile every module of app/ first.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from figures import line, load_line, timed_process

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "resources" / "examples" / "three-site.brickyard.json"
HELP_TARGET, GUI_TARGET = 0.2, 1.0
HEAVY = "asyncssh,cryptography,sqlalchemy,alembic"

# the GUI's own start-up (brickyard.ui.frame.app.main) with the event loop replaced by "print what is
# loaded and leave": the process ends as the first window is up
PROBE = """
import sys
from PySide6.QtWidgets import QApplication

def shown(*args):
    heavy = sorted({m.split(".")[0] for m in sys.modules} & set(sys.argv[1].split(",")))
    print("HEAVY", ",".join(heavy), flush=True)
    return 0

QApplication.exec = shown
from brickyard.ui.frame.app import main
sys.exit(main(sys.argv[2:]))
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--no-bytecode", action="store_true",
                    help="move app/'s __pycache__ folders aside while measuring (put back afterwards)")
    args = ap.parse_args()
    python = sys.executable
    brickyard = str(Path(python).with_name("brickyard"))
    aside: list[tuple[Path, Path]] = []
    scratch = Path(tempfile.mkdtemp(prefix="brickyard-startup-"))
    try:
        if args.no_bytecode:
            for cache in (ROOT / "app").rglob("__pycache__"):
                target = scratch / "pycache" / str(len(aside))
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.move(str(cache), target)
                aside.append((cache, target))
        print(f"{load_line()}; bytecode of app/: {'none (moved aside)' if args.no_bytecode else 'as installed'}")
        for _ in range(2):   # warm the page cache
            subprocess.run([brickyard, "--help"], capture_output=True)
        walls, cpus = timed_process([python, "-c", "pass"], args.runs)
        print(line("python -c pass (for scale)", walls, unit="s", cpu=cpus))

        def helped(proc: subprocess.CompletedProcess) -> None:
            if proc.returncode != 0 or "plan" not in proc.stdout:
                raise SystemExit(f"brickyard --help failed: {proc.stderr[-400:]}")

        walls, cpus = timed_process([brickyard, "--help"], args.runs, check=helped)
        print(line("brickyard --help", walls, HELP_TARGET, unit="s", cpu=cpus))

        for label, extra in (("first start (welcome view)", []), (f"with {EXAMPLE.name}", [str(EXAMPLE)])):
            home = scratch / "home"
            loaded: list[str] = []

            def window_up(proc: subprocess.CompletedProcess) -> None:
                heavy = [l for l in proc.stdout.splitlines() if l.startswith("HEAVY")]
                if proc.returncode != 0 or not heavy:
                    raise SystemExit(f"brickyard-gui did not come up: {proc.stderr[-600:]}")
                loaded.append(heavy[0].removeprefix("HEAVY").strip())
                shutil.rmtree(home, ignore_errors=True)   # every run a first start

            env = dict(os.environ, QT_QPA_PLATFORM="offscreen", HOME=str(home))
            for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
                env.pop(name, None)
            walls, cpus = timed_process([python, "-c", PROBE, HEAVY, *extra], args.runs, env=env, check=window_up)
            heavy = sorted({h for h in loaded if h})
            print(line(f"brickyard-gui to the first window, {label}", walls, GUI_TARGET, unit="s", cpu=cpus))
            print(f"    loaded on the way: {', '.join(heavy) if heavy else f'none of {HEAVY}'}")
    finally:
        for cache, target in aside:
            shutil.move(str(target), cache)
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
