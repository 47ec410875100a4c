"""The report's own "Model check: predicted vs measured" section, from real sandbox runs
(tests/fixtures/runs/sandbox: dd on replica 2 `hrep` three times, on disperse 3 redundancy 1
`hdisp` once, and a local baseline): each layout predicted from the other's runs, with the
same figures `brickyard decision` prints, page 1 left as it was; absent for runs of one
layout; one sentence when the table shows the model's figures but nothing can check them."""

from __future__ import annotations

import dataclasses
import json
import re
import statistics
from pathlib import Path

from brickyard.cli import main
from brickyard.core.decision import build_table
from brickyard.core.units import format_rate
from brickyard.report import content_from_runs, export_report
from brickyard.report.content import model_check
from brickyard.report.sentences import layout_sentence
from brickyard.store.exchange import read_export

from . import pdfcheck

SANDBOX = Path(__file__).resolve().parents[1] / "fixtures" / "runs" / "sandbox"
HREP, HDISP, LOCAL = "dd-replica-hrep-write-behind", "dd-disperse-hdisp", "dd-local-baseline"


def sandbox_ids(store, *names: str) -> list[str]:
    ids = []
    for name in names:
        store.import_json(SANDBOX / f"{name}.json")
        ids += [r.run_id for r in read_export(SANDBOX / f"{name}.json")]
    return ids


def flat(text: str) -> str:
    return " ".join(text.split())


def section_text(pdf: Path) -> str:
    """The model check section as ``pdftotext -layout`` lays it out."""
    text = pdfcheck.text(pdf)
    start = text.index("Model check: predicted vs measured")
    return text[start:re.search(r"The topology and (?:each|the) layout", text[start:]).start() + start]


def test_two_sandbox_layouts_get_a_model_check_section_with_the_figures_brickyard_decision_prints(store, tmp_path):
    ids = sandbox_ids(store, HREP, HDISP, LOCAL)
    content = content_from_runs(store, ids)
    check = content.model_check
    assert check is not None and not check.why_not
    assert check.layouts == ("hrep", "hdisp")            # the baseline has no layout to predict
    assert len(check.points) == 2 * 4                    # write/read × 1/2 files at 1M, each layout
    out = tmp_path / "sandbox.pdf"
    export_report(content, out)

    # what `brickyard decision RUN… --format json` prints: each layout from the other's runs
    decided = tmp_path / "decision.json"
    assert main(["decision", *ids, "--db", store.url, "--format", "json", "-o", str(decided)]) == 0
    doc = json.loads(decided.read_text())
    cols = [c for c in doc["columns"] if c["key"].startswith("tput:")]
    section = section_text(out)
    lines = pdfcheck.table_rows(section, [c["title"] for c in cols])
    errors = []
    for col in cols:
        tail = col["key"][len("tput:"):]
        layouts = [r for r in doc["rows"] if r["kind"] == "layout"]
        assert len(lines[col["title"]]) == len(layouts), (col["title"], lines[col["title"]])
        for row, cells in zip(layouts, lines[col["title"]]):       # in the table's row order: hrep, hdisp
            pred, err = row["figures"][f"pred:{tail}"], row["figures"][f"err:{tail}"]
            table_row = next(r for r in content.table.rows if r.key == row["key"])
            assert cells[:3] == [content.table.text(table_row, col["key"]),           # measured, with its spread
                                 format_rate(pred["value"]),
                                 f"{format_rate(pred['low'])} … {format_rate(pred['high'])}"], (row["key"], cells)
            # the error, then the binding bound (pdftotext puts one space between the two columns)
            assert " ".join(cells[3:]).startswith(f"{err['value'] * 100:+.0f} % "), (row["key"], cells)
            assert pred["note"].startswith(f"predicted (calibrated on {'hdisp' if row['key'] == 'hrep' else 'hrep'})")
            errors.append(abs(err["value"]))
    words = flat(section)
    assert "hrep (replica 2 (2 bricks)) — predicted from hdisp" in words
    assert "hdisp (disperse 3 redundancy 1 (3 bricks)) — predicted from hrep" in words
    assert "calibrated on the measured runs of hrep and hdisp" in words
    assert "Each layout is predicted from the other layouts' runs only, never from its own" in words
    assert (f"Error: {statistics.median(errors) * 100:.0f} % median, {max(errors) * 100:.0f} % worst over 8 "
            f"measured figures") in words
    assert re.search(r"bound client CPU|one stream through the client mount|the client's aggregate", words)
    # page 1 is the decision as before: no model columns, every sentence still there
    page1 = flat(pdfcheck.text(out, 1, 1, layout=False))
    assert "model error" not in page1 and "predicted" not in page1.split("2 Model check")[0]
    for row in content.table.rows:
        assert flat(layout_sentence(content.table, row)) in page1, row.key


def test_runs_of_one_layout_have_no_model_check_section(store, tmp_path):
    ids = sandbox_ids(store, HREP)
    content = content_from_runs(store, ids)
    assert content.model_check is None
    out = tmp_path / "hrep.pdf"
    export_report(content, out)
    text = flat(pdfcheck.text(out, layout=False))
    assert "Model check" not in text
    assert "2 The topology and the layout" in text


def test_model_figures_that_nothing_can_check_are_said_so_in_one_sentence(store, tmp_path):
    """hrep measured, hdisp only planned (its cells the model's estimate): no other layout's
    runs to calibrate on, so the section says why there is no check."""
    ids = sandbox_ids(store, HREP, HDISP)
    content = content_from_runs(store, ids)
    runs_of = {e.row_key for e in content.runs}
    assert runs_of == {"hrep", "hdisp"}
    from brickyard.core.decision_runs import entries_from_runs

    entries = entries_from_runs(store.load_runs(ids), lambda r: content.layouts[0].topology)
    planned_only = [e if e.key == "hrep" else dataclasses.replace(e, runs=()) for e in entries]
    table = build_table(planned_only)
    assert any(r.figure("tput:write:1:1048576").source == "estimated" for r in table.rows)
    check = model_check(table, planned_only)
    assert check is not None and not check.points
    assert check.why_not.startswith("Only hrep was measured and no probe run is among the runs")
    out = tmp_path / "planned.pdf"
    export_report(dataclasses.replace(content, table=table, model_check=check), out)
    words = flat(section_text(out))
    assert "Model check: predicted vs measured " + check.why_not in words
    assert "Error:" not in words


def probe_run(hosts, started_at):
    """A stored probe run as ``plugins/probe`` records one: TCP from the client to each server."""
    from brickyard.core.results import Metric, Provenance, RunResult, RunStatus, StepResult

    steps = [StepResult(i, {"probe": "tcp", "scope": "alone", "direction": "write", "host": "client1", "to": h,
                            "servers": [h], "concurrency": 1, "repeat": 0, "bytes": 1 << 20, "same_kernel": [h]},
                        0, (), (Metric("throughput", 500e6, "B/s"),)) for i, h in enumerate(hosts)]
    prov = Provenance("0.1.0", {"client1": {"kernel": "6.1.0-26-amd64"}}, "client1:/tmp", "local", workload="probe")
    return RunResult("probe0000000000000000000000000001", "probe", RunStatus.COMPLETE, started_at, started_at + 30,
                     prov, steps)


def test_one_layout_and_a_probe_run_is_checked_against_the_probe_calibration(store, tmp_path):
    ids = sandbox_ids(store, HREP)
    probe = probe_run(["node1", "node2"], min(r.started_at for r in store.load_runs(ids)) - 600)
    store.add_run(probe)
    content = content_from_runs(store, ids + [probe.run_id])
    assert [r.key for r in content.table.rows] == ["hrep"]          # a probe run is no row of the table
    check = content.model_check
    assert check is not None and not check.why_not and check.probes == (f"probe run {probe.run_id[:12]}",)
    assert check.points and all(p.tested and "probe" in p.model.label for p in check.points)
    out = tmp_path / "probe.pdf"
    export_report(content, out)
    words = flat(section_text(out))
    assert f"was calibrated on probe run {probe.run_id[:12]}" in words and "not on any layout's runs" in words
    assert f"over {len(check.points)} measured figures" in words


def test_a_layouts_commands_end_with_the_mount_its_drawing_shows(store, tmp_path):
    # the layout drawing showed "client1 ▸ hrep at /mnt/…" (from the runs' targets) while the
    # commands under it stopped at `volume start`: the mount was in the picture, not the commands
    from brickyard.report.topodraw import layout_mounts

    content = content_from_runs(store, sandbox_ids(store, HREP))
    layout = content.layouts[0]
    mount = layout_mounts(layout)[0]
    out = tmp_path / "hrep.pdf"
    export_report(content, out)
    text = flat(pdfcheck.text(out))
    assert f"# run on {mount.client} (a client: mount the started volume) mkdir -p {mount.path}" in text
    assert "mount -t glusterfs" in text and f":/hrep {mount.path}" in text
