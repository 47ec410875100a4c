"""The decision table in words a manager reads: one sentence per layout, and what the table
says when read the way the NFS-to-GlusterFS write-up read its own (no Qt).

Every number in a sentence is the table's own cell text (``DecisionTable.text``), so the
words and the table can never disagree; which figure is "the speed" is
``headline_columns``: the first direction the layouts' runs measured (write before read), at
the block size most layouts were measured at (the largest of those), one file and the most
files at once. An estimate never decides when a measurement exists: the verdict ranks the
layouts measured at that point, names the ones that were not, and sets the baselines beside
them (at another block size when that is all a baseline measured, said so).
"""

from __future__ import annotations

from ..core.decisiontable import BASELINE, ESTIMATED, MEASURED, PREDICTED, Column, DecisionTable, Row
from ..core.units import format_block_size


def _measured_layouts(table: DecisionTable, column: Column) -> int:
    return sum(1 for r in table.rows if r.kind != BASELINE and r.figure(column.key).source == MEASURED)


def headline_columns(table: DecisionTable) -> tuple[Column | None, Column | None]:
    """(one file, many files) throughput columns the sentences quote, or None where the table
    has no such column."""
    tput = [c for c in table.columns if c.group == "throughput"]
    if not tput:
        return None, None
    directions = list(dict.fromkeys(c.params["direction"] for c in tput))
    direction = next((d for d in directions
                      if any(_measured_layouts(table, c) for c in tput if c.params["direction"] == d)), directions[0])
    tput = [c for c in tput if c.params["direction"] == direction]

    def many_of(columns: list[Column]) -> list[Column]:
        # "many files" of an estimate-only table is concurrency 0 (MANY): it counts as the most
        return sorted((c for c in columns if c.params["concurrency"] != 1),
                      key=lambda c: (c.params["concurrency"] == 0, c.params["concurrency"]))

    def weight(size: int) -> tuple[int, int, int]:
        at = [c for c in tput if c.params["block_size"] == size]
        many = many_of(at)
        single = [c for c in at if c.params["concurrency"] == 1]
        return (_measured_layouts(table, many[-1]) if many else 0,
                _measured_layouts(table, single[0]) if single else 0, size)

    size = max({c.params["block_size"] for c in tput}, key=weight)
    tput = [c for c in tput if c.params["block_size"] == size]
    single = next((c for c in tput if c.params["concurrency"] == 1), None)
    many = many_of(tput)
    return single, (many[-1] if many else None)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _failures(table: DecisionTable, row: Row) -> str:
    worst, best = row.figure("nodes_worst"), row.figure("nodes_best")
    if not worst.known:
        return "failures survived not known"
    n = int(worst.value)  # type: ignore[arg-type]
    if n == 0:
        text = "survives no server failure: with any one server down, part of the data can be neither read nor written"
        if best.known and best.value:
            text = ("survives no server failure in the worst case (any one server down can stop part of the data; "
                    f"{_plural(int(best.value), 'server')} if the right ones fail)")
    else:
        text = f"survives any {_plural(n, 'server')} failing"
        if best.known and best.value and best.value > n:
            text += f" ({int(best.value)} when the right ones fail)"
    sites = row.figure("sites_worst")
    if sites.known:
        s = int(sites.value)  # type: ignore[arg-type]
        text += f", and {_plural(s, 'site')} failing" if s else ", but not the loss of a site"
    return text


def _capacity(table: DecisionTable, row: Row) -> str:
    usable, raw = row.figure("usable"), row.figure("raw")
    if not usable.known:
        return "usable capacity not known (brick sizes unknown)"
    text = f"{table.text(row, 'usable')} usable"
    if raw.known and raw.value:
        text += f" ({usable.value / raw.value:.0%} of raw)"  # type: ignore[operator]
    return text


def _speed(table: DecisionTable, row: Row) -> str:
    single, many = headline_columns(table)
    parts = []
    verb = (single or many).params["direction"] if (single or many) else ""
    verb = {"write": "writes", "read": "reads"}.get(verb, verb)
    if many is not None and row.figure(many.key).known:
        n = many.params["concurrency"]
        who = "many files at once" if n == 0 else f"{n} files at once"
        # a baseline measured at another size says so in its cell ("… at 16M"): no second size here
        bs = "" if not many.params["block_size"] or row.figure(many.key).block_size is not None \
            else f" in {format_block_size(many.params['block_size'])} blocks"
        parts.append(f"{verb} {table.text(row, many.key)} with {who}{bs}")
        scaling = f"scaling:{many.params['direction']}:{n}:{many.params['block_size']}"
    if single is not None and row.figure(single.key).known:
        parts.append(f"{table.text(row, single.key)} with one file" if parts
                     else f"{verb} {table.text(row, single.key)} with one file")
    if not parts:
        return "throughput not measured"
    text = " and ".join(parts)
    if many is not None and any(c.key == scaling for c in table.columns) and row.figure(scaling).known:
        ratio, size = table.text(row, scaling), row.figure(scaling).block_size
        where = ""
        if size is not None:     # a baseline's, at another size: said once, at the end
            where = f" at {format_block_size(size)}"
            ratio = ratio.removesuffix(where)
        text += f" ({n} files reach {ratio} of {n} × one file{where})"
    return text


def layout_sentence(table: DecisionTable, row: Row) -> str:
    """'dt2dp4rd1 (disperse 4 redundancy 1 × 2 (8 bricks)): 6.00 GB (5.59 GiB) usable (75 % of
    raw); survives any 1 server failing; writes 1.52 GB/s ±3 % with 8 files at once …'."""
    if row.kind == BASELINE:
        return f"{row.label} (a baseline, not gluster): {_speed(table, row)}."
    name = f"{row.key} ({row.extra_label})" if row.extra_label else row.key
    usable = row.figure("usable")
    if not usable.known and usable.note.startswith("gluster would refuse"):
        return f"{name}: {usable.note.rstrip('.')}."
    return f"{name}: {_capacity(table, row)}; {_failures(table, row)}; {_speed(table, row)}."


def reading(table: DecisionTable) -> list[str]:
    """What the table says, read as the write-up read its own: the fastest layout, and — since
    a layout that loses data with one server down was ruled out there — the fastest of those
    that survive a server failure, with its capacity. Only measured figures rank when any
    layout was measured at that point; the layouts that were not are named, and the baselines
    set beside them. Empty when there is nothing to rank."""
    _, many = headline_columns(table)
    column = many or headline_columns(table)[0]
    if column is None:
        return []
    rows = [r for r in table.rows if r.kind != BASELINE and r.figure(column.key).known]
    measured = [r for r in rows if r.figure(column.key).source == MEASURED]
    unmeasured = [r for r in table.rows if r.kind != BASELINE and r not in measured]
    caveat = ""
    if measured:
        rows = measured
    elif {r.figure(column.key).source for r in rows} == {PREDICTED}:
        caveat = " (the model's predictions: nothing measured yet)"
    elif rows:
        caveat = " (planner's estimates: nothing measured yet)"
    lines = []
    if len(rows) == 1 and measured:
        only = rows[0]
        lines.append(f"Only {only.key} was measured at {column.title}: {table.text(only, column.key)}.")
    elif len(rows) >= 2:
        ranked = sorted(rows, key=lambda r: float(r.figure(column.key).value), reverse=True)  # type: ignore[arg-type]
        best = ranked[0]
        line = f"Fastest at {column.title}: {best.key}, {table.text(best, column.key)}{caveat}"
        safe = [r for r in ranked if r.figure("nodes_worst").known and r.figure("nodes_worst").value]
        if best.figure("nodes_worst").known and not best.figure("nodes_worst").value:
            line += ", but it survives no server failure"
        lines.append(line + ".")
        if safe and safe[0] is not best:
            pick = safe[0]
            text = (f"Fastest of the layouts that survive a server failure: {pick.key}, "
                    f"{table.text(pick, column.key)}, {_failures(table, pick).removeprefix('survives ')}")
            if pick.figure("usable").known:
                text += f"; {_capacity(table, pick)}"
            lines.append(text + ".")
        elif not safe:
            lines.append("None of these layouts survives a server failure.")
    else:
        return []
    if measured and unmeasured:
        names = ", ".join(r.key for r in unmeasured)
        lines.append(f"Not measured at {column.title}, so not ranked: {names}"
                     + (" (the table shows their estimates, grey)" if any(
                         r.figure(column.key).source in (ESTIMATED, PREDICTED) for r in unmeasured) else "") + ".")
    baselines = [r for r in table.rows if r.kind == BASELINE and r.figure(column.key).known]
    if baselines:
        lines.append("Beside them, the baseline" + ("s" if len(baselines) > 1 else "") + ": "
                     + "; ".join(f"{r.label} {table.text(r, column.key)}" for r in baselines) + ".")
    return lines
