"""How a plan's commands are shown to a person: the dry run of the CLI and of the app alike.

Each command is one ``shlex``-quoted line as the user could paste it after ``ssh HOST``.
Brickyard's fixed helper scripts (``sh -c SCRIPT sh ARG...``) are named instead of inlined
(``sh -c "$MKDIR_BRICK" /srv/brick1/gv0 gv0``) and each body is shown once at the end.
"""

from __future__ import annotations

import shlex

from . import provision as _provision, teardown as _teardown
from .steps import RunReport

HELPER_SCRIPTS = {
    _provision.MKDIR_SCRIPT: "MKDIR_BRICK", _provision.MOUNT_SCRIPT: "MOUNT_VOLUME",
    _provision.FSTAB_ADD_SCRIPT: "FSTAB_ADD", _teardown.RMBRICK_SCRIPT: "REMOVE_IF_OURS",
    _teardown.FSTAB_REMOVE_SCRIPT: "FSTAB_REMOVE",
}


def display_command(argv: list[str], scripts: dict[str, str]) -> str:
    """One command line; a Brickyard helper script is named here and added to ``scripts``."""
    name = HELPER_SCRIPTS.get(argv[2]) if len(argv) >= 3 and argv[:2] == ["sh", "-c"] else None
    if name is None:
        return shlex.join(argv)
    scripts[name] = argv[2]
    return f'sh -c "${name}" ' + shlex.join(argv[3:])


def ssh_line(host: str, argv: list[str], scripts: dict[str, str]) -> str:
    """What the dry run prints for one command: ``ssh HOST COMMAND``."""
    return f"ssh {host} {display_command(argv, scripts)}"


def script_lines(scripts: dict[str, str]) -> list[str]:
    """The helper scripts a dry run named, each body as comment lines."""
    lines = []
    for name, body in scripts.items():
        lines.append(f"# ${name} (a fixed Brickyard helper; the arguments after it are quoted data):")
        lines.extend(f"#   {line}" for line in body.strip().splitlines())
    return lines


def dry_run_lines(report: RunReport) -> list[str]:
    """The whole dry run as text: every step's commands per host, the helpers, the notes."""
    lines = [f"# {report.action} {report.subject}: dry run, nothing was run "
             "(commands run as root: through `sudo -n` when the SSH user is not root)"]
    scripts: dict[str, str] = {}
    for outcome in report.outcomes:
        step = outcome.step
        lines.append(f"# {step.host}: {step.title}")
        lines.extend(ssh_line(step.host, argv, scripts) for argv in step.commands)
    lines.extend(script_lines(scripts))
    lines.extend(f"# {note}" for note in report.notes)
    return lines
