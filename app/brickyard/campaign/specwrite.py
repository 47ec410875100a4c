"""Writing a campaign file: the JSON of layouts chosen in the window (``document``), and a
stored campaign again with one layout interleaved between the others (``interleave``,
``write_interleaved``) as the calibration's warnings ask. ``campaign.spec`` reads what these
write, with the same checks as any other campaign file."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Callable, Sequence

from ..core.topology import Mount, Volume
from .spec import FORMAT_VERSION


def document(name: str, layouts: Sequence[Volume], workloads: Sequence[tuple[str, dict[str, Any]]], *,
             topology: str = "", repeats: int | None = None, baselines: Sequence[tuple[str, str]] = (),
             on_failure: str = "stop", options: dict[str, str] | None = None,
             mounts: Sequence[Mount] | None = None, description: str = "") -> dict[str, Any]:
    """A campaign file's JSON for layouts chosen elsewhere (the app's Compare layouts table:
    ticked layouts of one volume's bricks, picked workloads). ``layouts`` are volumes on the
    same bricks (the first one's order is the campaign's); their own options and force are
    kept. ``from_data(document(...), topology=topo)`` gives the spec; writing it to a file
    gives a campaign ``brickyard campaign`` runs. ``workloads``: (workload name, params)."""
    if not layouts:
        raise ValueError("a campaign needs at least one layout")
    doc: dict[str, Any] = {"format_version": FORMAT_VERSION, "name": name}
    if description:
        doc["description"] = description
    if topology:
        doc["topology"] = topology
    first = layouts[0]
    doc["bricks"] = [str(b) for b in first.bricks]
    if mounts:
        doc["mounts"] = [{"client": m.client, "path": m.path, "options": m.options} for m in mounts]
    if options:
        doc["options"] = dict(options)
    out = []
    for vol in layouts:
        lay = vol.layout
        item: dict[str, Any] = {"name": vol.name, "type": lay.type.value}
        if lay.type.is_replicated:
            item["replica"] = lay.replica
            if lay.arbiter:
                item["arbiter"] = lay.arbiter
        if lay.type.is_dispersed:
            item["disperse"] = lay.disperse
            if lay.redundancy is not None:
                item["redundancy"] = lay.redundancy
        own = {k: v for k, v in vol.options.items() if (options or {}).get(k) != v}
        if own:
            item["options"] = own
        if vol.force:
            item["force"] = True
        if list(vol.bricks) != list(first.bricks):
            item["bricks"] = [str(b) for b in vol.bricks]
        out.append(item)
    doc["layouts"] = out
    doc["workloads"] = [{"workload": w, "id": w if [x for x, _ in workloads].count(w) == 1 else f"{w}-{i + 1}",
                         "params": dict(p)} for i, (w, p) in enumerate(workloads)]
    if repeats is not None:
        doc["repeats"] = repeats
    if baselines:
        doc["baselines"] = [{"target": t, "label": label} if label else {"target": t} for t, label in baselines]
    doc["on_failure"] = on_failure
    return doc


def interleave(data: dict[str, Any], layout: str, times: int,
               copy_options: Callable[[int], dict[str, str]] | None = None) -> dict[str, Any]:
    """The campaign document ``data`` with its layout ``layout`` run ``times`` times, spread
    evenly between the other layouts (``dt8, A, dt8-2, B, dt8-3, C``): what the calibration's
    warnings ask for when its figures spread or miss their own fit — the same layout measured
    again under the load the other layouts met, not only back to back. The copies are the same
    layout of the same bricks, named ``NAME-2``, ``NAME-3`` …; ``copy_options(k)`` adds volume
    options to copy ``k``. Raises ValueError for an unknown layout, a bad count, or a copy name
    the campaign already uses."""
    items = data.get("layouts") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise ValueError("the campaign has no layouts to interleave")
    first = next((lay for lay in items if isinstance(lay, dict) and lay.get("name") == layout), None)
    if first is None:
        names = [lay.get("name") for lay in items if isinstance(lay, dict)]
        raise ValueError(f"no layout {layout!r} in the campaign (its layouts: {', '.join(map(str, names))})")
    if not 2 <= times <= 10:
        raise ValueError(f"run a layout 2 to 10 times interleaved, not {times}")
    taken = {lay.get("name") for lay in items if isinstance(lay, dict)}
    clash = [f"{layout}-{k}" for k in range(2, times + 1) if f"{layout}-{k}" in taken]
    if clash:
        raise ValueError(f"the campaign already has a layout named {clash[0]!r}: the copies of {layout!r} "
                         "are named NAME-2, NAME-3 …")
    others = [lay for lay in items if lay is not first]
    after: dict[int, list[int]] = {}                  # after the i-th other layout: these copies
    for j in range(1, times):
        after.setdefault(max(1, round(j * len(others) / times)), []).append(j + 1)

    def copy(k: int) -> dict[str, Any]:
        extra = copy_options(k) if copy_options else {}
        return {**first, "name": f"{layout}-{k}", **({"options": {**first.get("options", {}), **extra}} if extra else {})}

    out = [first]
    for i, lay in enumerate(others, 1):
        out.append(lay)
        out += [copy(k) for k in after.get(i, ())]
    if not others:
        out += [copy(k) for k in range(2, times + 1)]
    return {**data, "layouts": out}


def copies_of(names: Sequence[str], layout: str) -> tuple[str, ...]:
    """``layout`` and its interleaved copies (``interleave``) among ``names``."""
    return tuple(n for n in names if n == layout or (n.startswith(f"{layout}-") and n[len(layout) + 1:].isdigit()))


def write_interleaved(spec_data: dict[str, Any], topology: dict[str, Any], layout: str, path: str | os.PathLike,
                      times: int = 3) -> Path:
    """Write a stored campaign (its file's data and its topology, as ``store.campaigns`` keeps
    them) again with ``layout`` interleaved ``times`` times (``interleave``), ready for
    ``brickyard campaign PATH``: the topology beside it as ``NAME.topology.brickyard.json``, which
    the campaign names. Copies the campaign already ran of ``layout`` (``NAME-2`` …) are dropped
    and spread again. Returns the topology's path. ValueError as ``interleave``; OSError when a
    file cannot be written (neither is left half-written)."""
    from ..core.atomicfile import write_atomic

    path = Path(path)
    items = spec_data.get("layouts") if isinstance(spec_data.get("layouts"), list) else []
    names = [lay.get("name") for lay in items if isinstance(lay, dict) and isinstance(lay.get("name"), str)]
    copies = set(copies_of(names, layout)) - {layout}
    doc = interleave({**spec_data, "layouts": [lay for lay in items if not (isinstance(lay, dict)
                                                                          and lay.get("name") in copies)]},
                     layout, times)
    stem = path.name[:-len(".campaign.json")] if path.name.endswith(".campaign.json") else path.stem
    topo_path = path.with_name(f"{stem}.topology.brickyard.json")
    doc = {**doc, "topology": topo_path.name}
    write_atomic(topo_path, json.dumps(topology, indent=1) + "\n")
    write_atomic(path, json.dumps(doc, indent=1) + "\n")
    return topo_path
