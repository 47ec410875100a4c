"""`brickyard bench` headless: exit codes and JSON say what happened."""

import json

from brickyard.cli import main
from brickyard.core.units import parse_link_rate as parse_rate


def test_local_dd_run_prints_json_with_status_summary_and_exit_code(tmp_path, capsys):
    code = main(["bench", "--target", f"local:{tmp_path}", "--workload", "dd", "--param", "block_sizes=1M",
                 "--param", "concurrency=1", "--param", "size=2M", "--param", "direction=write",
                 "--param", "repeats=2", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["exit_code"] == 0 and out["status"] == "complete"
    assert len(out["steps"]) == 2 and out["summary"][0]["n"] == 2
    assert out["provenance"]["parameters"]["size"] == "2M"
    assert list(tmp_path.iterdir()) == []


def test_bad_input_exits_2_with_a_one_line_reason(tmp_path, capsys):
    assert main(["bench", "--target", f"local:{tmp_path}", "--workload", "dd", "--param", "concurrency=0"]) == 2
    assert "concurrency: 0 is below the minimum 1" in capsys.readouterr().err
    assert main(["bench", "--target", "nohost", "--workload", "dd"]) == 2
    assert main(["bench", "--target", f"local:{tmp_path}", "--workload", "nope"]) == 2
    assert "no workload called 'nope'" in capsys.readouterr().err
    assert main(["bench", "--target", f"local:{tmp_path}", "--workload", "dd", "--param", "size"]) == 2


def test_a_failed_run_exits_1(tmp_path, capsys):
    missing = tmp_path / "does-not-exist"
    code = main(["bench", "--target", f"local:{missing}", "--workload", "dd", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1 and out["status"] == "failed" and "run directory" in out["error"]


def test_list_shows_builtins_and_broken_plugins(tmp_path, capsys, monkeypatch):
    (tmp_path / "bad.py").write_text("raise RuntimeError('boom')\n")
    monkeypatch.setenv("BRICKYARD_PLUGINS", str(tmp_path))
    assert main(["bench", "--list"]) == 0
    out = capsys.readouterr().out
    for name in ("dd:", "fio:", "smallfile:", "metadata:", "randread:", "pgbench:"):
        assert name in out
    assert "bad: BROKEN" in out and "RuntimeError: boom" in out


def test_link_rates_read_as_bits_or_bytes():
    assert parse_rate("1Gbit") == 125_000_000
    assert parse_rate("10 Gbit/s") == 1_250_000_000
    assert parse_rate("117MB/s") == 117_000_000


def test_save_writes_the_run_into_the_history_database(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'history.db'}"
    work = tmp_path / "work"
    work.mkdir()
    assert main(["bench", "--target", f"local:{work}", "--workload", "dd", "--param", "block_sizes=1M",
                 "--param", "concurrency=1", "--param", "size=1M", "--param", "direction=write",
                 "--param", "repeats=1", "--save", "--db", db]) == 0
    assert "saved as run" in capsys.readouterr().out
    assert main(["history", "list", "--db", db, "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    rows = listed if isinstance(listed, list) else listed.get("runs", [])
    assert len(rows) == 1 and rows[0]["workload"] == "dd" and rows[0]["status"] == "complete"
