"""The dry run shows the commands as they will run (issue 21 point 12): a step that runs one of
Brickyard's scripts reads as the script's name with each value beside the variable the script
puts it in, and the script's whole text is shown once, before the first step that runs it —
not ``sh -c "$MKDIR_BRICK" sh /srv/brick1/vrep vrep`` with the text somewhere below."""

from __future__ import annotations

import re
import shlex

import pytest

from brickyard.remote import changeread
from brickyard.remote.commandline import HELPERS, display_command, dry_run_lines, helper_of, script_lines
from brickyard.remote.provision import provision_plan
from brickyard.remote.steps import dry_run
from brickyard.remote.teardown import teardown_plan

from .test_provision import vrep_topology


def _plans():
    topo = vrep_topology()
    yield dry_run("provision", "vrep", provision_plan(topo, "vrep", fstab=True).steps)
    yield dry_run("teardown", "vrep", teardown_plan(topo, "vrep"))


def _shown_scripts(lines: list[str]) -> dict[str, str]:
    """Each script's text as the dry run shows it, by name."""
    scripts: dict[str, list[str]] = {}
    name = None
    for line in lines:
        heading = re.match(r"^# ([A-Z_]+)( [a-z ]+)?: ", line)
        if heading:
            name = heading.group(1)
            scripts[name] = []
        elif line.startswith("#   ") and name:
            scripts[name].append(line[4:])
        else:
            name = None
    return {k: "\n".join(v) for k, v in scripts.items()}


def test_a_script_step_shows_each_value_beside_the_variable_the_script_reads_it_into():
    seen = set()
    for report in _plans():
        lines = dry_run_lines(report)
        shown = _shown_scripts(lines)
        at = 0
        for outcome in report.outcomes:
            step = outcome.step
            at = lines.index(f"# {step.host}: {step.title}", at) + 1
            for argv, line in zip(step.commands, lines[at:]):
                helper = helper_of(argv)
                if helper is None:
                    assert line == f"ssh {step.host} {shlex.join(argv)}"
                    continue
                seen.add(helper.name)
                ssh, host, name, *words = shlex.split(line)
                assert (ssh, host, name) == ("ssh", step.host, helper.name)
                # read back, the line gives exactly the arguments that run, each under its variable
                assert [w.split("=", 1)[1] for w in words] == argv[4:], line
                assert [w.split("=", 1)[0] for w in words] == helper.params[:len(argv) - 4], line
                assert shown[helper.name] == argv[2].strip()      # and the text that runs, whole
    # the change runner's read-only helpers run in no provisioning plan (tested below)
    assert seen == {h.name for h in HELPERS} - {"FILES_LEFT", "HEAL_INDEX_COUNT"}


def test_the_scripts_come_once_before_the_steps_and_no_line_is_sh_c_of_a_variable():
    for report in _plans():
        lines = dry_run_lines(report)
        first_step = next(i for i, x in enumerate(lines) if x.startswith("ssh "))
        headings = [i for i, x in enumerate(lines) if re.match(r"^# [A-Z_]+ [a-z ]+: ", x)]
        assert headings and max(headings) < first_step
        assert len({lines[i].split(" ")[1] for i in headings}) == len(headings)
        assert not any('sh -c "$' in x or "sh -c '" in x for x in lines)
    lines = dry_run_lines(next(_plans()))
    assert "ssh client1 FSTAB_ADD line='node1:/vrep /mnt/vrep glusterfs defaults,_netdev," \
           "backup-volfile-servers=node2:node3 0 0'" in lines


def test_every_script_names_all_the_arguments_it_reads():
    for helper in HELPERS:
        body = helper.text.strip().split("\n", 1)[1]
        used = {int(n) for n in re.findall(r"\$\{?(\d)", body)}
        assert helper.params and (not used or max(used) <= len(helper.params)), helper.name
        assert not re.search(r'"\$1"', body), f"{helper.name} reads $1 after naming it"


@pytest.mark.parametrize("script, name", [(changeread.LEFTOVER_SCRIPT, "FILES_LEFT"),
                                          (changeread.INDEX_COUNT_SCRIPT, "HEAL_INDEX_COUNT")])
def test_the_change_runners_helpers_are_named_not_printed_inline(script, name):
    # the change record's appendix and the change tab showed these scripts' whole text on every line
    scripts: dict[str, str] = {}
    line = display_command(["sh", "-c", script, "sh", "/srv/brick1/my vol"], scripts)
    assert line == f"{name} b='/srv/brick1/my vol'"
    assert scripts == {name: script}
    body = script_lines(scripts)
    assert body[1].startswith(f"# {name} b: ") and len(body) == 2 + len(script.strip().splitlines())
