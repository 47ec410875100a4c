"""The user guide (``resources/guide/NN-*.md``) and the README say what to type and where things
are; this checks every such line against Brickyard itself, so the guide cannot drift:

- every ``brickyard …`` command line names real commands and options (``brickyard SUB --help``
  lists each option; an option's listed choices hold each alternative the guide gives); the
  lines that need no cluster and change nothing are run as written, and what their comment
  says they print is printed;
- every script the guide runs exists and takes the words it is given;
- every path names something real: a file of this repository, a folder in your home that
  Brickyard's own code computes, a file the sandbox makes, or a path the code names;
- every link between chapters reaches a chapter and a heading in it.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from brickyard.ui.frame import guide_text

ROOT = Path(__file__).resolve().parents[2]
GUIDE = guide_text.guide_dir(ROOT)
DOCS = [ROOT / "README.md", *sorted(GUIDE.glob(guide_text.CHAPTER_GLOB))]
PACKAGE = ROOT / "app" / "brickyard"
SHIPPED_SOURCES = [*PACKAGE.rglob("*.py"), *(ROOT / "plugins").rglob("*.py"), *(ROOT / "packaging").iterdir(), *(ROOT / "benchmarks").glob("*.py"),
                   *(ROOT / "scripts").iterdir()]

_FENCE = re.compile(r"^\s*```")
_SPAN = re.compile(r"`([^`]+)`")
_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
_IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")


# ---- reading the documents ----------------------------------------------------------------
@functools.cache
def pieces(doc: Path) -> tuple[list[str], list[str]]:
    """(inline code spans, whitespace collapsed; lines of fenced code, comments kept)."""
    spans, block_lines, prose, fence = [], [], [], False
    for line in doc.read_text(encoding="utf-8").split("\n"):
        if _FENCE.match(line):
            fence = not fence
            prose.append("")
        elif fence:
            block_lines.append(line)
        else:
            prose.append(line)
    spans = [" ".join(m.group(1).split()) for m in _SPAN.finditer("\n".join(prose))]
    return spans, block_lines


def command_lines() -> list[tuple[str, str, str]]:
    """(document, command line, what its comment says) for every ``brickyard``/``brickyard-gui``
    line: inline code (a comment of ``-``: named in a sentence) and lines of code blocks (lines
    to paste; the comment beside or under one is what it prints)."""
    found = []
    for doc in DOCS:
        spans, block_lines = pieces(doc)
        for text in spans:
            if text.split()[0] in ("brickyard", "brickyard-gui"):
                found.append((doc.name, text, "-"))
        comment_for = None
        for raw in block_lines:
            line, _, comment = raw.partition("#") if not raw.lstrip().startswith("#") else ("", "", raw.lstrip("# "))
            words = line.split()
            if words and words[0] in ("brickyard", "brickyard-gui"):
                found.append((doc.name, " ".join(words), comment.strip()))
                comment_for = len(found) - 1
            elif not words and comment and comment_for is not None:
                doc_name, text, said = found[comment_for]   # a comment line under a command: what it prints
                found[comment_for] = (doc_name, text, (said + " " + comment).strip())
    return found


def _words_of(line: str) -> list[str]:
    try:
        return shlex.split(line)
    except ValueError:
        return line.split()


def is_placeholder(word: str) -> bool:
    """FILE, NAME, RUN…, ID,ID…, HOST:PATH, k=v …, [--x]: what the reader fills in."""
    bare = word.strip("[]")
    return bool(re.fullmatch(r"[A-Z][A-Z0-9_.,:/|…-]*…?", bare)) or "…" in bare or bare in ("k=v",)


# ---- running brickyard ----------------------------------------------------------------------
def _executable(name: str) -> str:
    beside = Path(sys.executable).with_name(name)
    return str(beside) if beside.exists() else name


@functools.cache
def profile() -> dict[str, str]:
    """A throwaway HOME: nothing the guide's commands run touches the tester's own files."""
    import tempfile

    home = Path(tempfile.mkdtemp(prefix="guide-profile-"))
    env = dict(os.environ, HOME=str(home), XDG_CONFIG_HOME=str(home / "config"), XDG_DATA_HOME=str(home / "data"),
               XDG_STATE_HOME=str(home / "state"), XDG_CACHE_HOME=str(home / "cache"), QT_QPA_PLATFORM="offscreen",
               COLUMNS="200")
    for name in ("BRICKYARD_DB", "BRICKYARD_SSH_CONFIG", "BRICKYARD_PLUGINS", "BRICKYARD_LOCK_DIR"):
        env.pop(name, None)
    return env


def run(argv: list[str], timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([_executable(argv[0]), *argv[1:]], capture_output=True, text=True, timeout=timeout,
                          cwd=ROOT, env=profile())


@functools.cache
def help_of(*command: str) -> str:
    """``brickyard COMMAND… --help``; fails the test when that is not a command."""
    proc = run([*command, "--help"])
    assert proc.returncode == 0, f"`{' '.join(command)} --help` exits {proc.returncode}: {proc.stderr.strip()}"
    return proc.stdout


def command_path(words: list[str]) -> list[str]:
    """``brickyard lab up 4 --x`` -> ["brickyard", "lab", "up"]: the words that name a command."""
    path = words[:1]
    for word in words[1:]:
        if not re.fullmatch(r"[a-z][a-z-]*", word):
            break
        usage = help_of(*path).split("\n\n")[0]
        listed = re.findall(r"[{ ]([a-z][a-z-]*(?:[,|][a-z][a-z-]*)+)[} ]", usage)
        choices = {c for group in listed for c in re.split(r"[,|]", group)}
        choices |= set(re.findall(r"^ {4}([a-z][a-z-]*)\s", help_of(*path), re.M))
        if word not in choices:
            break
        path.append(word)
    return path


def bundle_entry_words() -> set[str]:
    """What the bundle's executable takes beside the CLI's commands (packaging/entry.py)."""
    text = (ROOT / "packaging" / "entry.py").read_text()
    return {word for word in ("gui", "--self-test") if f'"{word}"' in text}


# ---- commands -----------------------------------------------------------------------------
COMMAND_LINES = command_lines()


def test_the_guide_names_brickyard_command_lines_at_all():
    assert len(COMMAND_LINES) > 40
    assert {doc for doc, _, _ in COMMAND_LINES} >= {"README.md", "04-reaching-the-cluster.md", "07-benchmarks.md"}


@pytest.mark.parametrize("doc,line,_said", COMMAND_LINES, ids=[f"{d}:{line[:60]}" for d, line, _ in COMMAND_LINES])
def test_every_brickyard_command_line_names_real_commands_and_options(doc, line, _said):
    words = _words_of(line)
    if words[0] == "brickyard" and len(words) > 1 and words[1] in bundle_entry_words():
        return                                               # the bundle's own words: entry.py takes them
    path = command_path(words)
    if len(words) > len(path) and is_placeholder(words[len(path)]):   # `brickyard COMMAND --help`, `brickyard-gui [FILE]`
        placeholder = words[len(path)].strip("[]…")
        assert placeholder.lower() in help_of(*path).split("\n\n")[0].lower(), f"{doc}: `{line}`: {' '.join(path)} takes no {placeholder}"

    text = help_of(*path)
    for word in words[len(path):]:
        for option in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", word):
            if option not in text:
                source = _command_source(path)
                assert f'"{option}"' in source, f"{doc}: `{line}`: {' '.join(path)} has no option {option}"
    # `--type distribute|replicate|…`: every alternative is one of the option's choices
    for option, alternatives in re.findall(r"(--[a-z-]+)[ =]([a-z0-9][a-z0-9-]*(?:\|[a-z0-9][a-z0-9.-]*)+)", line):
        listed = re.search(re.escape(option) + r" \{([^}]*)\}", text)
        known = set(listed.group(1).split(",")) if listed else _values_for(path, option)
        for alternative in alternatives.split("|"):
            assert alternative in known, f"{doc}: `{line}`: {option} takes no {alternative} (it takes {sorted(known)})"


def _command_source(path: list[str]) -> str:
    """The source of a command's module (an option hidden from --help is still defined there)."""
    if path[0] == "brickyard-gui":
        return (PACKAGE / "ui" / "frame" / "app.py").read_text()
    from brickyard.cli import COMMANDS

    module = COMMANDS[path[1]].module if len(path) > 1 and path[1] in COMMANDS else "brickyard.cli"
    return (ROOT / "app" / (module.replace(".", "/") + ".py")).read_text()


def _values_for(path: list[str], option: str) -> set[str]:
    if path[:2] == ["brickyard", "bench"] and option == "--workload":
        listing = run(["brickyard", "bench", "--list"])
        return set(re.findall(r"^([\w-]+):?\s", listing.stdout, re.M))
    return set()


def concrete(line: str) -> bool:
    """A line the reader can paste as it is: no placeholder, every file it names is here."""
    words = _words_of(line)
    if any(is_placeholder(w) or w.startswith("[") for w in words):
        return False
    files = [w for w in words if w.endswith((".json", ".pdf", ".html")) or "/" in w]
    return all((ROOT / w).exists() for w in files if not w.endswith((".pdf", ".html")))


#: commands that need no cluster, no root and change nothing (in a throwaway profile)
READ_ONLY = {("plan",), ("campaign", "--list"), ("bench", "--list"), ("decision",), ("history", "list")}


def _read_only(words: list[str]) -> bool:
    return any(words[1:1 + len(key)] == list(key) or (key[0] == words[1] and key[1:] and key[1] in words)
               for key in READ_ONLY if len(words) > 1) or "--dry-run" in words


def test_the_guides_ready_to_paste_commands_that_change_nothing_run_and_print_what_it_says():
    ran = []
    for doc, line, said in COMMAND_LINES:
        words = _words_of(line)
        if words[0] != "brickyard" or not concrete(line) or not _read_only(words) \
                or len(words) == len(command_path(words)):          # `brickyard plan` in a sentence names it
            continue
        proc = run(words)
        if said == "-" and proc.returncode == 2 and re.search(r"required|give --", proc.stderr):
            continue      # named in a sentence without its input (`brickyard provision --dry-run` prints …)
        assert proc.returncode == 0, f"{doc}: `{line}` exits {proc.returncode}: {proc.stderr.strip()}"
        # the figures the comment gives (not those it quotes: "154 TB" is the write-up's)
        for figure in re.findall(r"\d[\d,.]*\s*(?:TB|TiB|GB|GiB|MB/s|GB/s)", re.sub(r'"[^"]*"', "", said)):
            assert figure in proc.stdout, f"{doc}: `{line}` is said to print {figure!r}:\n{proc.stdout}"
        ran.append(line)
    # the eight-RAID-5 plan of the NFS-to-GlusterFS write-up and the campaign list at least
    assert any(line.startswith("brickyard plan resources/examples/eight-node-raid5") for line in ran), ran
    assert "brickyard campaign --list" in ran, ran


# ---- scripts -------------------------------------------------------------------------------
def script_lines() -> list[tuple[str, list[str]]]:
    found = []
    for doc in DOCS:
        spans, block_lines = pieces(doc)
        for text in [*spans, *(line.partition("#")[0] for line in block_lines)]:
            words = _words_of(text)
            if words and (words[0] == "bash" or "/" in words[0] and words[0].endswith(".sh")
                          or words[0].startswith(".venv/bin/")):
                found.append((doc.name, words))
    return found


SCRIPT_LINES = script_lines()


def test_every_script_the_guide_runs_exists_and_takes_the_words_it_is_given():
    assert len(SCRIPT_LINES) >= 6
    build = (ROOT / "packaging" / "build.sh").read_text()
    for doc, words in SCRIPT_LINES:
        if words[0] == "bash":
            words = words[1:]
        script, args = words[0], words[1:]
        if script.startswith(".venv/bin/"):            # .venv/bin/python benchmarks/NAME.py
            assert script in (".venv/bin/python", ".venv/bin/brickyard", ".venv/bin/brickyard-gui"), (doc, words)
            assert (ROOT / "benchmarks").is_dir() and list((ROOT / "benchmarks").glob("*.py")), (doc, words)
            continue
        if script.startswith("dist/brickyard/") or script.startswith("~/.local/lib/brickyard/"):
            name = Path(script).name                       # made by packaging/build.sh from packaging/NAME
            assert name in build and (ROOT / "packaging" / name).is_file(), (doc, words)
            source = (ROOT / "packaging" / name).read_text()
        else:
            assert (ROOT / script).is_file(), f"{doc}: {script} is not in the repository"
            source = (ROOT / script).read_text()
            syntax = subprocess.run(["bash", "-n", str(ROOT / script)], capture_output=True, text=True)
            assert syntax.returncode == 0, (script, syntax.stderr)
        for arg in args:
            if arg.startswith("-"):
                assert arg in source, f"{doc}: {script} takes no {arg}"
            elif not is_placeholder(arg) and not arg.startswith("#"):
                assert re.search(rf"(^|[\s|(\"']){re.escape(arg)}[)|\"']", source, re.M), \
                    f"{doc}: {script} has no '{arg}' case"


# ---- paths ---------------------------------------------------------------------------------
def path_spans() -> list[tuple[str, str]]:
    """(document, path) for every inline code span that is a path: a folder or file of this
    repository, of your home (``~/``), of a host or the sandbox (``/…``), or a bare file name."""
    found = []
    for doc in DOCS:
        spans, _ = pieces(doc)
        for text in spans:
            if " " in text or "://" in text or text.startswith(("-", "brickyard")):
                continue
            host, sep, rest = text.partition(":")
            if sep and re.fullmatch(r"[a-z][a-z0-9-]*", host) and rest.startswith("/"):
                text = rest                                       # client1:/dev/shm, local:/var/tmp/x
            if "/" in text or re.fullmatch(r"[\w.-]+\.(py|json|sh|txt|md|desktop|sqlite3|log|ini|spec)", text):
                found.append((doc.name, text))
        text = doc.read_text(encoding="utf-8")
        found += [(doc.name, target) for target in _LINK.findall(text) + _IMAGE.findall(text)
                  if "://" not in target and not target.startswith("#")]
    return found


PATHS = path_spans()
TOP_LEVEL = {p.name for p in ROOT.iterdir()} - {".git", ".venv"}
SUBPACKAGES = {p.name for p in PACKAGE.iterdir()}


def _repo_path(doc: str, text: str) -> Path | None:
    """Where a relative path of the guide lies in the repository (None: not a repository path)."""
    text = text.split("#")[0]
    base = GUIDE if doc != "README.md" else ROOT
    if text.startswith("../"):
        return (base / text).resolve()
    first = text.split("/")[0]
    if first in TOP_LEVEL:
        return ROOT / text
    if first in SUBPACKAGES or first.removesuffix(".py") in SUBPACKAGES:
        return PACKAGE / text
    if doc != "README.md" and text.endswith(".md") and "/" not in text:
        return GUIDE / text
    return None


def _exists(path: Path) -> bool:
    if any(ch in str(path) for ch in "*?"):
        return bool(list(path.parent.glob(path.name)))
    return path.exists() or path.with_suffix(".py").exists()


def test_every_repository_path_and_link_the_guide_names_exists():
    checked = 0
    for doc, text in PATHS:
        if text.startswith(("~", "/", "dist/", "PATH/")):
            continue
        if "/" not in text and not (doc != "README.md" and text.split("#")[0].endswith(".md")):   # a bare file name
            named = any(p.name == text for p in ROOT.rglob(text) if ".venv" not in p.parts and ".git" not in p.parts)
            assert named or _named_in_sources(text), f"{doc}: no file {text} in the repository, and the code names none"
            checked += 1
            continue
        path = _repo_path(doc, text)
        assert path is not None, f"{doc}: {text} is neither a path of this repository nor one the code makes"
        assert _exists(path), f"{doc}: {text} does not exist ({path})"
        anchor = text.partition("#")[2]
        if anchor and path.suffix == ".md":
            chapter = guide_text.parse_chapter(path)
            assert chapter.section(anchor) is not None, f"{doc}: {path.name} has no heading #{anchor}"
        checked += 1
    assert checked > 60


def test_the_readme_links_every_chapter_and_every_chapter_opens_with_its_title():
    readme = (ROOT / "README.md").read_text()
    chapters = guide_text.load_chapters(GUIDE)
    assert len(chapters) >= 10
    for chapter in chapters:
        assert f"](resources/guide/{chapter.name})" in readme, f"README does not list {chapter.name}"
        assert chapter.sections[0].level == 1 and chapter.sections[0].first_line == 0, chapter.name
    # the landing page stays a landing page: the guide's text lives in the chapters
    assert len(readme.splitlines()) < 150


@functools.cache
def _sources_text() -> str:
    return "\n".join(p.read_text(errors="replace") for p in SHIPPED_SOURCES if p.is_file())


def _named_in_sources(text: str) -> bool:
    """``text`` appears in Brickyard's shipped code (placeholders PID, DEV, N, <…>, {…}, *, …
    match anything there)."""
    pattern = ""
    for piece in re.split(r"(PID|DEV|N(?=/)|<[^>]*>|\{[^}]*\}|\*|…)", text):
        if piece in ("PID", "DEV", "N", "*", "…") or piece.startswith(("<", "{")):
            pattern += r"[^\s\"']{0,40}?"
        else:
            pattern += re.escape(piece)
    return re.search(pattern, _sources_text()) is not None


def home_paths(home: Path) -> dict[str, Path]:
    """What Brickyard's own code computes for a user whose home is ``home``."""
    from brickyard.bench.hostlock import lock_dir
    from brickyard.bench.registry import user_plugin_dir
    from brickyard.core import applog, paths
    from brickyard.core.settings import settings_path
    from brickyard.remote.hostkeys import brickyard_known_hosts
    from brickyard.store.settings import default_db_url

    made = {
        "config": paths.user_config_dir(), "data": paths.user_data_dir(), "cache": paths.user_cache_dir(),
        "log": applog.log_path(), "settings": settings_path(), "plugins": user_plugin_dir(), "locks": lock_dir(),
        "known_hosts": brickyard_known_hosts(), "history": Path(default_db_url().removeprefix("sqlite:///")),
        "baseline": paths.user_cache_dir() / "baseline", "ssh": home / ".ssh" / "config",
    }
    from brickyard.remote.connection import DEFAULT_KEY_FILES
    from brickyard.remote.sshoptions import USER_KNOWN_HOSTS

    made.update({f"key {name}": home / ".ssh" / name for name in DEFAULT_KEY_FILES})   # OpenSSH's default keys
    made.update({f"known {name}": Path(name.replace("~", str(home), 1)) for name in USER_KNOWN_HOSTS})
    return made


def test_every_path_in_your_home_the_guide_names_is_where_brickyard_keeps_it(monkeypatch, tmp_path):
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    for env in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "BRICKYARD_LOCK_DIR",
                "BRICKYARD_KNOWN_HOSTS", "BRICKYARD_PLUGINS"):
        monkeypatch.delenv(env, raising=False)
    made = set(home_paths(home).values())
    install = (ROOT / "packaging" / "install.sh").read_text()
    old = (PACKAGE / "ui" / "frame" / "profile.py").read_text()
    welcome = (PACKAGE / "ui" / "frame" / "welcome.py").read_text()
    for doc, text in PATHS:
        if not text.startswith("~/"):
            continue
        path = home / text[2:].rstrip("/")
        tail = text[2:].rstrip("/")
        if path in made or path.parent in made and _named_in_sources(f'"{path.name}"'):
            continue
        if "*" in tail and any(fnmatch.fnmatch(str(m), str(path)) for m in made):      # ~/.ssh/id_*
            continue
        # what install.sh makes: ~/.local/lib/brickyard, ~/.local/bin, the menu entry, the icons
        made_by_install = {".local/lib/brickyard": '$home/.local/lib/brickyard', ".local/bin": '$home/.local/bin',
                           ".local/share/applications": '$data/applications', ".local/share/icons": '$data/icons'}
        folder = next((f for f in made_by_install if tail == f or tail.startswith(f + "/")), None)
        if folder is not None:
            assert made_by_install[folder] in install and tail.split("/")[-1] in install, \
                f"{doc}: packaging/install.sh makes no {text}"
            continue
        # the places older versions kept things (moved once at start: ui/frame/profile.py)
        if "Brickyard/Brickyard" in tail and "Brickyard/Brickyard" in old:
            continue
        raise AssertionError(f"{doc}: {text} is not where Brickyard keeps anything "
                             f"(its code computes {sorted(str(p).replace(str(home), '~') for p in made)})"
                             + (" — the welcome view's folder is in ui/frame/welcome.py" if "baseline" in welcome else ""))


#: paths of the admin's own choosing the guide gives as examples (nothing of Brickyard's)
EXAMPLE_PATHS = {
    "/mnt/gluster/brickyard": "a brick directory on a real disk, chosen by the admin",
    "/var/tmp/x": "a baseline directory the admin types",
    "/var/tmp/base": "a baseline as a run label shows it",
}


def test_every_path_on_a_host_the_guide_names_is_one_brickyard_or_the_sandbox_uses():
    from brickyard.lab.config import DEFAULT_DIR, LabSpec, plan_lab

    lab = plan_lab(LabSpec(nodes=4))
    lab_files = {lab.ssh_config, lab.known_hosts, lab.state_file, lab.topology_file, DEFAULT_DIR}
    bricks = {p for m in lab.servers for b in m.bricks for p in (b.mount, b.path)}
    checked = 0
    for doc, text in PATHS:
        if not text.startswith("/"):
            continue
        checked += 1
        bare = text.rstrip("/")
        if Path(bare) in lab_files or bare in bricks or bare in EXAMPLE_PATHS:
            continue
        if bare.startswith(str(DEFAULT_DIR)):
            raise AssertionError(f"{doc}: the sandbox makes no {text} (it makes {sorted(map(str, lab_files))})")
        if re.fullmatch(r"/srv/brickN/brick", bare):                       # every brick of the sandbox
            assert all(re.fullmatch(r"/srv/brick\d+/brick", b) for b in bricks if b.endswith("/brick"))
            continue
        assert _named_in_sources(bare) or _named_in_sources(bare.rsplit("/", 1)[0] + "/"), \
            f"{doc}: {text} is named nowhere in Brickyard's code, the sandbox or the example list"
    assert checked > 15
