"""`brickyard history …` end to end over a real SQLite file."""

from __future__ import annotations

import json
import random

import pytest

from brickyard.cli import main
from brickyard.store import HistoryStore
from brickyard.store.synthetic import synthetic_run


@pytest.fixture
def two_versions(sqlite_url):
    store = HistoryStore(sqlite_url)
    rng = random.Random(40)
    old = synthetic_run(rng, gluster="3.12.15", started_at=1_760_000_000.0, repeats=3, block_sizes=(4096, 1 << 20))
    new = synthetic_run(rng, gluster="6.0", started_at=1_760_086_400.0, repeats=3, block_sizes=(4096, 1 << 20),
                        speedup=1.3)
    store.add_run(old)
    store.add_run(new)
    store.close()
    return sqlite_url, old, new


def test_list_json_filters_by_gluster_version(two_versions, capsys):
    url, old, new = two_versions
    assert main(["history", "list", "--db", url, "--json", "--gluster-version", "6.0"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["run_id"] for r in rows] == [new.run_id] and rows[0]["status"] == "complete"


def test_list_reads_the_database_from_the_environment(two_versions, capsys, monkeypatch):
    url, old, new = two_versions
    monkeypatch.setenv("BRICKYARD_DB", url)
    assert main(["history", "list", "--since", "2025-10-10"]) == 0
    out = capsys.readouterr().out
    assert new.run_id[:12] in out and old.run_id[:12] not in out


def test_compare_shows_what_differs_then_a_significant_speed_up(two_versions, capsys):
    url, old, new = two_versions
    assert main(["history", "compare", "--db", url, old.run_id[:8], new.run_id[:8], "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["differences"][0] == {"field": "gluster on gfs1", "values": ["3.12.15", "6.0"]}
    big = [m for m in data["metrics"] if m["point"]["block_size"] == str(1 << 20) and m["point"]["concurrency"] == "1"]
    assert big and big[0]["significant"] and big[0]["ratio"] > 1.15
    assert big[0]["sentence"].startswith("glusterfs 6.0 is") and "faster than glusterfs 3.12.15" in big[0]["sentence"]
    assert main(["history", "compare", "--db", url, old.run_id[:8], new.run_id[:8]]) == 0
    text = capsys.readouterr().out
    assert text.index("What differs:") < text.index("MB/s")          # provenance before numbers


def test_export_then_import_elsewhere_does_not_duplicate(two_versions, tmp_path, capsys):
    url, old, new = two_versions
    out = tmp_path / "runs.json"
    assert main(["history", "export", "--db", url, "-o", str(out)]) == 0
    other = f"sqlite:///{tmp_path / 'other.sqlite3'}"
    assert main(["history", "import", "--db", other, str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["added"] == [old.run_id, new.run_id]
    assert main(["history", "import", "--db", other, str(out)]) == 0
    assert "imported 0 runs; 2 were already" in capsys.readouterr().out
    assert main(["history", "export", "--db", other, "--format", "csv", old.run_id]) == 0
    csv_text = capsys.readouterr().out
    assert csv_text.startswith("run_id,") and new.run_id not in csv_text and old.run_id in csv_text


def test_bad_input_is_one_line_and_exit_2(two_versions, tmp_path, capsys):
    url, old, new = two_versions
    assert main(["history", "show", "--db", url, "ffffffff"]) == 2
    assert "no stored run id starts with 'ffffffff'" in capsys.readouterr().err
    assert main(["history", "list", "--db", "::bad::"]) == 2
    assert "not a database URL" in capsys.readouterr().err
    (tmp_path / "x.json").write_text("[1, 2")
    assert main(["history", "import", "--db", url, str(tmp_path / "x.json")]) == 2
    assert "line 1: not valid JSON" in capsys.readouterr().err
    assert main(["history", "compare", "--db", url, old.run_id]) == 2
