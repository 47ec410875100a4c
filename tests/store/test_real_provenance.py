"""History filters, run labels, option defaults and compare defaults against runs really
made on the gluster sandbox (tests/fixtures/runs/sandbox, see its README): the strings are
gluster's and the engine's own ("glusterfs 10.3", "Disperse", `volume get` values)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from brickyard.bench.provenance import parse_volume_get
from brickyard.cli import main
from brickyard.store import HistoryStore
from brickyard.store.exchange import read_export

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SANDBOX = FIXTURES / "runs" / "sandbox"
OLD_LOCAL = FIXTURES / "runs" / "local-dd-both-4K-1M.json"     # recorded before local runs dropped gluster

HDISP = "6404392a49c6"
HREP_OFF, HREP_ON_SET, HREP_UNSET = "270e9d90401a", "9d580e2cc954", "23d4f163020c"
LOCAL = "78bae256ef95"
PG_UNSET, PG_OFF = "2d1192f1fea0", "95c60c654aab"


@pytest.fixture
def url(db_url):
    with HistoryStore(db_url) as store:
        for export in sorted(SANDBOX.glob("*.json")) + [OLD_LOCAL]:
            store.import_json(export)
    return db_url


def _list(url: str, capsys, *flags: str) -> list[str]:
    assert main(["history", "list", "--db", url, "--json", *flags]) == 0
    return sorted(r["run_id"][:12] for r in json.loads(capsys.readouterr().out))


def test_the_recorded_strings_are_the_real_ones():
    runs = {r.run_id[:12]: r for f in SANDBOX.glob("*.json") for r in read_export(f)}
    p = runs[HDISP].provenance
    assert p.hosts["client1"]["gluster"] == "glusterfs 10.3" and p.layout["type"] == "Disperse"
    assert p.volume_settings["cluster.min-free-disk"] == "10% (DEFAULT)"
    assert "gluster" not in runs[LOCAL].provenance.hosts["local"]
    old = read_export(OLD_LOCAL)[0]
    assert old.provenance.hosts["local"]["gluster"] == "glusterfs 10.3"     # the installed client


def test_gluster_version_filter_matches_as_typed_and_skips_local_baselines(url, capsys):
    gluster_runs = sorted([HDISP, HREP_OFF, HREP_ON_SET, HREP_UNSET, PG_UNSET, PG_OFF])
    assert _list(url, capsys, "--gluster-version", "10.3") == gluster_runs
    assert _list(url, capsys, "--gluster-version", "glusterfs 10.3") == gluster_runs
    assert _list(url, capsys, "--gluster-version", "10") == gluster_runs
    assert _list(url, capsys, "--gluster-version", "10.31") == []
    main(["history", "list", "--db", url, "--json"])
    rows = {r["run_id"][:12]: r for r in json.loads(capsys.readouterr().out)}
    assert rows[HDISP]["gluster_versions"] == "10.3"
    old_local = next(k for k, r in rows.items() if r["target"].startswith("local:/tmp/by-ddtarget"))
    assert rows[LOCAL]["gluster_versions"] == "" and rows[old_local]["gluster_versions"] == ""


def test_layout_and_option_filters_match_as_typed(url, capsys):
    for typed in ("disperse", "Disperse", "DISPERSE", "dispersed", "redundancy 1"):
        assert _list(url, capsys, "--layout", typed) == [HDISP], typed
    hrep = sorted([HREP_OFF, HREP_ON_SET, HREP_UNSET, PG_UNSET, PG_OFF])
    assert _list(url, capsys, "--layout", "replicate") == hrep
    assert _list(url, capsys, "--layout", "replica 2") == hrep
    assert _list(url, capsys, "--option", "write-behind=off") == sorted([HREP_OFF, PG_OFF])
    assert _list(url, capsys, "--option", "performance.write-behind=OFF") == sorted([HREP_OFF, PG_OFF])


def test_a_local_baseline_compares_as_a_path_not_as_a_gluster_version(url, capsys):
    assert main(["history", "compare", "--db", url, LOCAL, HDISP, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["label"] for r in data["runs"]] == ["local /var/tmp/hist-base", "gluster hdisp"]
    assert all("(not set)" not in m["sentence"] for m in data["metrics"])
    assert data["metrics"][0]["sentence"].startswith("gluster hdisp is")


def test_an_option_at_gluster_default_is_no_difference_and_a_real_one_is_named(url, capsys):
    assert main(["history", "compare", "--db", url, HREP_ON_SET, HREP_UNSET, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert not [d for d in data["differences"] if d["field"].startswith("option ")]
    assert main(["history", "compare", "--db", url, HREP_OFF, HREP_UNSET, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    (d,) = [d for d in data["differences"] if d["field"].startswith("option ")]
    assert d == {"field": "option performance.write-behind", "values": ["off", "on (gluster default)"]}


def test_pgbench_compares_by_its_headline_with_labelled_points(url, capsys):
    assert main(["history", "compare", "--db", url, PG_UNSET, PG_OFF]) == 0
    out = capsys.readouterr().out
    assert "no sweep point" not in out and "Metric: tps, init_seconds (the workload's headline)" in out
    assert main(["history", "compare", "--db", url, PG_UNSET, PG_OFF, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {m["metric"] for m in data["metrics"]} == {"tps", "init_seconds"}
    run = next(m for m in data["metrics"] if m["metric"] == "tps")
    assert run["point_label"].startswith("run clients=2 ") and "transactions=50" in run["point_label"]
    init = next(m for m in data["metrics"] if m["metric"] == "init_seconds")
    assert not init["significant"]           # within the ~30 % spread these runs really had


def test_dd_points_carry_labelled_values_and_each_compared_run_is_named(url, capsys):
    assert main(["history", "compare", "--db", url, HREP_OFF, HREP_ON_SET, HREP_UNSET]) == 0
    out = capsys.readouterr().out
    assert "write bs 64K ×1 count=64 file_size=4M" in out
    assert "16384" not in out and "4194304" not in out
    assert "performance.write-behind=on (gluster default) (median)" in out
    assert "performance.write-behind=on (median)" in out
    assert "MB/s" in out and "MiB/s" not in out


def test_history_show_writes_rates_in_the_chosen_units(url, capsys, monkeypatch):
    assert main(["history", "show", "--db", url, HDISP]) == 0
    assert " MB/s" in capsys.readouterr().out
    monkeypatch.setenv("BRICKYARD_UNITS", "binary")
    try:
        assert main(["history", "show", "--db", url, HDISP]) == 0
        assert " MiB/s" in capsys.readouterr().out
    finally:
        from brickyard.core.units import set_binary_rates
        set_binary_rates(False)


def test_volume_get_xml_from_the_lab_parses():
    settings = parse_volume_get((FIXTURES / "gluster" / "lab-volume-get-hrep-all.xml").read_text())
    assert settings["performance.write-behind"] == "off"          # set on hrep at capture time
    assert settings["cluster.lookup-optimize"] == "on (DEFAULT)"
    assert len(settings) > 300
