"""The dry run of a campaign: every step of every layout with the exact commands, nothing run.

Provisioning and teardown print what ``brickyard provision/teardown --dry-run`` prints for
that layout (the same step lists: ``remote.provision`` / ``remote.teardown``); a cell prints
the ``brickyard bench`` command that measures the same; pre-flight names the hosts it
checks (read-only). Also the questions gluster would ask for each layout, which a real run
needs ``--yes`` (or the app's tick box) to accept.
"""

from __future__ import annotations

from typing import Any

from ..core.decision import plan_label
from ..core.plan import plan_volume
from ..core.units import describe_size
from ..remote.commandline import display_command, script_lines
from ..remote.preflight import preflight_hosts
from ..remote.provision import provision_plan
from ..remote.teardown import teardown_plan
from .runner import command_line
from .spec import CampaignSpec
from .state import BASELINE, CELL, PREFLIGHT, PROVISION, TEARDOWN, campaign_steps


def questions(spec: CampaignSpec, plans: dict[str, Any] | None = None) -> dict[str, list[str]]:
    """Per layout, what gluster would ask before creating it (empty lists left out);
    ``plans``: provision plans by layout already made (each layout is planned once)."""
    out = {}
    for vol in spec.layouts:
        plan = (plans or {}).get(vol.name) or provision_plan(spec.topology_for(vol.name), vol.name)
        if plan.questions:
            out[vol.name] = plan.questions
    return out


def describe(spec: CampaignSpec) -> dict[str, Any]:
    """The dry run as data: per step its title, kind, and the commands per host."""
    from .runner import CampaignRunner
    from .state import CampaignState

    runner = CampaignRunner(spec, CampaignState.fresh("dry-run", campaign_steps(spec)), None, lambda h: None)  # type: ignore[arg-type,return-value]
    scripts: dict[str, str] = {}
    provisions: dict[str, Any] = {}
    steps = []
    for step in runner.steps:
        item: dict[str, Any] = {"key": step.key, "kind": step.kind, "title": step.title, "commands": []}
        if step.kind in (BASELINE, CELL):
            req = runner.request(step)
            item["bench"] = command_line(req)
            item["targets"] = [t.text for t in req.targets]
            item["servers"] = list(req.servers)
            item["params"] = {k: v for k, v in req.params.items()}
        elif step.kind == PREFLIGHT:
            item["hosts"] = [f"{h} ({role})" for h, role in preflight_hosts(spec.topology_for(step.layout), step.layout)]
        elif step.kind in (PROVISION, TEARDOWN):
            if step.kind == PROVISION:
                if step.layout not in provisions:
                    provisions[step.layout] = provision_plan(spec.topology_for(step.layout), step.layout)
                plan_steps = provisions[step.layout].steps
            else:
                plan_steps = teardown_plan(spec.topology_for(step.layout), step.layout)
            item["commands"] = [{"host": s.host, "title": s.title,
                                 "commands": [display_command(argv, scripts) for argv in s.commands]}
                                for s in plan_steps]
        steps.append(item)
    layouts = []
    for vol in spec.layouts:
        plan = plan_volume(spec.topology_for(vol.name), vol)
        layouts.append({"name": vol.name, "layout": plan_label(plan), "gluster_type": plan.gluster_type.value,
                        "usable_bytes": plan.capacity.usable_bytes, "usable": describe_size(plan.capacity.usable_bytes),
                        "node_failures_survived": plan.tolerance.nodes_worst,
                        "options": dict(vol.options), "force": vol.force,
                        "mounts": [f"{m.client}:{m.path}" for m in vol.mounts]})
    return {"campaign": spec.name, "source": spec.source, "dry_run": True, "on_failure": spec.on_failure,
            "layouts": layouts, "questions": questions(spec, provisions), "steps": steps,
            "helper_scripts": script_lines(scripts)}


def dry_run_text(spec: CampaignSpec) -> list[str]:
    doc = describe(spec)
    lines = [f"# campaign {spec.name}: dry run, nothing was run or changed "
             "(commands run as root: through `sudo -n` when the SSH user is not root)",
             f"# on a failed cell: {spec.on_failure}"]
    for lay in doc["layouts"]:
        lines.append(f"# layout {lay['name']}: {lay['layout']}, usable {lay['usable']}, survives "
                     f"{lay['node_failures_survived']} node failure(s); mounted on {', '.join(lay['mounts'])}")
    for name, qs in doc["questions"].items():
        lines.extend(f"# gluster would ask before creating {name}: {q} (a real run needs --yes)" for q in qs)
    lines.extend(doc["helper_scripts"])     # named once, before the steps that run them
    for n, item in enumerate(doc["steps"], 1):
        lines.append(f"## step {n}/{len(doc['steps'])}: {item['title']}")
        if "bench" in item:
            lines.append(item["bench"])
        if "hosts" in item:
            lines.append("# read-only checks on " + ", ".join(item["hosts"]))
        for cmd in item["commands"]:
            lines.append(f"# {cmd['host']}: {cmd['title']}")
            lines.extend(f"ssh {cmd['host']} {c}" for c in cmd["commands"])
    return lines
