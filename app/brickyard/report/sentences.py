"""The decision table in words a manager reads: one sentence per layout, and what the table
says when read the way the NFS-to-GlusterFS write-up read its own (no Qt).

Every number in a sentence is the table's own cell text (``DecisionTable.text``), so the
words and the table can never disagree; which figure is "the speed" is
``headline_columns``: the first direction measured (write before read), at the largest block
size the table shows, one file and the most files at once.
"""

from __future__ import annotations

from ..core.decision import BASELINE, ESTIMATED, MEASURED, Column, DecisionTable, Row
from ..core.units import format_block_size


def headline_columns(table: DecisionTable) -> tuple[Column | None, Column | None]:
    """(one file, many files) throughput columns the sentences quote, or None where the table
    has no such column."""
    tput = [c for c in table.columns if c.group == "throughput"]
    if not tput:
        return None, None
    direction = tput[0].params["direction"]
    tput = [c for c in tput if c.params["direction"] == direction]
    size = max(c.params["block_size"] for c in tput)
    tput = [c for c in tput if c.params["block_size"] == size]
    single = next((c for c in tput if c.params["concurrency"] == 1), None)
    many = [c for c in tput if c.params["concurrency"] != 1]
    # "many files" of an estimate-only table is concurrency 0 (MANY): it counts as the most
    many.sort(key=lambda c: (c.params["concurrency"] == 0, c.params["concurrency"]))
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
        bs = "" if not many.params["block_size"] else f" in {format_block_size(many.params['block_size'])} blocks"
        parts.append(f"{verb} {table.text(row, many.key)} with {who}{bs}")
        scaling = f"scaling:{many.params['direction']}:{n}:{many.params['block_size']}"
    if single is not None and row.figure(single.key).known:
        parts.append(f"{table.text(row, single.key)} with one file" if parts
                     else f"{verb} {table.text(row, single.key)} with one file")
    if not parts:
        return "throughput not measured"
    text = " and ".join(parts)
    if many is not None and any(c.key == scaling for c in table.columns) and row.figure(scaling).known:
        text += f" ({n} files reach {table.text(row, scaling)} of {n} × one file)"
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
    that survive a server failure, with its capacity. Empty when there is nothing to rank."""
    _, many = headline_columns(table)
    column = many or headline_columns(table)[0]
    if column is None:
        return []
    rows = [r for r in table.rows if r.kind != BASELINE and r.figure(column.key).known]
    if len(rows) < 2:
        return []
    ranked = sorted(rows, key=lambda r: float(r.figure(column.key).value), reverse=True)  # type: ignore[arg-type]
    sources = {r.figure(column.key).source for r in rows}
    caveat = ""
    if sources == {ESTIMATED}:
        caveat = " (planner's estimates: nothing measured yet)"
    elif ESTIMATED in sources and MEASURED in sources:
        caveat = " (some figures are estimates, not measurements)"
    lines = []
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
    return lines
