"""The topology loader's boundary: every hostile file of tests/fixtures/hostile/topology is
refused (or, for the counts gluster itself must judge, planned) quickly, with the field path,
and never with anything but a TopologyFileError."""

from __future__ import annotations

import json
import os
import time

import pytest

from brickyard.core import strictjson, topofile
from brickyard.core.layout import auto_redundancy, split_sets
from brickyard.core.plan import plan_volume
from brickyard.core.topofile import TopologyFileError
from brickyard.core.topology import BrickRef

from ..conftest import FIXTURES

HOSTILE = FIXTURES / "hostile"
INDEX = json.loads((HOSTILE / "index.json").read_text())
TOPOLOGY_CASES = sorted(k for k in INDEX if k.startswith("topology/"))
PLANNED = {"topology/replica-1e9.brickyard.json", "topology/disperse-1e9.brickyard.json"}


@pytest.mark.parametrize("name", TOPOLOGY_CASES)
def test_every_hostile_topology_is_refused_with_its_field_path(name):
    path = HOSTILE / name
    if name in PLANNED:
        return
    with pytest.raises(TopologyFileError) as err:
        topofile.load(path)
    expected = INDEX[name]["path"]
    paths = [p.path for p in err.value.problems]
    if expected:
        assert any(p == expected or p.startswith(expected) for p in paths), (paths, expected)
    for line in str(err.value).splitlines():   # printable: no raw control character or surrogate
        assert line.isprintable(), line
        line.encode("utf-8")


@pytest.mark.parametrize("name", sorted(PLANNED))
def test_a_count_of_a_billion_is_planned_at_the_cost_of_the_bricks(name):
    topo = topofile.load(HOSTILE / name)
    started = time.monotonic()
    result = plan_volume(topo, topo.volumes[0], [])
    assert time.monotonic() - started < 2
    assert not result.valid and any(f.code == "not-multiple" for f in result.errors)


def test_split_sets_never_allocates_by_the_count_asked_for():
    bricks = [BrickRef("n1", f"/b{i}") for i in range(6)]
    assert split_sets(bricks, 10**12) == (tuple(bricks),)
    assert split_sets(bricks, 3) == (tuple(bricks[:3]), tuple(bricks[3:]))
    assert split_sets([], 10**12) == ()


def _auto_redundancy_loop(disperse):
    """cli_cmd_create_disperse_check's loop as gluster writes it."""
    tmp, i = disperse - 1, (disperse - 1) // 2
    while i > 0 and not (tmp > 0 and tmp & (tmp - 1) == 0):
        i -= 1
        tmp -= 1
    return 1 if i == 0 else disperse - tmp


def test_auto_redundancy_in_closed_form_agrees_with_glusters_loop_and_takes_no_time():
    for d in range(-5, 3000):
        assert auto_redundancy(d)[0] == _auto_redundancy_loop(d), d
    started = time.monotonic()
    assert auto_redundancy(2**62 + 7)[0] == 7
    assert time.monotonic() - started < 0.01


def test_every_problem_is_in_the_message_not_the_first_and_a_count():
    data = {"format_version": 1, "nodes": [{"name": "a", "ssh_port": 70000, "nic_gbps": "fast"},
                                           {"name": "b", "ssh_port": 0}]}
    with pytest.raises(TopologyFileError) as err:
        topofile.from_dict(data, "t.json")
    text = str(err.value)
    assert "more)" not in text
    for where in ("nodes[0].ssh_port", "nodes[0].nic_gbps", "nodes[1].ssh_port"):
        assert where in text


def test_hand_built_data_gets_the_same_checks_as_a_parsed_file():
    bad = {"format_version": 1, "nodes": [{"name": "a", "nic_gbps": float("nan")}]}
    with pytest.raises(TopologyFileError) as err:
        topofile.from_dict(bad)
    assert [p.path for p in err.value.problems] == ["nodes[0].nic_gbps"]


@pytest.mark.parametrize("version", [True, 1.0, "1", None, 0, 2.0, 3])
def test_format_version_is_the_integer_1_or_2_only(version):
    with pytest.raises(TopologyFileError) as err:
        topofile.from_dict({"format_version": version})
    assert err.value.problems[0].path == "format_version"


def test_non_regular_files_and_oversized_files_are_refused_before_reading(tmp_path, monkeypatch):
    for special in ("/dev/zero", "/dev/urandom"):
        with pytest.raises(TopologyFileError, match="not a regular file"):
            topofile.load(special)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(TopologyFileError, match="not a regular file"):
        topofile.load(fifo)                      # and it does not wait for a writer
    with pytest.raises(TopologyFileError, match="is a directory"):
        topofile.load(tmp_path)
    big = tmp_path / "big.brickyard.json"
    with open(big, "wb") as fh:
        fh.truncate(topofile.MAX_FILE_BYTES + 1)
    with pytest.raises(TopologyFileError, match="at most 64.0 MiB"):
        topofile.load(big)


def test_a_key_with_a_newline_is_quoted_in_the_path_and_the_error_stays_one_line_per_problem():
    text = json.dumps({"format_version": 1, "evil\nkey\u2028": 1, "bad\ud800": 2})
    with pytest.raises(TopologyFileError) as err:
        topofile.loads(text, "t.json")
    assert len(str(err.value).splitlines()) == 1 + len(err.value.problems)
    assert any(p.path == '["evil\\nkey\u2028"]' for p in err.value.problems)
    for p in err.value.problems:
        assert "\n" not in str(p) and str(p).isprintable()


def test_strict_parse_reports_every_kind_of_bad_value_with_its_path():
    text = ('{"a": NaN, "b": [1, Infinity, -Infinity], "c": 1e400, "d": ' + "9" * 5000 + ', "e": "x\\u0000",'
            ' "f": 1, "f": 2, "g": ' + str(2**63) + ', "h": ' + str(-(2**63)) + '}')
    data, problems = strictjson.parse(text)
    assert [p.path for p in problems] == ["a", "b[1]", "b[2]", "c", "d", "e", "f", "g"]
    assert data["a"] is strictjson.INVALID and data["h"] == -(2**63)


def test_printable_escapes_what_would_break_a_line_or_an_encoder():
    assert strictjson.printable("a\nb\x00c\ud800d\u2028") == "a\\nb\\u0000c\\ud800d\\u2028"
    assert strictjson.printable("Nürnberg 東京") == "Nürnberg 東京"


@pytest.mark.parametrize("where, value", [
    (("nodes", 0, "ssh_port"), 65536), (("nodes", 0, "nic_gbps"), 1e7),
    (("nodes", 0, "bricks", 0, "speed_bps"), 2e15), (("latencies", 0, "rtt_ms"), 2e7),
    (("nodes", 0, "bricks", 0, "size_bytes"), 2**63),
])
def test_the_published_schema_and_the_loader_agree_on_every_upper_bound(where, value):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(topofile.SCHEMA_PATH.read_text())
    doc = {"format_version": topofile.FORMAT_VERSION, "name": "t",
           "nodes": [{"name": "a", "bricks": [{"path": "/b", "size_bytes": 1}]}],
           "latencies": [{"a": "a", "b": "a", "rtt_ms": 1}]}
    target = doc
    for key in where[:-1]:
        target = target[key]
    target[where[-1]] = value
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, schema)
    with pytest.raises(TopologyFileError) as err:
        topofile.from_dict(doc)
    assert ".".join(map(str, where)).replace(".0.", "[0].") in [p.path for p in err.value.problems]
