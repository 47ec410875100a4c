"""Gluster's volume options: the catalog against recorded gluster 10.3 output, and the value
checks against what ``gluster volume set`` answered on the lab (the same cases run live in
tests/e2e/test_volume_options_lab.py)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from brickyard.core import gluster_options as go
from brickyard.core.topology import Layout, VolumeType

from ..conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "gluster"
REPLICA2 = Layout(VolumeType.REPLICATE, replica=2)
DISTRIBUTE = Layout(VolumeType.DISTRIBUTE)

# (name, value, gluster 10.3's answer on a replica 2 volume: None = "volume set: success",
# else the text after "volume set: failed: "), recorded on the lab
LAB_ANSWERS = [
    ("performance.cache-size", "64MB", None),
    ("performance.cache-size", "64XB", 'invalid number format "64XB" in option "cache-size"'),
    ("cluster.quorum-type", "sometimes",
     "option quorum-type sometimes: 'sometimes' is not valid (possible options are none, auto, fixed.)"),
    ("network.ping-timeout", "2000", "'2000' in 'option ping-timeout 2000' is out of range [0 - 1013]"),
    ("network.ping-timeout", "10m", None),
    ("performance.io-thread-count", "0x10", None),
    ("performance.io-thread-count", " 8", None),
    ("performance.io-thread-count", "8.0", 'invalid number format "8.0" in option "thread-count"'),
    ("cluster.min-free-disk", "120%", "'120.000000' in 'option min-free-disk 120%' is out of range [0 - 100]"),
    ("cluster.quorum-count", "3", "3 in cluster.quorum-count 3 is out of range [1 - 2]"),
    ("features.shard-block-size", "1.5GB", None),
    ("cluster.favorite-child-policy", "newest",
     "option favorite-child-policy newest: 'newest' is not valid (possible options are none, size, ctime, "
     "mtime, majority.)"),
    ("storage.reserve", "5GB", None),
    ("disperse.eager-lock", "off", None),
    ("cache-size", "64MB", None),
]


def test_the_catalog_lists_every_option_gluster_10_3_reports_with_its_help_text():
    got = ET.parse(FIXTURES / "volume-get-all-10.3.xml").getroot()
    names = list(dict.fromkeys(o.findtext("Option") for o in got.iter("Opt")))
    helped = {o.findtext("name"): o for o in ET.parse(FIXTURES / "volume-set-help-10.3.xml").getroot().iter("option")}
    assert list(go.catalog()) == names + [n for n in helped if n not in names]
    for name, option in helped.items():
        spec = go.catalog()[name]
        assert spec.documented and spec.description == (option.findtext("description") or "")
        if option.findtext("defaultValue") not in (None, "(null)"):
            assert spec.default == option.findtext("defaultValue"), name
    typed = [s for s in go.catalog().values() if s.type != "any"]
    assert len(typed) / len(go.catalog()) > 0.95  # the types come from gluster's own option tables


@pytest.mark.parametrize("name,value,answer", LAB_ANSWERS)
def test_values_are_judged_as_gluster_10_3_judged_them_on_the_lab(name, value, answer):
    check = go.check_option(name, value, REPLICA2, replica_count=2)
    assert check.problem == answer


def test_an_unknown_option_is_refused_with_the_closest_names():
    check = go.check_option("performance.cache-sise", "1GB")
    assert check.problem.startswith("option : performance.cache-sise does not exist")
    assert "performance.cache-size" in check.problem


def test_cluster_wide_options_are_refused_on_one_volume_as_gluster_does():
    check = go.check_option("cluster.brick-multiplex", "on", REPLICA2)
    assert check.problem.startswith("Not a valid option for single volume")
    assert "cluster.brick-multiplex" not in go.option_names()


def test_replica_only_and_disperse_only_options_follow_the_layout():
    assert go.check_option("cluster.quorum-count", "1", DISTRIBUTE).ok  # not validate_replica
    assert go.check_option("cluster.data-self-heal", "off", DISTRIBUTE).problem == \
        "Cannot set cluster.data-self-heal for a non-replicate volume."
    assert go.check_option("cluster.data-self-heal", "off", REPLICA2).ok
    assert go.check_option("cluster.self-heal-daemon", "off", DISTRIBUTE, volume_name="gv0").problem == \
        "Volume gv0 is not of replicate type"
    assert go.check_option("cluster.disperse-self-heal-daemon", "off", REPLICA2, volume_name="gv0").problem == \
        "Volume gv0 is not of disperse type"


@pytest.mark.parametrize("value,ok", [("on", True), ("OFF", True), ("Enable", True), ("0", True),
                                      ("maybe", False), ("", False), ("2", False)])
def test_booleans_take_glusters_words_in_any_case(value, ok):
    assert go.check_option("performance.write-behind", value).ok is ok


@pytest.mark.parametrize("text,expected", [("64MB", 64 * 2**20), ("64mb", 64 * 2**20), ("1.5GB", 3 * 2**29),
                                           ("4096", 4096), ("10B", 10), ("-1MB", None), ("1 MB", None),
                                           ("MB", None)])
def test_sizes_parse_as_gf_string2bytesize(text, expected):
    assert go.parse_bytesize(text) == expected


@pytest.mark.parametrize("text,expected", [("42", 42), ("10m", 600), ("2h", 7200), ("1d", 86400), ("3sec", 3),
                                           ("1w", 604800), ("5 m", None), ("-1", None), ("1.5", None)])
def test_times_parse_as_gf_string2time(text, expected):
    assert go.parse_time(text) == expected


def test_completion_finds_names_by_any_part():
    assert go.complete("performance.cache-s")[0] == "performance.cache-size"
    assert "performance.write-behind-window-size" in go.complete("window")
    assert "network.ping-timeout" in go.complete("ping")
    assert all(not go.catalog()[n].global_only for n in go.complete(""))


def test_every_catalog_default_passes_its_own_check():
    """Gluster's defaults are valid values; a check that refuses one is a wrong check."""
    refused = []
    for spec in go.catalog().values():
        if spec.global_only or spec.default in (None, "", "(null)") or "{{" in spec.default:
            continue
        problem = go.value_problem(spec, spec.default)
        if problem:
            refused.append((spec.name, spec.default, problem))
    assert refused == []


# gluster 10.3's user.* namespace (GD_HOOKS_SPECIFIC_KEY): each answer recorded on the lab
USER_ACCEPTED = [
    ("user.foo", "bar"), ("user.sp", "a b  c"), ("user.ws", " "), ("user.", "x"), ("user.a.b.c", "x"),
    ("user.x y", "v"), ("user.$(id)", "v"), ("user.smb", "enable"), ("user.foo", "-x"), ("user.eq", "a=b"),
    ("user.k", "v" * 4084),      # name and value 4090 bytes: the most glusterd's store buffer holds
]
USER_REFUSED_BY_GLUSTER = [
    ("USER.up", "x", "option : USER.up does not exist"),   # the namespace is case-sensitive
    ("user", "x", "option : user does not exist"),
    ("user.empty", "", "needs a value"),                    # the CLI: Usage: volume set …
    ("user.d1", "--x", "option of its own"),                # the CLI: unrecognized option --x
    ("user.f2", "--", "option of its own"),
]
# gluster said "volume set: success" to these, then could not keep them (seen on the lab)
USER_STRICTER = [
    ("user.a=b", "v", "after glusterd restarts this is 'user.a' = 'b=v'"),
    ("user.nl", "line1\nline2", "cannot restore the volume at glusterd's next start"),
    ("user.k2", "v" * 4084, "hold 4091 bytes; glusterd 10.3 keeps at most 4090"),
    ("user.long", "x" * 5000, "crashed glusterd on the lab"),
]


@pytest.mark.parametrize("name, value", USER_ACCEPTED)
def test_any_user_namespace_option_is_taken_verbatim_as_gluster_takes_it(name, value):
    check = go.check_option(name, value, REPLICA2, replica_count=2)
    assert check.ok, check.problem
    assert check.notes == []                       # no whitespace dropped from a user.* value
    assert check.spec is not None and check.spec.name == name and check.spec.type == "user"
    assert go.resolve_name(name) == name and go.lookup(name).name == name


@pytest.mark.parametrize("name, value, words", USER_REFUSED_BY_GLUSTER + USER_STRICTER)
def test_what_gluster_refuses_or_cannot_keep_in_the_user_namespace_is_refused_with_the_reason(name, value, words):
    check = go.check_option(name, value, REPLICA2, replica_count=2)
    assert not check.ok and words in check.problem, check.problem


def test_the_cli_drops_whitespace_from_other_options_values_as_gluster_does():
    check = go.check_option("performance.write-behind", " o f f ", REPLICA2)
    assert check.ok and check.notes == ["gluster's CLI drops the whitespace: it sets 'off'"]
    assert go.check_option("performance.cache-size", "64 MB", REPLICA2).ok
    assert "needs a value" in go.check_option("performance.write-behind", "\t", REPLICA2).problem
    # gluster quotes the value it judged: the one without whitespace
    assert go.check_option("performance.write-behind", "maybe ", REPLICA2).problem == \
        "option perf maybe: 'maybe' is not a valid boolean value"


def test_no_option_may_hold_more_than_glusterds_store_buffer():
    hosts = ",".join(f"10.0.{i // 250}.{i % 250 + 1}" for i in range(400))
    assert len("auth.allow") + len(hosts) > go.STORE_PAIR_MAX
    check = go.check_option("auth.allow", hosts, REPLICA2)
    assert not check.ok and "glusterd 10.3 keeps at most 4090" in check.problem
    assert go.check_option("auth.allow", hosts[:4000], REPLICA2).ok
