"""Reading a topology file quickly (``strictjson.parse_quick`` and the schema reader checking
the numbers it keeps) gives exactly what the strict parser and reader give: the same Topology
for a good file, and for a malformed one the same problems (paths, messages, lines) in the
same order, since any problem sends ``topofile.loads`` back to the strict read. Compared on
hand-picked malformed files (keys given twice, NaN/Infinity, integers past 64 bits or 4,300
digits, numbers past a double, bad types, nesting past the limit, NUL and lone surrogates,
syntax errors) and on random ones."""

from __future__ import annotations

import copy
import json
import random

import pytest

from brickyard.core import jsonparse, strictjson, topofile
from brickyard.core.strictjson import FLOAT_MAX, INT_MAX, INT_MIN, Field, Reader, Record


def _doc(nodes: int = 3, bricks: int = 2, version: int = 2) -> dict:
    brick = {"path": "", "size_bytes": 10**12, "filesystem": "/dev/sdb", "mount": "/data", "fs_type": "xfs",
             "disk_kind": "NVMe", "speed_bps": 2.5e8}
    if version >= 2:
        brick.update(free_bytes=None, free_measured="")
    doc = {"format_version": version, "name": "t", "description": "",
           "sites": [{"name": "dc1", "description": ""}, {"name": "dc2", "description": ""}],
           "nodes": [{"name": f"n{n}", "site": f"dc{1 + n % 2}", "address": "", "ssh_user": "root", "ssh_port": 22,
                      "nic_gbps": 10.0, "bricks": [dict(brick, path=f"/data/b{b}") for b in range(bricks)]}
                     for n in range(nodes)],
           "clients": [{"name": "c1", "site": "dc1", "address": "", "ssh_user": "root", "ssh_port": 22,
                        "nic_gbps": None}],
           "latencies": [{"a": "site:dc1", "b": "site:dc2", "rtt_ms": 12.5, "measured": True}],
           "volumes": [{"name": "gv0", "type": "distributed-replicate", "replica": 3, "arbiter": 0,
                        "disperse": None, "redundancy": None,
                        "bricks": [f"n{n}:/data/b{b}" for b in range(bricks) for n in range(nodes)],
                        "options": {"performance.write-behind": "off"}, "transport": "tcp", "force": False,
                        "mounts": [{"client": "c1", "path": "/mnt/gv0", "options": "", "fstab": False}]}]}
    if version >= 2:
        doc["volumes"][0].update(thin_arbiter=0, thin_arbiter_brick=None, disperse_data=None)
    return doc


def _outcome(read, text: str):
    try:
        return "ok", read(text)
    except topofile.TopologyFileError as exc:
        return "error", exc.problems, str(exc)


def _same(text: str):
    """Both reads of ``text``; asserts they agree and returns the outcome."""
    quick = _outcome(lambda t: topofile.loads(t, "f.brickyard.json"), text)
    strict = _outcome(lambda t: topofile._loads_strict(t, "f.brickyard.json"), text)
    assert quick == strict, (text[:300], quick[1:], strict[1:])
    return quick


def _text(doc) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False)


def _with(doc: dict, where: tuple, value) -> dict:
    doc = copy.deepcopy(doc)
    *parents, last = where
    target = doc
    for key in parents:
        target = target[key]
    target[last] = value
    return doc


RAW = "@@raw@@"


def _raw(doc: dict, where: tuple, token: str) -> str:
    """The document's text with the value at ``where`` written as ``token`` (any JSON text, or
    text that is not JSON: NaN, 1e400, a 5,000-digit number)."""
    return _text(_with(doc, where, RAW)).replace(json.dumps(RAW), token, 1)


def _duplicate(doc: dict, where: tuple, key: str, token: str) -> str:
    """The text with ``key`` given a second time (value ``token``) in the object at ``where``."""
    marker = "@@dup@@"
    text = _text(_with(doc, (*where, marker), 0))
    return text.replace(f'"{marker}": 0', f'"{key}": {token}', 1)


WHERE = {
    "top": (),
    "site": ("sites", 1),
    "node": ("nodes", 2),
    "brick": ("nodes", 1, "bricks", 1),
    "client": ("clients", 0),
    "latency": ("latencies", 0),
    "volume": ("volumes", 0),
    "options": ("volumes", 0, "options"),
    "mount": ("volumes", 0, "mounts", 0),
}
NUMBER_FIELDS = [("top", "format_version"), ("node", "ssh_port"), ("node", "nic_gbps"), ("brick", "size_bytes"),
                 ("brick", "speed_bps"), ("brick", "free_bytes"), ("client", "nic_gbps"), ("latency", "rtt_ms"),
                 ("volume", "replica"), ("volume", "arbiter"), ("volume", "disperse_data"),
                 ("options", "performance.write-behind"), ("brick", "unknown"), ("node", "unknown"),
                 ("top", "unknown"), ("mount", "fstab")]
BAD_NUMBERS = ["NaN", "Infinity", "-Infinity", "1e400", "-1e400", str(2**63), str(-(2**63) - 1), str(2**64),
               "9" * 20, "9" * 5000, "-" + "9" * 4301, "1" + "0" * 400 + ".0", str(2**63 - 1), str(-(2**63)),
               "1.7976931348623157e308", "0", "-1", "1.0", "-0.0", "1e-400"]


@pytest.mark.parametrize("token", BAD_NUMBERS)
@pytest.mark.parametrize("place,key", NUMBER_FIELDS, ids=[f"{p}.{k}" for p, k in NUMBER_FIELDS])
def test_every_number_anywhere_is_judged_as_the_strict_parser_judges_it(place, key, token):
    _same(_raw(_doc(), (*WHERE[place], key), token))


@pytest.mark.parametrize("place", list(WHERE))
@pytest.mark.parametrize("key,token", [("name", '"x"'), ("path", '"/data/b1"'), ("size_bytes", "1"),
                                       ("performance.write-behind", '"on"'), ("bricks", "[]"), ("zz", "NaN")])
def test_a_key_given_twice_anywhere_is_named_as_the_strict_parser_names_it(place, key, token):
    doc = _doc()
    target = doc
    for k in WHERE[place]:
        target = target[k]
    outcome = _same(_duplicate(doc, WHERE[place], key, token))
    if key in target:
        assert outcome[0] == "error"
        assert any("appears twice" in p.message for p in outcome[1]), outcome


DEEP_LIST = "[" * 70 + "1" + "]" * 70
DEEP_OBJECT = '{"a": ' * 70 + "1" + "}" * 70
BAD_VALUES = ["true", "false", "null", '"text"', '""', '" "', "1.5", "[]", "{}", "[1, 2]", '{"a": 1}', DEEP_LIST,
              DEEP_OBJECT, '"\\u0000"', '"a\\ud800"', '"\\udc80b"', '"\\ud83d\\ude00"', '"é"', '"\\u00e9"',
              '"line\\nbreak"', '"n0:/data/b0"', '"nowhere:/x"', '"no-colon"']
STRING_AND_OTHER_FIELDS = [("top", "name"), ("top", "sites"), ("top", "nodes"), ("top", "volumes"),
                           ("site", "name"), ("node", "name"), ("node", "site"), ("node", "bricks"),
                           ("brick", "path"), ("brick", "size_bytes"), ("brick", "free_measured"),
                           ("brick", "speed_bps"), ("volume", "type"), ("volume", "bricks"),
                           ("volume", "thin_arbiter_brick"), ("volume", "options"), ("volume", "mounts"),
                           ("options", "performance.write-behind"), ("mount", "path"), ("mount", "options"),
                           ("latency", "measured"), ("latency", "a"), ("client", "ssh_port"), ("brick", "zz")]


@pytest.mark.parametrize("token", BAD_VALUES)
@pytest.mark.parametrize("place,key", STRING_AND_OTHER_FIELDS, ids=[f"{p}.{k}" for p, k in STRING_AND_OTHER_FIELDS])
def test_every_kind_of_value_anywhere_is_judged_as_the_strict_reader_judges_it(place, key, token):
    _same(_raw(_doc(), (*WHERE[place], key), token))


@pytest.mark.parametrize("text", [
    "", "{", "[]", "5", '"x"', "null", "{}", '{"format_version": 2,}', '{"format_version": 2} x',
    '{"format_version": 3}', '{"format_version": 1.0}', '{"format_version": true}', '{"format_version": NaN}',
    '{"format_version": 2, "format_version": 2}', '{"format_version": 2, "name": "a\\u0000"}',
    '{"format_version": 2, "x\\ud800": 1}', '\ufeff{"format_version": 2}', '{"format_version": 2, "name": "\udc80"}',
    "[" * 100000 + "]" * 100000, '{"format_version": 2, "nodes": ' + "[" * 3000 + "]" * 3000 + "}",
    '{"format_version": 2, "nodes": [' + DEEP_OBJECT + "]}",
], ids=lambda t: repr(t[:40]))
def test_whole_files_that_are_not_topologies_are_refused_alike(text):
    assert _same(text)[0] == "error"


@pytest.mark.parametrize("version", [1, 2])
def test_good_files_read_alike_and_without_the_strict_parser(version, monkeypatch):
    docs = [_doc(version=version), _doc(nodes=1, bricks=1, version=version), {"format_version": version}]
    texts = [_text(d) for d in docs] + [json.dumps(docs[0]), json.dumps(docs[0], indent="\t", ensure_ascii=True)]
    big = _doc(nodes=3, version=version)
    big["nodes"][0]["name"] = "nœud-ü"
    big["volumes"][0]["bricks"] = [ref.replace("n0:", "nœud-ü:") for ref in big["volumes"][0]["bricks"]]
    big["nodes"][1]["bricks"][0]["size_bytes"] = INT_MAX
    big["nodes"][1]["bricks"][1]["speed_bps"] = topofile.MAX_RATE_BPS
    big["volumes"][0]["options"]["a\nb"] = "x\ty"
    texts.append(_text(big))
    expected = [topofile._loads_strict(t, "f") for t in texts]

    def no_strict_parse(*args, **kwargs):
        raise AssertionError("the strict parser was asked to read a good file")

    monkeypatch.setattr(strictjson, "parse", no_strict_parse)
    assert [topofile.loads(t, "f") for t in texts] == expected


def test_a_problem_sends_the_read_to_the_strict_parser(monkeypatch):
    calls = []
    parse = strictjson.parse
    monkeypatch.setattr(strictjson, "parse", lambda *a, **kw: calls.append(1) or parse(*a, **kw))
    with pytest.raises(topofile.TopologyFileError):
        topofile.loads(_raw(_doc(), ("nodes", 0, "bricks", 0, "size_bytes"), str(2**64)))
    assert calls == [1]


# ---- random files ---------------------------------------------------------------------------

TOKENS = BAD_NUMBERS + BAD_VALUES


def _paths(value, where=()):
    """Every (container path, key) in a parsed document."""
    if isinstance(value, dict):
        for key, v in value.items():
            yield (*where, key)
            yield from _paths(v, (*where, key))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield (*where, i)
            yield from _paths(v, (*where, i))


def _containers(value, where=()):
    if isinstance(value, dict):
        yield where
        for key, v in value.items():
            yield from _containers(v, (*where, key))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _containers(v, (*where, i))


@pytest.mark.parametrize("seed", range(6))
def test_random_malformed_files_read_alike(seed):
    rng = random.Random(seed)
    for _ in range(120):
        doc = _doc(nodes=rng.randint(1, 4), bricks=rng.randint(1, 3), version=rng.choice([1, 2, 2]))
        edits = rng.randint(0, 3)
        tokens: list[str] = []
        for _ in range(edits):
            roll = rng.random()
            if roll < 0.6:            # a value replaced by a token
                where = rng.choice(list(_paths(doc)))
                marker = f"@@tok{len(tokens)}@@"
                doc = _with(doc, where, marker)
                tokens.append((json.dumps(marker), rng.choice(TOKENS)))
            elif roll < 0.8:          # a key given twice
                where = rng.choice(list(_containers(doc)))
                target = doc
                for key in where:
                    target = target[key]
                if target:
                    marker = f"@@dup{len(tokens)}@@"
                    doc = _with(doc, (*where, marker), 0)
                    tokens.append((f'"{marker}": 0', f'{json.dumps(rng.choice(list(target)))}: {rng.choice(TOKENS)}'))
            else:                     # a value removed
                where = rng.choice(list(_paths(doc)))
                *parents, last = where
                target = doc = copy.deepcopy(doc)
                for key in parents:
                    target = target[key]
                del target[last]
        text = _text(doc)
        for marker, token in tokens:
            text = text.replace(marker, token, 1)
        _same(text)


# ---- the parts ------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    '{"a": 1, "a": 2}', '[{"b": {"a": 1, "a": 1}}]', "NaN", '{"x": [Infinity]}', "-Infinity", "9" * 4301,
    "[1, 2", '"\\u0000"', '"\\ud800"', '"\\uDFFF"', '"\udc80"', "[" * 100000 + "]" * 100000, "",
])
def test_parse_quick_leaves_to_parse_what_only_parsing_can_see(text):
    assert jsonparse.parse_quick(text) is None
    assert strictjson.parse(text)[1]          # and parse names a problem


@pytest.mark.parametrize("text", [
    "{}", "[]", "1", '{"a": [1, 2.5, "x", null, true]}', '"\\u00e9\\n"', '{"n": -0.0, "b": "é"}',
    '{"a": {"b": {"c": [1e-400]}}}',
])
def test_parse_quick_gives_what_parse_gives_on_clean_text(text):
    data, problems = strictjson.parse(text)
    assert problems == [] and jsonparse.parse_quick(text) == data


def test_parse_quick_leaves_numbers_and_depth_to_the_reader():
    # documented: the caller bounds every number it keeps and reads nothing deeper than itself
    assert jsonparse.parse_quick(str(2**70)) == 2**70
    assert jsonparse.parse_quick("1e400") == float("inf")
    assert jsonparse.parse_quick("[" * 70 + "]" * 70) is not None


SCHEMA = Record({"n": Field(int, 0), "m": Field(int, 0, minimum=0, maximum=10), "f": Field(float, None, nullable=True),
                 "g": Field(float, 0.0, minimum=0)}, {"n"})


@pytest.mark.parametrize("raw", [
    {"n": 2**63}, {"n": -(2**63) - 1}, {"n": 1, "f": float("inf")}, {"n": 1, "f": float("-inf")},
    {"n": 1, "f": float("nan")}, {"n": 1, "f": 2**64}, {"n": 1, "g": float("nan")}, {"n": 1, "m": 11},
    {"n": 1, "g": float("inf")}, {"n": 1, "f": -(2**70)},
])
def test_record_checks_every_number_it_keeps_against_64_bits_and_a_double(raw):
    assert SCHEMA.fast(raw) is None
    many = [{"n": 1, "m": 2, "f": None, "g": 1.0}] * 5
    many = [{**m, "n": i} for i, m in enumerate(many)]
    assert SCHEMA.fast_columns(many, ("n", "m", "f", "g")) is not None
    bad = {**many[0], **raw}
    assert SCHEMA.fast_columns([*many[:2], {k: bad[k] for k in many[0]}, *many[2:]], ("n", "m", "f", "g")) is None
    r = Reader(numbers_unchecked=True)
    values = r.record(raw, "x", SCHEMA)
    assert r.problems, values     # field() names it too, when the data came from parse_quick


@pytest.mark.parametrize("raw", [{"n": INT_MAX}, {"n": INT_MIN}, {"n": 0, "f": FLOAT_MAX}, {"n": 0, "f": -FLOAT_MAX},
                                 {"n": 0, "f": 2**63 - 1}, {"n": 0, "m": 10, "g": 0}])
def test_record_keeps_numbers_at_the_edges(raw):
    assert SCHEMA.fast(raw) is not None
    assert SCHEMA.fast_columns([raw, raw], tuple(SCHEMA.fields)) is not None
    r = Reader(numbers_unchecked=True)
    r.record(raw, "x", SCHEMA)
    assert r.problems == []


@pytest.mark.parametrize("token", ["1e400", "NaN", str(2**63), "9" * 5000, "-1", '"x"', DEEP_LIST, str(2**63 - 1)])
@pytest.mark.parametrize("key", ["size_bytes", "speed_bps", "free_bytes", "zz"])
def test_a_problem_among_thousands_of_bricks_is_named_alike(key, token):
    doc = _doc(nodes=60, bricks=12)
    _same(_raw(doc, ("nodes", 37, "bricks", 5, key), token))
    doc["nodes"][37]["bricks"][5] = {"size_bytes": 1, "path": "/data/b5"}     # another key order
    _same(_raw(doc, ("nodes", 41, "bricks", 0, key), token))
