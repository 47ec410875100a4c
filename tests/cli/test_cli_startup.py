"""The CLI imports only what the command being run needs."""

import subprocess
import sys

from ..conftest import EXAMPLES

PROBE = """
import sys
from brickyard import cli
code = cli.main(sys.argv[1:])
heavy = sorted({m.split('.')[0] for m in sys.modules} & {'asyncssh', 'sqlalchemy', 'alembic', 'PySide6'})
print('HEAVY', ','.join(heavy))
sys.exit(code)
"""


def _heavy_modules_loaded(*args: str) -> tuple[int, str]:
    proc = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=120)
    line = next(l for l in proc.stdout.splitlines() if l.startswith("HEAVY"))
    return proc.returncode, line.removeprefix("HEAVY").strip()


def test_plan_loads_no_ssh_sql_or_qt_library():
    code, heavy = _heavy_modules_loaded("plan", str(EXAMPLES / "three-site.brickyard.json"))
    assert code == 0
    assert heavy == ""


def test_version_loads_no_command_module():
    proc = subprocess.run([sys.executable, "-c", "import sys; from brickyard import cli; "
                           "sys.argv=['brickyard','--version']; "
                           "import contextlib\ntry:\n cli.main(['--version'])\nexcept SystemExit: pass\n"
                           "print(sorted(m for m in sys.modules if m.startswith('brickyard.clicmd.')))"],
                          capture_output=True, text=True, timeout=60)
    from brickyard import __version__

    assert f"brickyard {__version__}" in proc.stdout
    assert proc.stdout.strip().endswith("[]")


def test_help_still_lists_every_command():
    from brickyard import cli

    text = cli.build_parser().format_help()
    for word in cli.COMMAND_MODULES:
        assert word in text
