"""The CLI imports only what the command being run needs: `brickyard --help` and `--version`
list and name the commands without importing any command module (nor SSH, SQL or Qt)."""

import importlib
import subprocess
import sys

import pytest

from brickyard import cli
from brickyard.clicmd.command import Command

from ..conftest import EXAMPLES

PROBE = """
import sys
from brickyard import cli
try:
    code = cli.main(sys.argv[1:])
except SystemExit as exc:    # --help and --version exit from inside argparse
    code = exc.code
heavy = sorted({m.split('.')[0] for m in sys.modules} & {'asyncssh', 'sqlalchemy', 'alembic', 'PySide6'})
print('HEAVY', ','.join(heavy))
print('COMMANDS', ','.join(sorted(m for m in sys.modules if m.startswith('brickyard.clicmd.'))))
sys.exit(code)
"""


def _modules_loaded(*args: str) -> tuple[int, str, str]:
    proc = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=120)
    lines = dict(line.split(" ", 1) if " " in line else (line, "") for line in proc.stdout.splitlines()
                 if line.startswith(("HEAVY", "COMMANDS")))
    return proc.returncode, lines["HEAVY"].strip(), lines["COMMANDS"].strip()


def test_plan_loads_no_ssh_sql_or_qt_library():
    code, heavy, _ = _modules_loaded("plan", str(EXAMPLES / "three-site.brickyard.json"))
    assert code == 0
    assert heavy == ""


def test_plan_imports_no_library_it_does_not_use():
    """tempfile (with random), statistics (fractions, decimal) and difflib cost `brickyard plan`
    ~16 ms of CPU at every start; it writes no file, fits nothing and suggests no name."""
    probe = PROBE.replace("{'asyncssh', 'sqlalchemy', 'alembic', 'PySide6'}", "{'tempfile', 'statistics', 'difflib'}")
    proc = subprocess.run([sys.executable, "-c", probe, "plan", str(EXAMPLES / "three-site.brickyard.json")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-500:]
    assert [line for line in proc.stdout.splitlines() if line.startswith("HEAVY")] == ["HEAVY "], proc.stdout[-300:]


def test_plan_imports_no_exact_arithmetic():
    """fractions (with decimal, ~5 ms of CPU at every start) is for a size typed as text
    ("1.5T"); `brickyard plan FILE` reads numbers from JSON."""
    probe = PROBE.replace("{'asyncssh', 'sqlalchemy', 'alembic', 'PySide6'}", "{'fractions', 'decimal'}")
    proc = subprocess.run([sys.executable, "-c", probe, "plan", str(EXAMPLES / "three-site.brickyard.json")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-500:]
    assert [line for line in proc.stdout.splitlines() if line.startswith("HEAVY")] == ["HEAVY "], proc.stdout[-300:]


def test_plan_builds_its_parser_without_shutil():
    """argparse imports shutil (with bz2, lzma and fnmatch, ~10 ms) for the terminal's width
    whenever it makes a formatter, which add_argument does for every option; the CLI's parser
    finds the width itself, the way shutil does."""
    probe = PROBE.replace("{'asyncssh', 'sqlalchemy', 'alembic', 'PySide6'}", "{'shutil', 'bz2', 'lzma'}")
    proc = subprocess.run([sys.executable, "-c", probe, "plan", str(EXAMPLES / "three-site.brickyard.json")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-500:]
    assert [line for line in proc.stdout.splitlines() if line.startswith("HEAVY")] == ["HEAVY "], proc.stdout[-300:]


@pytest.mark.parametrize("columns", [None, "120", "x", "0", "-3"])
def test_the_help_is_as_wide_as_shutil_says(columns, monkeypatch):
    import shutil

    monkeypatch.delenv("COLUMNS", raising=False)
    if columns is not None:
        monkeypatch.setenv("COLUMNS", columns)
    assert cli.terminal_columns() == shutil.get_terminal_size().columns


@pytest.mark.parametrize("argv", [["--help"], ["--version"], []])
def test_help_and_version_import_no_command_and_no_ssh_sql_or_qt(argv):
    code, heavy, commands = _modules_loaded(*argv)
    assert code in (0, 2)
    assert heavy == ""
    assert commands == "brickyard.clicmd.command"      # the shape only, no command's module


def test_a_command_line_imports_only_its_own_command_module():
    code, _, commands = _modules_loaded("decision", "--help")
    assert code == 0
    command_modules = {entry.module for entry in cli.COMMANDS.values()}
    assert set(commands.split(",")) & command_modules == {"brickyard.clicmd.decision"}


def test_help_lists_every_command_with_its_one_line_help(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    for word, entry in cli.COMMANDS.items():
        assert f"{word} {' '.join(entry.help.split())}" in text


@pytest.mark.parametrize("word", sorted(cli.COMMANDS))
def test_every_command_module_holds_one_command_in_the_shape_and_takes_json(word):
    module = importlib.import_module(cli.COMMANDS[word].module)
    assert isinstance(module.COMMAND, Command)
    parser = cli.build_parser(word)
    sub = next(a for a in parser._actions if a.dest == "command")
    full = sub.choices[word]
    assert full.description == module.COMMAND.description
    actions = getattr(module.COMMAND, "actions", ())
    parsers = ([next(a for a in full._actions if a.dest == f"{word}_command").choices[w] for w, _, _ in actions]
               if actions else [full])
    for p in parsers:
        assert any("--json" in a.option_strings for a in p._actions), p.prog
