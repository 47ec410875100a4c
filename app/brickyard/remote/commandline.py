"""How a plan's commands are shown to a person: the dry run of the CLI and of the app alike.

Each command is one ``shlex``-quoted line as the user could paste it after ``ssh HOST``.
Brickyard's fixed helper scripts (run as ``sh -c SCRIPT sh VALUE...``) are shown once, first,
each with its name, what it does and its whole text; a step that runs one shows the script's
name with each value beside the variable the script reads it into
(``MKDIR_BRICK p=/srv/brick1/gv0 v=gv0``), so the admin reads exactly what happens to that
host without decoding ``$1``/``$2`` or a ``sh -c "$NAME"`` that means nothing on the host.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from . import changeread as _changeread, provision as _provision, teardown as _teardown
from .steps import RunReport

# the variables a script reads its arguments into, from its first line: p="$1"; f="${2:-/etc/fstab}"
_PARAM = re.compile(r'(\w+)="\$(?:(\d)|\{(\d):-[^}]*\})"')


@dataclass(frozen=True)
class Helper:
    """One of Brickyard's fixed scripts: its name in a dry run, what it does, its text."""

    name: str
    purpose: str
    text: str

    @property
    def params(self) -> list[str]:
        """The variables the script puts its arguments in, in order ($1, $2, …)."""
        first = next((line for line in self.text.strip().splitlines() if line.strip()), "")
        found = sorted((int(a or b), name) for name, a, b in _PARAM.findall(first))
        return [name for _, name in found]


HELPERS = (
    Helper("MKDIR_BRICK", "create brick directory $p (and its missing parents) unless it is a directory already, "
           "and write the marker PARENT/.NAME.brickyard-created beside it naming $p, the top directory it made "
           "and volume $v (teardown removes only what such a marker names)", _provision.MKDIR_SCRIPT),
    Helper("MOUNT_VOLUME", "create mount point $dst if it is missing (with a marker, as for a brick), then "
           "mount -t glusterfs [-o $opts] $src $dst", _provision.MOUNT_SCRIPT),
    Helper("FSTAB_ADD", "append the line $line to /etc/fstab unless that exact line is there",
           _provision.FSTAB_ADD_SCRIPT),
    Helper("REMOVE_IF_OURS", "remove $p only if its marker says Brickyard created it for volume $want (with "
           "mode=empty only while it is empty and nothing is mounted on it), then the parents it made while "
           "they are empty; anything else is kept and said so", _teardown.RMBRICK_SCRIPT),
    Helper("FSTAB_REMOVE", "remove the exact line $line from /etc/fstab ($f when given): the rest is written "
           "to a new file beside it with its mode and owner, then renamed over it", _teardown.FSTAB_REMOVE_SCRIPT),
    Helper("FILES_LEFT", "list (read-only, at most 50) the data files still on retiring brick $b: regular files "
           "outside .glusterfs that are not gluster's 0-byte link files", _changeread.LEFTOVER_SCRIPT),
    Helper("HEAL_INDEX_COUNT", "count (read-only) the entries waiting in brick $b's self-heal indices "
           "(xattrop, dirty, entry-changes)", _changeread.INDEX_COUNT_SCRIPT),
)
_BY_TEXT = {h.text: h for h in HELPERS}
_BY_NAME = {h.name: h for h in HELPERS}


def helper_of(argv: list[str]) -> Helper | None:
    """The Brickyard script ``argv`` runs (``sh -c SCRIPT sh ARG…``), or None."""
    return _BY_TEXT.get(argv[2]) if len(argv) >= 4 and argv[:2] == ["sh", "-c"] and argv[3] == "sh" else None


def display_command(argv: list[str], scripts: dict[str, str]) -> str:
    """One command line; a Brickyard script is shown as its name and its values, each beside
    the variable it goes into, and is added to ``scripts`` (name → text)."""
    helper = helper_of(argv)
    if helper is None:
        return shlex.join(argv)
    scripts[helper.name] = helper.text
    values = argv[4:]
    names = helper.params
    words = [f"{names[i]}={shlex.quote(value)}" if i < len(names) else shlex.quote(value)
             for i, value in enumerate(values)]
    return " ".join([helper.name, *words])


def ssh_line(host: str, argv: list[str], scripts: dict[str, str]) -> str:
    """What the dry run prints for one command: ``ssh HOST COMMAND``."""
    return f"ssh {host} {display_command(argv, scripts)}"


SCRIPTS_INTRO = ("# Brickyard's scripts: a line `NAME var=VALUE …` runs the script NAME shown here as "
                 "`sh -c TEXT sh VALUE…` (the text is fixed; each value is passed as an argument, data "
                 "never read as shell, and the script's first line puts it in that variable)")


def script_lines(scripts: dict[str, str]) -> list[str]:
    """The scripts a dry run used: an introduction, then each one's name, variables, purpose
    and whole text as comment lines."""
    if not scripts:
        return []
    lines = [SCRIPTS_INTRO]
    for name, body in scripts.items():
        lines.append(f"# {script_heading(name)}")
        lines.extend(f"#   {line}" for line in body.strip().splitlines())
    return lines


def script_heading(name: str) -> str:
    """``NAME var…: what it does`` for one of Brickyard's scripts."""
    helper = _BY_NAME.get(name)
    return f"{name} {' '.join(helper.params)}: {helper.purpose}" if helper is not None else f"{name}:"


def dry_run_lines(report: RunReport) -> list[str]:
    """The whole dry run as text: the scripts it uses, every step's commands per host, the notes."""
    scripts: dict[str, str] = {}
    steps: list[str] = []
    for outcome in report.outcomes:
        step = outcome.step
        steps.append(f"# {step.host}: {step.title}")
        steps.extend(ssh_line(step.host, argv, scripts) for argv in step.commands)
    lines = [f"# {report.action} {report.subject}: dry run, nothing was run "
             "(commands run as root: through `sudo -n` when the SSH user is not root)"]
    lines.extend(script_lines(scripts))
    lines.extend(steps)
    lines.extend(f"# {note}" for note in report.notes)
    return lines
