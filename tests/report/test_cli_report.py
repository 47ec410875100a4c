"""`brickyard report`: a campaign, stored runs or a planned volume to PDF or HTML; --json says
what was written; bad input is one line and exit 2, with nothing written."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from brickyard.cli import main

from . import pdfcheck
from .helpers import volume_run
from .test_runs_report import lab_volume

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "examples"


def test_campaign_report_from_the_command_line_with_json(campaign, tmp_path, capsys):
    store, cid = campaign
    out = tmp_path / "seed004.pdf"
    db = f"sqlite:///{tmp_path / 'history.sqlite3'}"
    assert main(["report", "--campaign", cid[:8], "--db", db, "--out", str(out), "--paper", "letter",
                 "--title", "Which volume for the render farm", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["ok"] and doc["format"] == "pdf" and doc["paper"] == "letter" and doc["kind"] == "campaign"
    assert doc["pages"] == pdfcheck.pages(out) and doc["bytes"] == out.stat().st_size
    assert [r["key"] for r in doc["decision_table"]["rows"]][:4] == ["dt8", "dp8rd2", "dt2dp4rd1", "dt4rp2"]
    assert len(doc["runs"]) == 5
    page1 = pdfcheck.text(out, 1, 1)
    assert "Which volume for the render farm" in page1
    # every measured figure of the JSON table is in the PDF's decision table, as the table writes it
    from brickyard.core.decisiontable import DecisionTable, format_figure  # noqa: F401 (the one formatter)
    for row in doc["decision_table"]["rows"]:
        for key, f in row["figures"].items():
            if f["source"] == "measured" and key.startswith("tput:"):
                from brickyard.core.units import format_rate
                assert format_rate(f["value"]) in page1, (row["key"], key)


def test_runs_and_plan_reports_from_the_command_line(store, tmp_path, capsys):
    rng = random.Random(21)
    runs = [volume_run(rng, lab_volume(), started_at=1_760_000_000.0 + 3600 * i) for i in range(2)]
    for run in runs:
        store.add_run(run)
    db = f"sqlite:///{tmp_path / 'history.sqlite3'}"
    out = tmp_path / "runs.html"
    ids = ",".join(r.run_id[:10] for r in runs)
    assert main(["report", "--runs", ids, "--db", db, "--out", str(out)]) == 0
    assert capsys.readouterr().out.startswith(f"report: {out} (")
    assert "History comparison" in out.read_text(encoding="utf-8")
    plan = tmp_path / "plan.pdf"
    assert main(["report", "--topology", str(EXAMPLES / "three-site.brickyard.json"), "--fail", "site:Helsinki",
                 "--author", "Ana", "--out", str(plan)]) == 0
    text = " ".join(pdfcheck.text(plan, layout=False).split())
    assert "Helsinki — FAILED" in text and "with site:Helsinki failed DEGRADED" in text and "by Ana" in text


BAD = [
    ([], "give --campaign ID, --runs ID,ID… or --topology FILE"),
    (["--runs", "abc", "--campaign", "def"], "give --runs or --campaign, not both"),
    (["--volume", "gv0"], "--volume and --fail need --topology FILE"),
    (["--runs", "abc", "--fail", "node2"], "--volume and --fail go with --topology alone"),
    (["--campaign", "abc", "--topology", "x.json"], "--campaign reports on the campaign's own topology"),
    (["--runs", "abc,,def"], "an empty run id between commas"),
    (["--runs", "zzzz"], "no stored run id starts with 'zzzz'"),
    (["--campaign", "zzzz"], "zzzz"),
    (["--topology", "missing.brickyard.json"], "missing.brickyard.json: cannot read: No such file or directory"),
    (["--topology", str(EXAMPLES / "three-site.brickyard.json"), "--fail", "node99"], "no node named 'node99'"),
    (["--topology", str(EXAMPLES / "three-site.brickyard.json"), "--title", "a\x1b[31mred"],
     "--title: control characters are not allowed"),
    (["--topology", str(EXAMPLES / "three-site.brickyard.json"), "--author", "x" * 300],
     "--author: at most 200 characters"),
    (["--topology", str(EXAMPLES / "three-site.brickyard.json"), "--paper", "a5"], "invalid choice: 'a5'"),
]


@pytest.mark.parametrize("args, words", BAD)
def test_bad_input_is_one_line_exit_2_and_nothing_written(args, words, tmp_path, capsys):
    out = tmp_path / "r.pdf"
    argv = ["report", *args, "--db", f"sqlite:///{tmp_path / 'h.sqlite3'}", "--out", str(out)]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0], err
    assert main([*argv, "--json"]) == 2
    doc = json.loads(capsys.readouterr().out)
    assert doc["ok"] is False and words in doc["error"]
    assert list(tmp_path.glob("*.pdf")) == [] and not [p for p in tmp_path.iterdir() if p.name.startswith(".r.pdf")]


@pytest.mark.parametrize("out, words", [("report.txt", "written as .pdf or .html (not .txt)"),
                                        ("nowhere/report.pdf", "does not exist"),
                                        (".", "is a folder"),
                                        # a folder that is there but takes no files: not "does not exist"
                                        ("/proc/report.pdf", "no file can be made in /proc")])
def test_bad_output_names_are_refused(out, words, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["report", "--topology", str(EXAMPLES / "three-site.brickyard.json"), "--out", out]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0], err


def test_a_canary_in_any_text_flag_never_runs_and_a_title_is_printed_as_written(tmp_path, capsys):
    canary = tmp_path / "planted"
    topo = str(EXAMPLES / "three-site.brickyard.json")
    db = f"sqlite:///{tmp_path / 'h.sqlite3'}"
    for c in (f"$(touch {canary})", f"`touch {canary}`", f"x; touch {canary}", f"x | touch {canary}",
              f"x\ntouch {canary}", f"x${{IFS}}touch${{IFS}}{canary}"):
        for argv in (["--runs", c], ["--campaign", c], ["--topology", c], ["--topology", topo, "--volume", c],
                     ["--topology", topo, "--fail", c], ["--topology", topo, "--out", f"{tmp_path}/{c}/r.pdf"]):
            full = ["report", *argv, "--db", db, "--json"] + ([] if "--out" in argv else ["--out", str(tmp_path / "r.pdf")])
            assert main(full) == 2, full
            doc = json.loads(capsys.readouterr().out)
            assert doc["ok"] is False and not canary.exists(), full
        out = tmp_path / "titled.pdf"
        code = main(["report", "--topology", topo, "--title", c, "--author", c, "--out", str(out), "--json"])
        captured = capsys.readouterr()
        if "\n" in c:
            assert code == 2 and "control characters" in json.loads(captured.out)["error"]
            continue
        assert code == 0 and json.loads(captured.out)["title"] == c
        assert pdfcheck.title(out) == c
        assert c.split("/")[0] in pdfcheck.text(out, 1, 1, layout=False)
        assert not canary.exists()
