"""Campaign files: versioned JSON, read strictly like topology files (every problem with its
field path, exit 2), then checked against the topology and the workload registry so a bad
campaign stops before anything runs.

Format (``format_version`` 1)::

    {
      "format_version": 1,
      "name": "seed004-sandbox",
      "description": "...",
      "topology": "lab.brickyard.json",        # relative to this file (or --topology FILE)
      "bricks": ["node1:/srv/brick1/brick", ...],   # optional: every layout's bricks, in order
      "mounts": [{"client": "client1", "path": "/mnt/brickyard-{volume}", "options": ""}],
      "options": {"performance.write-behind": "off"},   # set on every layout's volume
      "layouts": [{"name": "dt8", "type": "distribute"},
                  {"name": "dp8rd2", "type": "disperse", "disperse": 8, "redundancy": 2, "force": true},
                  {"name": "dt4rp2", "type": "distributed-replicate", "replica": 2,
                   "options": {...}, "bricks": [...same bricks, another order...]}],
      "workloads": [{"workload": "dd", "id": "dd", "params": {"block_sizes": "1K..512M",
                                                               "concurrency": "1,8"}}],
      "repeats": 3,
      "baselines": [{"target": "client1:/var/tmp", "label": "client1's local disk"}],
      "on_failure": "stop" | "skip" | "retry",
      "link": "10Gbit"                            # optional physics bound (default: detected per client, topology NIC as fallback)
    }

- Every layout is a volume on the SAME bricks (``bricks``, default every brick of the
  topology taking one brick of each node in turn); a layout may reorder them, never change
  the set. Its volume is named after the layout and mounted as ``mounts`` says (default: on
  every client of the topology at ``/mnt/brickyard-{volume}``).
- ``repeats`` is each workload's ``repeats`` parameter (a workload's own ``params.repeats``
  wins); a cell (layout × workload) is one run.
- ``on_failure``: ``stop`` the campaign at a failed cell (tearing down the layout), ``skip``
  the cell (a layout that cannot be provisioned skips its cells) and go on, or ``retry`` a
  failed cell once and skip it if it fails again.

Writing one (the window's layouts, a campaign interleaved again) is ``campaign.specwrite``.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

from ..bench.api import ParamError, Workload
from ..bench.engine import TargetError, parse_target
from ..core import strictjson, topofile
from ..core.layout import volname_problem
from ..core.mounts import mount_field_problems
from ..core.plan import plan_volume
from ..core.strictjson import JsonFileError, Problem, Reader
from ..core.strictjson import join as _join, kind as _kind
from ..core.topofile import TopologyFileError, _read_volume
from ..core.units import UnitError, parse_link_rate
from ..core.topology import BrickRef, Mount, Topology, Volume

FORMAT_VERSION = 1
MAX_FILE_BYTES = 1 << 20      # a campaign file is a page of JSON; refuse anything much larger
FAILURE_POLICIES = ("stop", "skip", "retry")
DEFAULT_MOUNT = "/mnt/brickyard-{volume}"
# what one campaign may ask for: each layout is provisioned, measured and torn down in turn, so
# beyond these it runs for days; a file asking more is refused at once, before any planning
MAX_LAYOUTS = 100
MAX_WORKLOADS = 20
MAX_BASELINES = 20
MAX_MEASURED_RUNS = 3000       # (layouts + baselines) × workloads × repeats

_TOP = {"format_version", "name", "description", "topology", "bricks", "mounts", "options", "layouts",
        "workloads", "repeats", "baselines", "on_failure", "link"}
_LAYOUT = {"name", "type", "replica", "arbiter", "disperse", "redundancy", "options", "force", "bricks",
           "transport"}
_WORKLOAD = {"workload", "id", "params"}
_BASELINE = {"target", "label"}
_MOUNT = {"client", "path", "options"}


class CampaignFileError(JsonFileError):
    """A campaign file that cannot be used; ``problems`` lists every one found (exit 2)."""


@dataclass(frozen=True)
class WorkloadSpec:
    id: str                        # unique in the campaign: the cell's column ("dd", "dd-read")
    workload: str                  # registry name
    params: dict[str, Any]         # as written, with the campaign's repeats filled in


@dataclass(frozen=True)
class BaselineSpec:
    id: str                        # "baseline-1"
    target: str                    # "client1:/var/tmp", "local:/tmp"
    label: str


@dataclass(frozen=True)
class CampaignSpec:
    name: str
    description: str
    source: str                    # the file's absolute path ('' when built in memory)
    sha256: str                    # of the file's bytes as read (identifies "the same campaign")
    data: dict[str, Any]           # the parsed file, for storage and re-reading on resume
    topology: Topology             # the topology's machines, without volumes (see ``topology_for``)
    layouts: tuple[Volume, ...]    # one volume per layout, in the file's order
    workloads: tuple[WorkloadSpec, ...]
    baselines: tuple[BaselineSpec, ...]
    on_failure: str = "stop"
    link: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)
    _topologies: dict[str, Topology] = field(default_factory=dict, compare=False, repr=False)

    def topology_for(self, layout: str) -> Topology:
        """The topology with this one layout as its only volume: what pre-flight, provisioning,
        teardown and the planner see while that layout is up (the layouts share bricks, so
        two of them in one topology would be refused as bricks used twice)."""
        if layout not in self._topologies:
            topo = _machines(self.topology)
            topo.volumes.append(self.layout(layout))
            self._topologies[layout] = topo
        return self._topologies[layout]

    def layout(self, name: str) -> Volume:
        for v in self.layouts:
            if v.name == name:
                return v
        raise KeyError(name)

    def workload(self, wid: str) -> WorkloadSpec:
        for w in self.workloads:
            if w.id == wid:
                return w
        raise KeyError(wid)


# ---- reading a file ---------------------------------------------------------------------------

def read_file(path: str | os.PathLike) -> tuple[Any, list[Problem], str]:
    """(data, problems, sha256) of a campaign file: a regular file of at most MAX_FILE_BYTES,
    strict JSON (``core.strictjson``: no NaN/Infinity, duplicate keys, oversized numbers…)."""
    source = str(path)
    try:
        text = strictjson.read_text(path, limit=MAX_FILE_BYTES, what="campaign file")
    except JsonFileError as exc:
        raise CampaignFileError(source, exc.problems) from None
    data, problems = strictjson.parse(text)
    if data is None:
        raise CampaignFileError(source, problems)
    return data, problems, hashlib.sha256(text.encode("utf-8")).hexdigest()


def load(path: str | os.PathLike, *, topology: Topology | None = None,
         find_workload: Callable[[str], Workload] | None = None) -> CampaignSpec:
    """Read, parse and check a campaign file. ``topology`` replaces the file's ``topology``
    (``--topology FILE``); otherwise that path is read, relative to the campaign file."""
    data, problems, sha = read_file(path)
    source = str(path)
    return from_data(data, source=os.path.abspath(source), sha256=sha, topology=topology,
                     base_dir=Path(source).resolve().parent, find_workload=find_workload, problems=problems)


def load_topology(data: Any, base_dir: Path, source: str) -> Topology:
    ref = data.get("topology") if isinstance(data, dict) else None
    if not isinstance(ref, str) or not ref.strip():
        raise CampaignFileError(source, [Problem("topology", "is required: the topology file the layouts are "
                                                             "planned on (relative to this file), or give --topology")])
    problem = strictjson.text_problem(ref)      # a NUL, a lone surrogate: no file has that name
    if problem:
        raise CampaignFileError(source, [Problem("topology", problem)])
    path = Path(ref) if os.path.isabs(ref) else base_dir / ref
    try:
        return topofile.load(path)
    except TopologyFileError as exc:
        raise CampaignFileError(source, [Problem("topology", f"{ref}: {p}") for p in exc.problems]) from None


def from_data(data: Any, *, source: str = "<campaign>", sha256: str = "", topology: Topology | None = None,
              base_dir: Path | None = None, find_workload: Callable[[str], Workload] | None = None,
              problems: list[Problem] | None = None) -> CampaignSpec:
    """Check parsed campaign JSON; raises CampaignFileError listing every problem
    (``problems``: those the parser found already, reported with the rest)."""
    if problems is None:   # data built by hand or read back from the store: the same checks
        data, problems = strictjson.scan(data)
    r = Reader(problems)
    top = r.obj(data, "", _TOP, {"format_version", "name", "layouts", "workloads"})
    if top is None:
        raise CampaignFileError(source, r.problems)
    if r.integer_version(top, "format_version", [FORMAT_VERSION]) is None:
        raise CampaignFileError(source, r.problems)   # another version: the rest means something else
    too_big = _size_problems(top)
    if too_big:
        raise CampaignFileError(source, r.problems + too_big)
    if topology is None:
        topology = load_topology(top, base_dir or Path.cwd(), source)
    if find_workload is None:
        from ..bench import registry
        find_workload = registry.find
    name = r.field(top, "name", "", str, "")
    topology = _machines(topology)   # the topology's own volumes play no part in a campaign
    bricks = _bricks(r, top, topology)
    mounts = _mounts(r, top, topology)
    common = _options(r, top, "options", "")
    layouts = _layouts(r, top, topology, bricks, mounts, common)
    repeats = r.field(top, "repeats", "", int, None, minimum=1)
    if repeats is not None and repeats > 100:
        r.problem("repeats", f"must be at most 100, not {repeats}")
    workloads = _workloads(r, top, repeats, find_workload)
    baselines = _baselines(r, top, topology)
    policy = r.field(top, "on_failure", "", str, "stop")
    if policy not in FAILURE_POLICIES:
        r.problem("on_failure", f"must be one of {', '.join(FAILURE_POLICIES)}, not {policy!r}")
    link = r.field(top, "link", "", str, "")
    if link:
        try:
            parse_link_rate(link)
        except UnitError as exc:
            r.problem("link", str(exc))
    if r.problems:
        raise CampaignFileError(source, r.problems)
    topo = topology
    return CampaignSpec(name=name, description=r.field(top, "description", "", str, ""), source=source,
                        sha256=sha256 or hashlib.sha256(json.dumps(top, sort_keys=True).encode()).hexdigest(),
                        data=top, topology=topo, layouts=tuple(layouts), workloads=tuple(workloads),
                        baselines=tuple(baselines), on_failure=policy, link=link)


def _size_problems(top: dict) -> list[Problem]:
    """What makes the campaign larger than one campaign may be (``MAX_*``), read from the raw
    arrays so that a file of 20,000 layouts is refused in milliseconds."""
    def count(key: str) -> int:
        value = top.get(key)
        return len(value) if isinstance(value, list) else 0

    out = []
    layouts, workloads, baselines = count("layouts"), count("workloads"), count("baselines")
    split = "split it into several campaigns"
    for key, n, limit, what in (("layouts", layouts, MAX_LAYOUTS, "layouts"),
                                ("workloads", workloads, MAX_WORKLOADS, "workloads"),
                                ("baselines", baselines, MAX_BASELINES, "baselines")):
        if n > limit:
            out.append(Problem(key, f"{n} {what}: a campaign holds at most {limit} (each layout is provisioned, "
                                    f"measured and torn down in turn); {split}"))
    if out:
        return out
    repeats = top.get("repeats")
    default = repeats if type(repeats) is int and repeats > 0 else 1
    runs = 0
    for w in top.get("workloads") or []:
        params = w.get("params") if isinstance(w, dict) else None
        own = params.get("repeats") if isinstance(params, dict) else None
        runs += (layouts + baselines) * (own if type(own) is int and own > 0 else default)
    if runs > MAX_MEASURED_RUNS:
        out.append(Problem("", f"(layouts + baselines) × workloads × repeats = {runs} measured runs: a campaign "
                               f"holds at most {MAX_MEASURED_RUNS}; {split}, or fewer repeats"))
    return out


def _refs(r: Reader, raw: Any, path: str, topology: Topology) -> list[BrickRef] | None:
    if not isinstance(raw, list) or not raw:
        r.problem(path, f"must be a non-empty array of 'node:/path' bricks, not {_kind(raw)}")
        return None
    out = []
    for i, text in enumerate(raw):
        here = f"{path}[{i}]"
        if not isinstance(text, str):
            r.problem(here, f"must be a string 'node:/path', not {_kind(text)}")
            continue
        try:
            ref = BrickRef.parse(text)
        except ValueError as exc:
            r.problem(here, str(exc))
            continue
        if topology.brick(ref) is None:
            r.problem(here, f"{ref} is not a brick of the topology")
        elif ref in out:
            r.problem(here, f"{ref} is listed twice")
        out.append(ref)
    return out


def _bricks(r: Reader, top: dict, topology: Topology) -> list[BrickRef]:
    if "bricks" in top:
        return _refs(r, top["bricks"], "bricks", topology) or []
    per_node = [[BrickRef(n.name, b.path) for b in n.bricks] for n in topology.nodes]
    out: list[BrickRef] = []
    for i in range(max(map(len, per_node), default=0)):     # one brick of each node in turn
        out.extend(bricks[i] for bricks in per_node if i < len(bricks))
    if not out:
        r.problem("topology", "the topology has no bricks")
    return out


def _mounts(r: Reader, top: dict, topology: Topology) -> list[Mount]:
    if "mounts" not in top:
        if not topology.clients:
            r.problem("mounts", "the topology has no clients: add one (the machine the benchmarks run on)")
        return [Mount(c.name, DEFAULT_MOUNT) for c in topology.clients]
    out = []
    for i, raw in enumerate(r.array(top, "mounts", "")):
        here = f"mounts[{i}]"
        m = r.obj(raw, here, _MOUNT, {"client", "path"})
        if m is None:
            continue
        client = r.field(m, "client", here, str, "")
        path = r.field(m, "path", here, str, "")
        if client and topology.client(client) is None:
            r.problem(f"{here}.client", f"names client {client!r}, which is not in the topology")
        if path and "{volume}" not in path:
            r.problem(f"{here}.path", "must contain {volume}: each layout's volume gets its own mount point")
        options = r.field(m, "options", here, str, "")
        # the checks of the mount editor and the topology reader, on the path a layout gets
        for key, problem in mount_field_problems(path.replace("{volume}", "VOLUME"), options):
            r.problem(f"{here}.{key}", problem.replace("VOLUME", "{volume}"))
        out.append(Mount(client, path, options))
    if not out:
        r.problem("mounts", "give at least one mount: the benchmarks run on the clients that mount each layout")
    return out


def _options(r: Reader, d: dict, key: str, path: str) -> dict[str, str]:
    opts = r.field(d, key, path, dict, {}) or {}
    for k, v in opts.items():
        if not isinstance(v, str) and v is not strictjson.INVALID:
            r.problem(_join(_join(path, key), k), f"must be a string (gluster option values are text), not {_kind(v)}")
    return {k: v for k, v in opts.items() if isinstance(v, str)}


def _layouts(r: Reader, top: dict, topology: Topology, bricks: list[BrickRef], mounts: list[Mount],
             common: dict[str, str]) -> list[Volume]:
    out: list[Volume] = []
    raw_layouts = r.array(top, "layouts", "")
    if not raw_layouts and "layouts" in top and isinstance(top["layouts"], list):
        r.problem("layouts", "give at least one layout")
    names: set[str] = set()
    for i, raw in enumerate(raw_layouts):
        here = f"layouts[{i}]"
        d = r.obj(raw, here, _LAYOUT, {"name", "type"})
        if d is None:
            continue
        before = len(r.problems)
        vol = _read_volume(r, {k: v for k, v in d.items() if k != "bricks"}, here)
        own = _refs(r, d["bricks"], f"{here}.bricks", topology) if "bricks" in d else bricks
        if own is not None and "bricks" in d and sorted(own) != sorted(bricks):
            r.problem(f"{here}.bricks", "must be the campaign's bricks in another order: every layout uses the "
                                        "same bricks (that is what makes the layouts comparable)")
        problem = volname_problem(vol.name) if vol.name else None
        if problem:
            r.problem(f"{here}.name", problem)
        if vol.name in names:
            r.problem(f"{here}.name", f"duplicate layout name {vol.name!r}")
        names.add(vol.name)
        vol = replace(vol, bricks=list(own or []), options={**common, **_options(r, d, "options", here)},
                      mounts=[Mount(m.client, m.path.replace("{volume}", vol.name), m.options) for m in mounts])
        if len(r.problems) == before and own:
            plan = plan_volume(topology, vol)
            for f in plan.errors:
                r.problem(here, f"gluster would refuse this layout: {f.message}")
            if plan.needs_force and not vol.force:
                r.problem(f"{here}.force", "gluster refuses this layout without force ("
                          + "; ".join(f.message for f in plan.forced) + '); add "force": true to create it anyway')
        out.append(vol)
    return out


def _workloads(r: Reader, top: dict, repeats: int | None,
               find_workload: Callable[[str], Workload]) -> list[WorkloadSpec]:
    out: list[WorkloadSpec] = []
    raw_list = r.array(top, "workloads", "")
    if not raw_list and isinstance(top.get("workloads"), list):
        r.problem("workloads", "give at least one workload")
    for i, raw in enumerate(raw_list):
        here = f"workloads[{i}]"
        d = r.obj(raw, here, _WORKLOAD, {"workload"})
        if d is None:
            continue
        name = r.field(d, "workload", here, str, "")
        wid = r.field(d, "id", here, str, name)
        params = r.field(d, "params", here, dict, {}) or {}
        if not wid or any(c in wid for c in ": \t\n"):
            r.problem(f"{here}.id", f"{wid!r} cannot name a column: no spaces or ':'")
        if any(w.id == wid for w in out):
            r.problem(f"{here}.id", f"two workloads are called {wid!r}: give each an \"id\"")
        for k, v in params.items():
            if v is strictjson.INVALID:
                continue                  # its problem is on the list already
            ok = isinstance(v, (str, int, float, bool)) or (
                isinstance(v, list) and all(isinstance(x, (str, int)) and not isinstance(x, bool) for x in v))
            if not ok:
                r.problem(f"{here}.params.{k}", f"must be a string, number, true/false or a list, not {_kind(v)}")
        params = {k: v for k, v in params.items() if v is not strictjson.INVALID}   # no echo of a refused value
        if repeats is not None and "repeats" not in params:
            params = {**params, "repeats": repeats}
        try:
            workload = find_workload(name) if name else None
        except LookupError as exc:
            r.problem(f"{here}.workload", str(exc))
            workload = None
        if workload is not None:
            try:
                workload.resolve(params)
            except ParamError as exc:
                bad = next((k for k in params if str(exc).startswith(f"{k}:")), "")
                r.problem(f"{here}.params" + (f".{bad}" if bad else ""), str(exc))
        out.append(WorkloadSpec(wid, name, dict(params)))
    return out


def _baselines(r: Reader, top: dict, topology: Topology) -> list[BaselineSpec]:
    out: list[BaselineSpec] = []
    for i, raw in enumerate(r.array(top, "baselines", "")):
        here = f"baselines[{i}]"
        d = r.obj(raw, here, _BASELINE, {"target"})
        if d is None:
            continue
        target = r.field(d, "target", here, str, "")
        try:
            spec = parse_target(target)
        except TargetError as exc:
            r.problem(f"{here}.target", str(exc))
            continue
        if any(b.target == spec.text for b in out):
            r.problem(f"{here}.target", f"{spec.text} is listed twice")
        out.append(BaselineSpec(f"baseline-{i + 1}", spec.text, r.field(d, "label", here, str, "") or
                                f"baseline {spec.text}"))
    return out


def _machines(topology: Topology) -> Topology:
    """A copy of the topology's sites, nodes, clients and latencies, without its volumes."""
    data = topofile.to_dict(topology)
    data["volumes"] = []
    return topofile.from_dict(data, "<campaign topology>")
