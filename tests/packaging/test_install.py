"""packaging/install.sh puts the bundle, the commands, the menu entry and the icons in the user's
home without root, and --uninstall removes exactly what it put there (issue 15).

A stand-in bundle (a shell script as the executable, the real icons, .desktop template and
install.sh) keeps this fast; the real bundle goes through the same script in CI's bundle check
and in the non-root install checked by hand (README)."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from ..conftest import ROOT

FAKE_EXE = "#!/bin/sh\necho \"$(basename \"$0\") $*\" > \"$HOME/started\"\n"


def fake_bundle(tmp_path: Path) -> Path:
    bundle = tmp_path / "dist" / "brickyard"
    icons = bundle / "_internal" / "brickyard" / "resources" / "icons"
    shutil.copytree(ROOT / "resources" / "icons", icons)
    (bundle / "site-packages").mkdir()
    exe = bundle / "brickyard"
    exe.write_text(FAKE_EXE)
    exe.chmod(0o755)
    (bundle / "brickyard-gui").symlink_to("brickyard")
    shutil.copy(ROOT / "packaging" / "install.sh", bundle / "install.sh")
    shutil.copy(ROOT / "packaging" / "brickyard.desktop", bundle / "brickyard.desktop")
    return bundle


def run(script: Path, home: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    env = {"HOME": str(home), "PATH": os.environ["PATH"]}
    result = subprocess.run(["bash", str(script), *args], env=env, capture_output=True, text=True, timeout=60)
    if check:
        assert result.returncode == 0, result.stdout + result.stderr
    return result


def snapshot(home: Path) -> dict[str, str]:
    out = {}
    for path in sorted(home.rglob("*")):
        kind = "link" if path.is_symlink() else "dir" if path.is_dir() else "file"
        out[str(path.relative_to(home))] = kind
    return out


@pytest.fixture
def home(tmp_path):
    home = tmp_path / "home"
    # what the user has already: none of it may be touched
    (home / ".local" / "bin").mkdir(parents=True)
    (home / ".local" / "bin" / "other-tool").write_text("#!/bin/sh\n")
    (home / ".local" / "share" / "applications").mkdir(parents=True)
    (home / ".local" / "share" / "applications" / "other.desktop").write_text("[Desktop Entry]\n")
    (home / ".config" / "brickyard").mkdir(parents=True)
    (home / ".config" / "brickyard" / "settings.json").write_text("{}")
    return home


def desktop_entry(path: Path) -> dict[str, str]:
    lines = path.read_text().splitlines()
    assert lines[0] == "[Desktop Entry]"
    return dict(line.split("=", 1) for line in lines[1:] if line and not line.startswith("#"))


def test_install_puts_bundle_commands_menu_entry_and_icons_in_home_and_uninstall_takes_exactly_them(tmp_path, home):
    before = snapshot(home)
    bundle = fake_bundle(tmp_path)
    out = run(bundle / "install.sh", home).stdout
    prefix = home / ".local" / "lib" / "brickyard"
    assert "Brickyard installed in" in out and "uninstall:" in out
    assert (prefix / "brickyard").is_file() and (prefix / "_internal").is_dir()
    assert os.readlink(home / ".local" / "bin" / "brickyard-gui") == str(prefix / "brickyard-gui")
    entry = desktop_entry(home / ".local" / "share" / "applications" / "brickyard.desktop")
    assert entry["Name"] == "Brickyard" and entry["Icon"] == "brickyard" and entry["Type"] == "Application"
    assert entry["TryExec"] == str(prefix / "brickyard-gui")
    icons = home / ".local" / "share" / "icons" / "hicolor"
    for size in (16, 24, 32, 48, 64, 128, 256):
        assert (icons / f"{size}x{size}" / "apps" / "brickyard.png").is_file(), size
    assert (icons / "scalable" / "apps" / "brickyard.svg").is_file()

    # the menu entry starts the bundle the way a launcher does: Exec, field codes expanded
    argv = [word.replace("%f", str(tmp_path / "x.brickyard.json")) for word in shlex.split(entry["Exec"])]
    subprocess.run(argv, env={"HOME": str(home), "PATH": os.environ["PATH"]}, check=True, timeout=30)
    assert (home / "started").read_text().strip() == f"brickyard-gui {tmp_path / 'x.brickyard.json'}"
    (home / "started").unlink()

    # uninstall: everything it put there is gone, everything else is as it was
    out = run(prefix / "install.sh", home, "--uninstall").stdout
    assert "uninstalled" in out and "settings" in out
    assert snapshot(home) == before


def test_uninstall_keeps_what_the_user_added_inside_and_says_so(tmp_path, home):
    bundle = fake_bundle(tmp_path)
    run(bundle / "install.sh", home)
    plugin = home / ".local" / "lib" / "brickyard" / "site-packages" / "my_plugin.py"
    plugin.write_text("# mine")
    out = run(home / ".local" / "lib" / "brickyard" / "install.sh", home, "--uninstall").stdout
    assert plugin.read_text() == "# mine"
    assert "Kept, because they hold files the install did not put there" in out and "site-packages" in out
    assert not (home / ".local" / "bin" / "brickyard").exists()


def test_install_refuses_to_overwrite_what_it_did_not_make(tmp_path, home):
    bundle = fake_bundle(tmp_path)
    mine = home / ".local" / "bin" / "brickyard"
    mine.write_text("#!/bin/sh\necho pip --user\n")
    before = snapshot(home)
    result = run(bundle / "install.sh", home, check=False)
    assert result.returncode != 0 and "was not made by this script" in result.stderr and str(mine) in result.stderr
    assert snapshot(home) == before and mine.read_text() == "#!/bin/sh\necho pip --user\n"
    result = run(bundle / "install.sh", home, "--uninstall", check=False)
    assert result.returncode != 0 and "nothing to uninstall" in result.stderr


def test_installing_again_replaces_the_earlier_install(tmp_path, home):
    bundle = fake_bundle(tmp_path)
    run(bundle / "install.sh", home)
    (bundle / "NEW-FILE").write_text("2.0")
    out = run(bundle / "install.sh", home).stdout
    assert "Replacing" in out and (home / ".local" / "lib" / "brickyard" / "NEW-FILE").is_file()
    run(home / ".local" / "lib" / "brickyard" / "install.sh", home, "--uninstall")
    assert not (home / ".local" / "lib").exists()
