"""packaging/install.sh puts the bundle, the commands, the menu entry and the icons in the user's
home without root, and --uninstall removes exactly what it put there and is still as it put it
(issues 15 and 25): never a file the user replaced, never through a folder that became a link,
any file name (a new line in it) safe; a refused or failed install leaves nothing behind.

A stand-in bundle (a shell script as the executable, the real icons, .desktop template and
install.sh) keeps this fast; the real bundle goes through the same script in CI's bundle check
and in the non-root install checked by hand (README)."""

from __future__ import annotations

import os
import re
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


def run(script: Path, home: Path, *args: str, check: bool = True, cwd: Path | None = None,
        path: str | None = None) -> subprocess.CompletedProcess:
    env = {"HOME": str(home), "PATH": path or os.environ["PATH"]}
    result = subprocess.run(["bash", str(script), *args], env=env, capture_output=True, text=True, timeout=60,
                            cwd=cwd)
    if check:
        assert result.returncode == 0, result.stdout + result.stderr
    return result


def snapshot(home: Path) -> dict[str, str]:
    """Every path under home with its type and content (a file's bytes, a link's target)."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(home):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            rel = str(path.relative_to(home))
            if path.is_symlink():
                out[rel] = "link " + os.readlink(path)
            elif path.is_dir():
                out[rel] = "dir"
            else:
                out[rel] = "file " + path.read_bytes().decode("utf-8", "replace")
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
    """The entry's keys, string values unescaped as the Desktop Entry spec says (\\s \\n \\t \\r \\\\)."""
    lines = path.read_text().splitlines()
    assert lines[0] == "[Desktop Entry]"
    pairs = dict(line.split("=", 1) for line in lines[1:] if line and not line.startswith("#"))
    return {key: re.sub(r"\\(.)", lambda m: {"s": " ", "n": "\n", "t": "\t", "r": "\r"}.get(m[1], m[1]), value)
            for key, value in pairs.items()}


def exec_argv(entry: dict[str, str], file_arg: str) -> list[str]:
    """Exec as a launcher runs it (Desktop Entry spec, "The Exec key"): words split on spaces;
    inside double quotes a backslash makes the next of " ` $ \\ literal; then field codes."""
    words, word, quoted, chars = [], None, False, iter(entry["Exec"])
    for ch in chars:
        if quoted:
            if ch == "\\":
                nxt = next(chars)
                assert nxt in '"`$\\', f"{nxt!r} may not be escaped in Exec"
                word += nxt
            elif ch == '"':
                quoted = False
            else:
                word += ch
        elif ch == " ":
            if word is not None:
                words.append(word)
            word = None
        elif ch == '"':
            quoted, word = True, word or ""
        else:
            word = (word or "") + ch
    if word is not None:
        words.append(word)
    return [w.replace("%f", file_arg).replace("%%", "%") for w in words]


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
    argv = exec_argv(entry, str(tmp_path / "x.brickyard.json"))
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
    assert "Left in place" in out and f"{plugin.parent}: holds files the install did not make" in out
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


def test_uninstall_leaves_a_command_and_a_menu_entry_the_user_replaced(tmp_path, home):
    bundle = fake_bundle(tmp_path)
    run(bundle / "install.sh", home)
    mine = home / ".local" / "bin" / "brickyard"
    mine.unlink()
    mine.write_text("#!/bin/sh\necho my own brickyard\n")
    entry = home / ".local" / "share" / "applications" / "brickyard.desktop"
    entry.unlink()
    entry.write_text("[Desktop Entry]\nName=mine\n")
    out = run(home / ".local" / "lib" / "brickyard" / "install.sh", home, "--uninstall").stdout
    assert mine.read_text() == "#!/bin/sh\necho my own brickyard\n"
    assert entry.read_text() == "[Desktop Entry]\nName=mine\n"
    assert f"{mine}: not the link the install made" in out and f"{entry}: changed since the install" in out
    assert not (home / ".local" / "bin" / "brickyard-gui").exists()
    assert not (home / ".local" / "lib" / "brickyard").exists()


def test_uninstall_never_follows_a_folder_the_user_replaced_by_a_link(tmp_path, home):
    bundle = fake_bundle(tmp_path)
    folder = bundle / "_internal" / "libs"
    folder.mkdir()
    for i in range(9):
        (folder / f"lib{i}.so").write_text(f"bundle {i}")
    run(bundle / "install.sh", home)
    precious = home / "precious-work"
    precious.mkdir()
    for i in range(9):      # the same names as the bundle's, even the same content for one of them
        (precious / f"lib{i}.so").write_text("bundle 0" if i == 0 else f"mine {i}")
    installed = home / ".local" / "lib" / "brickyard" / "_internal" / "libs"
    shutil.rmtree(installed)
    installed.symlink_to(precious)
    out = run(home / ".local" / "lib" / "brickyard" / "install.sh", home, "--uninstall").stdout
    assert sorted(p.name for p in precious.iterdir()) == [f"lib{i}.so" for i in range(9)]
    assert (precious / "lib0.so").read_text() == "bundle 0"
    assert f"{installed}: now a link, not the folder the install made" in out
    assert installed.is_symlink()
    # its parents are kept because of it: said once, not once per folder up to ~/.local
    assert "holds files the install did not make" not in out


def test_a_file_name_with_a_new_line_cannot_make_uninstall_delete_another_file(tmp_path, home):
    bundle = fake_bundle(tmp_path)
    (bundle / "x\nf precious").write_text("bundle")
    (bundle / "_internal" / "x\nd .").mkdir()
    precious = home / "precious"
    precious.write_text("the user's")
    before = snapshot(home)
    run(bundle / "install.sh", home, cwd=home)
    assert (home / ".local" / "lib" / "brickyard" / "x\nf precious").read_text() == "bundle"
    run(home / ".local" / "lib" / "brickyard" / "install.sh", home, "--uninstall", cwd=home)
    assert precious.read_text() == "the user's"
    assert snapshot(home) == before


def test_a_refused_install_writes_nothing_and_names_every_place_in_the_way(tmp_path, home):
    bundle = fake_bundle(tmp_path)
    icon = home / ".local" / "share" / "icons" / "hicolor" / "48x48" / "apps" / "brickyard.png"
    icon.parent.mkdir(parents=True)
    icon.write_bytes(b"the user's icon")
    gui = home / ".local" / "bin" / "brickyard-gui"
    gui.symlink_to("/nowhere")
    before = snapshot(home)
    result = run(bundle / "install.sh", home, check=False)
    assert result.returncode == 1
    assert "nothing was installed" in result.stderr
    assert f"{icon} exists and was not made by this script" in result.stderr
    assert f"{gui} exists and was not made by this script" in result.stderr
    assert snapshot(home) == before


def test_a_file_in_the_way_of_a_folder_refuses_the_install_before_anything_is_written(tmp_path, home):
    bundle = fake_bundle(tmp_path)
    (home / ".local" / "share" / "icons").write_text("not a folder")
    before = snapshot(home)
    result = run(bundle / "install.sh", home, check=False)
    assert result.returncode == 1 and "is in the way" in result.stderr
    assert snapshot(home) == before


@pytest.mark.parametrize("name", ["a|b", "it's & \"quoted\" $HOME `x` \\ 100%", "sp ace"])
def test_install_into_a_home_with_shell_and_sed_characters(tmp_path, name):
    home = tmp_path / name
    home.mkdir()
    before = snapshot(home)
    bundle = fake_bundle(tmp_path)
    run(bundle / "install.sh", home)
    prefix = home / ".local" / "lib" / "brickyard"
    entry = desktop_entry(home / ".local" / "share" / "applications" / "brickyard.desktop")
    assert entry["TryExec"] == str(prefix / "brickyard-gui")
    argv = exec_argv(entry, "/tmp/x.json")
    assert argv == [str(prefix / "brickyard-gui"), "/tmp/x.json"]
    subprocess.run(argv, env={"HOME": str(home), "PATH": os.environ["PATH"]}, check=True, timeout=30)
    (home / "started").unlink()
    run(prefix / "install.sh", home, "--uninstall")
    assert snapshot(home) == before


def failing_tool(tmp_path: Path, name: str, body: str) -> str:
    """A PATH whose NAME runs BODY (then the real one), to stop an install at that step."""
    tools = tmp_path / "tools"
    tools.mkdir(exist_ok=True)
    real = shutil.which(name)
    (tools / name).write_text(f"#!/bin/bash\n{body}\nexec {real} \"$@\"\n")
    (tools / name).chmod(0o755)
    return f"{tools}:{os.environ['PATH']}"


def test_an_install_that_fails_half_way_removes_what_it_made(tmp_path, home):
    bundle = fake_bundle(tmp_path)
    before = snapshot(home)
    path = failing_tool(tmp_path, "chmod", 'case "$*" in *brickyard.desktop*) echo "No space left on device" >&2; exit 1;; esac')
    result = run(bundle / "install.sh", home, check=False, path=path)
    assert result.returncode == 1 and "removing what it had made" in result.stderr
    assert snapshot(home) == before


def test_an_install_killed_half_way_can_be_uninstalled(tmp_path, home):
    bundle = fake_bundle(tmp_path)
    before = snapshot(home)
    path = failing_tool(tmp_path, "chmod", 'case "$*" in *brickyard.desktop*) kill -9 $PPID; exit 1;; esac')
    result = run(bundle / "install.sh", home, check=False, path=path)
    assert result.returncode != 0
    assert (home / ".local" / "bin" / "brickyard").is_symlink()     # it was stopped after the commands
    out = run(home / ".local" / "lib" / "brickyard" / "install.sh", home, "--uninstall").stdout
    assert "uninstalled" in out
    assert snapshot(home) == before
    result = run(bundle / "install.sh", home)      # and a new install goes ahead
    assert "Brickyard installed" in result.stdout


def test_replacing_an_install_holding_the_users_files_is_refused_before_anything_changes(tmp_path, home):
    bundle = fake_bundle(tmp_path)
    run(bundle / "install.sh", home)
    plugin = home / ".local" / "lib" / "brickyard" / "site-packages" / "my_plugin.py"
    plugin.write_text("# mine")
    before = snapshot(home)
    result = run(bundle / "install.sh", home, check=False)
    assert result.returncode == 1 and "cannot be replaced whole; nothing was changed" in result.stderr
    assert f"{plugin.parent}: holds files the install did not make" in result.stderr
    assert snapshot(home) == before
