"""`brickyard bench` headless: exit codes and JSON say what happened."""

import json

import pytest

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


DD_TINY = ["--workload", "dd", "--param", "block_sizes=64K", "--param", "size=1M", "--param", "repeats=1",
           "--param", "concurrency=1", "--param", "direction=write"]


@pytest.mark.parametrize("broken", ["a folder", "not JSON", "history_db not a URL", "cannot be read"])
def test_save_with_an_unreadable_settings_file_is_one_line_and_exit_2(tmp_path, capsys, monkeypatch, broken):
    """As `history`, `report` and `campaign` say it (issue 25 point 9): no traceback, nothing measured."""
    from brickyard.core import settings as core_settings

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("BRICKYARD_DB", raising=False)
    path = tmp_path / "config" / "brickyard" / "settings.json"
    path.parent.mkdir(parents=True)
    if broken == "a folder":
        path.mkdir()
    elif broken == "not JSON":
        path.write_text("{bad json")
    elif broken == "history_db not a URL":
        path.write_text('{"history_db": 5}')
    else:
        path.write_text("{}")
        real = core_settings.strictjson.load_object

        def refused(p, **kw):
            if str(p) == str(path):
                exc = core_settings.strictjson.JsonFileError(str(p), [core_settings.strictjson.Problem("", "refused")])
                exc.errno = 13
                raise exc
            return real(p, **kw)

        monkeypatch.setattr(core_settings.strictjson, "load_object", refused)
    (tmp_path / "work").mkdir()
    assert main(["bench", "--target", f"local:{tmp_path / 'work'}", *DD_TINY, "--save"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert str(path) in err and "nothing was measured" in err
    assert main(["history", "list"]) == 2
    assert str(path) in capsys.readouterr().err
