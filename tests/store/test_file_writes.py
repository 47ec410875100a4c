"""`history export -o`, `decision -o` on a real full disk (a 64 KiB tmpfs, root only; CI runs as
root): exit 2 with one sentence, and the file already there (an earlier export) is as it was.
A link at FILE is replaced, never written through, as `report --out` does; CSV cells never start
a spreadsheet formula."""

from __future__ import annotations

import csv
import dataclasses
import io
import random

import pytest

from brickyard.cli import main
from brickyard.store import HistoryStore
from brickyard.store.synthetic import synthetic_run

from ..report.helpers import small_tmpfs
from ..tmpfs import needs_root

EVIL = '=HYPERLINK("http://evil.example","click")'


@pytest.fixture
def stored(sqlite_url):
    store = HistoryStore(sqlite_url)
    run = synthetic_run(random.Random(3), gluster=EVIL, repeats=1, block_sizes=(4096, 1 << 20))
    run = dataclasses.replace(run, provenance=dataclasses.replace(run.provenance, volume_name="@SUM(1+1)"))
    store.add_run(run)
    store.close()
    return sqlite_url, run


COMMANDS = {
    "history export": lambda url, run, out: ["history", "export", "--db", url, "-o", out],
    "history export csv": lambda url, run, out: ["history", "export", "--db", url, "--format", "csv", "-o", out],
    "decision": lambda url, run, out: ["decision", run.run_id, "--db", url, "-o", out],
    "decision csv": lambda url, run, out: ["decision", run.run_id, "--db", url, "--format", "csv", "-o", out],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_full_disk_leaves_the_earlier_file_as_it_was(stored, tmp_path, capsys, command):
    needs_root()
    url, run = stored
    with small_tmpfs(tmp_path / "mnt", full=True) as folder:
        earlier = folder / "last-week.pdf"            # small_tmpfs leaves this file in it
        before = earlier.read_bytes()
        assert main(COMMANDS[command](url, run, str(earlier))) == 2
        err = capsys.readouterr().err
        assert "the disk is full" in err and "the file already there is as it was" in err, err
        assert len(err.strip().splitlines()) == 1
        assert earlier.read_bytes() == before
        assert sorted(p.name for p in folder.iterdir()) == ["filler", "last-week.pdf"]


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_link_at_the_output_is_replaced_not_written_through(stored, tmp_path, capsys, command):
    url, run = stored
    precious = tmp_path / "precious.txt"
    precious.write_text("the user's own file")
    link = tmp_path / "out.file"
    link.symlink_to(precious)
    assert main(COMMANDS[command](url, run, str(link))) == 0
    assert precious.read_text() == "the user's own file"
    assert not link.is_symlink() and link.stat().st_size > 0


def test_csv_exports_never_start_a_formula(stored, tmp_path):
    url, run = stored
    out = tmp_path / "runs.csv"
    assert main(["history", "export", "--db", url, "--format", "csv", "-o", str(out)]) == 0
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert rows and {r["gluster_versions"] for r in rows} == {"'" + EVIL}
    assert {r["volume"] for r in rows} == {"'@SUM(1+1)"}
    assert all(not cell.startswith(("=", "+", "@")) for r in rows for cell in r.values())
    assert any(r["value"].startswith("-") or r["value"][0].isdigit() for r in rows)   # numbers stay numbers
