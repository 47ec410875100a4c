"""Runs named by what tells them apart; a local baseline is never a gluster run; filters match
as an admin types them. (Real sandbox provenance: tests/store/test_real_provenance.py.)"""

from __future__ import annotations

import dataclasses

from brickyard.core.compare import provenance_diff
from brickyard.core.results import Provenance, RunResult, RunStatus, is_gluster_target
from brickyard.core.runlabels import (
    gluster_versions,
    layout_matches,
    option_value,
    run_labels,
    run_series,
    series_of,
    version_matches,
)

HOST = {"kernel": "6.1.0-26-amd64", "os": "Debian GNU/Linux 12 (bookworm)", "gluster": "glusterfs 10.3"}


def _run(run_id: str, started: float = 1.76e9, **prov) -> RunResult:
    base = dict(brickyard_version="0.1.0", hosts={"client1": dict(HOST), "node1": dict(HOST)},
                target="client1:/mnt/gv0", target_kind="gluster", volume_name="gv0",
                layout={"type": "Replicate", "replica": 2, "bricks": ["node1:/b", "node2:/b"]}, workload="dd")
    base.update(prov)
    return RunResult(run_id, "dd", RunStatus.COMPLETE, started, started + 60, Provenance(**base), [])


def _local(run_id: str, path: str = "/var/tmp/base", started: float = 1.76e9 + 60) -> RunResult:
    # what Brickyard recorded before local runs dropped it: the host's installed glusterfs
    return _run(run_id, started, hosts={"local": dict(HOST)}, target=f"local:{path}", target_kind="local",
                volume_name="", layout={})


def test_a_local_baseline_is_labelled_by_its_path_never_as_a_gluster_run():
    gluster, local = _run("a" * 32), _local("b" * 32)
    assert run_labels([gluster, local]) == ["gluster gv0", "local /var/tmp/base"]
    assert gluster_versions(local.provenance) == [] and gluster_versions(gluster.provenance) == ["10.3"]
    fields = [d.field for d in provenance_diff([gluster, local])]
    assert "gluster on local" not in fields and "target kind" in fields


def test_labels_name_only_what_differs_and_the_date_only_when_nothing_does():
    a = _run("a" * 32)
    b = _run("b" * 32, hosts={"client1": {**HOST, "gluster": "glusterfs 11.1"}, "node1": HOST})
    assert run_labels([a, b]) == ["glusterfs 10.3", "glusterfs 10.3, 11.1"]
    c = _run("c" * 32, volume_options={"performance.write-behind": "off"},
             volume_settings={"performance.write-behind": "off"})
    d = _run("d" * 32, volume_settings={"performance.write-behind": "on"})
    assert run_labels([c, d]) == ["performance.write-behind=off", "performance.write-behind=on (gluster default)"]
    same = [_run("e" * 32, 1.76e9), _run("f" * 32, 1.76e9 + 3600)]
    assert run_labels(same) == ["gluster gv0 · 2025-10-09 08:53", "gluster gv0 · 2025-10-09 09:53"]
    assert run_labels([same[0]]) == ["gluster gv0 · replica 2 (2 bricks) · 2025-10-09 08:53"]
    other_client = _run("g" * 32, target="client2:/mnt/gv0")
    assert run_labels([a, other_client, _local("h" * 32)]) == \
        ["gluster gv0 · client1:/mnt/gv0", "gluster gv0 · client2:/mnt/gv0", "local /var/tmp/base"]


def test_an_option_left_at_gluster_default_is_no_difference():
    set_on = _run("a" * 32, volume_options={"performance.write-behind": "on"},
                  volume_settings={"performance.write-behind": "on"})
    unset = _run("b" * 32, volume_settings={"performance.write-behind": "on",
                                            "cluster.min-free-disk": "10% (DEFAULT)"})
    assert option_value(unset.provenance, "performance.write-behind") == ("on", "default")
    assert option_value(unset.provenance, "cluster.min-free-disk") == ("10%", "default")
    assert [d.field for d in provenance_diff([set_on, unset])] == []
    off = _run("c" * 32, volume_options={"performance.write-behind": "off"})
    (d,) = provenance_diff([off, unset])
    assert d.field == "option performance.write-behind" and d.values == ("off", "on (gluster default)")
    unknown = _run("d" * 32)                       # recorded before `volume get` was: cannot resolve
    (d,) = provenance_diff([set_on, unknown])
    assert d.values == ("on", "(not set)")


def test_version_filters_match_as_typed():
    assert version_matches("glusterfs 10.3", "10.3")
    assert version_matches("glusterfs 10.3", "glusterfs 10.3")
    assert version_matches("glusterfs 10.3", "10")
    assert version_matches("3.12.15", "3.12")
    assert not version_matches("glusterfs 10.3", "10.31")
    assert not version_matches("glusterfs 10.3", "6.0")
    assert not version_matches("glusterfs 10.3", "1")


def test_layout_filters_match_type_names_in_any_case_and_label_pieces():
    disperse = ("Disperse", "disperse 3 redundancy 1 (3 bricks)")
    dist_disp = ("Distributed-Disperse", "disperse 3 redundancy 1 × 2 (6 bricks)")
    replicate = ("Replicate", "replica 2 (2 bricks)")
    for typed in ("disperse", "Disperse", "DISPERSE", "dispersed"):
        assert layout_matches(typed, *disperse) and layout_matches(typed, *dist_disp)
        assert not layout_matches(typed, *replicate)
    assert layout_matches("distributed-disperse", *dist_disp) and not layout_matches("distributed-disperse", *disperse)
    assert layout_matches("replicate", *replicate) and layout_matches("replicated", *replicate)
    assert layout_matches("replica 2", *replicate) and not layout_matches("replica 3", *replicate)
    assert layout_matches("redundancy 1", *disperse)


def test_series_name_what_was_measured():
    assert series_of("gluster", "client1:/mnt/gv0", "gv0") == "gluster gv0"
    assert series_of("local", "local:/var/tmp/base") == "local /var/tmp/base"
    assert series_of("nfs", "client1:/mnt/nas") == "nfs client1:/mnt/nas"
    assert run_series(_local("a" * 32)) == "local /var/tmp/base"
    assert run_series(dataclasses.replace(_run("b" * 32))) == "gluster gv0"


def test_a_target_kind_is_gluster_only_when_one_of_its_comma_separated_kinds_is_exactly_gluster():
    assert is_gluster_target("gluster")
    assert is_gluster_target("local,gluster")            # a run over several targets counts when any is
    for kind in ("local", "nfs", "tmpfs", "", None, "unknown", "glusterish", "not-gluster", "local,nfs"):
        assert not is_gluster_target(kind), kind
    # every user of the rule agrees: a kind that only contains the word is a baseline, not a volume
    assert series_of("glusterish", "client1:/x", "gv0") == "glusterish client1:/x"
    assert gluster_versions(_run("a", target_kind="glusterish").provenance) == []
