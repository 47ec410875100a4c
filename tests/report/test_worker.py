"""The app's report writer (`brickyard report --worker`): JSON requests in, JSON events out;
the content is prepared once and written to as many files as asked, a file that cannot be
written is one sentence and the next write still works."""

from __future__ import annotations

import io
import json
from pathlib import Path

from brickyard.core import topofile
from brickyard.report.worker import serve

from . import pdfcheck

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "examples"


def converse(lines: list[dict]) -> tuple[int, list[dict]]:
    stdin = io.StringIO("".join(json.dumps(doc) + "\n" for doc in lines))
    stdout = io.StringIO()
    code = serve(stdin, stdout)
    return code, [json.loads(line) for line in stdout.getvalue().splitlines()]


def plan_source() -> dict:
    text = (EXAMPLES / "three-site.brickyard.json").read_text()
    return {"kind": "plan", "topology": text, "volume": topofile.loads(text).volumes[0].name, "failures": []}


def test_prepared_once_then_written_twice_and_a_write_that_fails_is_one_sentence(tmp_path):
    pdf, html = tmp_path / "plan.pdf", tmp_path / "plan.html"
    code, events = converse([
        {"source": plan_source()},
        {"command": "write", "path": str(tmp_path / "nowhere" / "x.pdf"), "paper": "a4", "title": "", "author": ""},
        {"command": "write", "path": str(pdf), "paper": "letter", "title": "Render farm", "author": "Ana"},
        {"command": "write", "path": str(html), "paper": "a4", "title": "", "author": ""},
        {"command": "quit"},
    ])
    assert code == 0
    kinds = [e["event"] for e in events if e["event"] != "progress"]
    assert kinds == ["prepared", "failed", "written", "written"], events
    failed = next(e for e in events if e["event"] == "failed")
    assert failed["phase"] == "write" and "nowhere does not exist" in failed["error"]
    written = [e for e in events if e["event"] == "written"]
    assert written[0]["file"] == str(pdf) and written[0]["pages"] == pdfcheck.pages(pdf)
    assert pdfcheck.page_size(pdf) == (612.0, 792.0) and "Render farm" in pdfcheck.text(pdf, 1, 1)
    assert written[1]["format"] == "html" and html.stat().st_size == written[1]["bytes"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plan.html", "plan.pdf"]       # no temporary file
    assert any(e["event"] == "progress" and e["phase"] == "write" for e in events)


def test_a_source_that_names_nothing_is_said_and_the_writer_ends(tmp_path):
    source = dict(plan_source(), volume="nosuch")
    code, events = converse([{"source": source}, {"command": "write", "path": str(tmp_path / "x.pdf")},
                             {"command": "quit"}])
    assert code == 0 and [e["event"] for e in events] == ["failed"]
    assert events[0]["phase"] == "prepare" and "no volume named 'nosuch'" in events[0]["error"]
    code, events = converse([{"command": "write"}])
    assert code == 2 and "the first line must be" in events[0]["error"]
    assert list(tmp_path.iterdir()) == []


def test_input_that_ends_without_quit_cancels_what_is_under_way(tmp_path):
    """The app is gone (its end of the pipe closed): nothing more is prepared or written."""
    code, events = converse([{"source": plan_source()},
                             {"command": "write", "path": str(tmp_path / "x.pdf")}])
    assert code == 0 and [e["event"] for e in events if e["event"] != "progress"] == ["cancelled"]
    assert list(tmp_path.iterdir()) == []
