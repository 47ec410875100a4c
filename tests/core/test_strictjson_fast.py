"""Strict reading stays strict when it is fast: a clean document is read without building a
path string per value, and every problem a full walk would name is still named, with the same
path, when it hides among thousands of clean values."""

from __future__ import annotations

import copy
import json
import random

import pytest

from brickyard.core import jsonparse, strictjson, topofile
from brickyard.core.strictjson import Field, Reader, Record


def _big_doc(nodes: int = 60, bricks: int = 8) -> dict:
    return {"format_version": 2, "name": "big", "sites": [{"name": "dc1"}],
            "nodes": [{"name": f"node{n}", "site": "dc1", "nic_gbps": 25.0,
                       "bricks": [{"path": f"/b{b}", "size_bytes": 10**12, "speed_bps": 2.5e8, "free_bytes": None}
                                  for b in range(bricks)]} for n in range(nodes)],
            "volumes": [{"name": "gv0", "type": "distribute",
                         "bricks": [f"node{n}:/b{b}" for n in range(nodes) for b in range(bricks)]}]}


def _slow_parse(text: str):
    """What parse gave before it had a fast path: the full walk, every path built."""
    data = json.loads(text, object_pairs_hook=jsonparse._pairs, parse_int=jsonparse._parse_int,
                      parse_float=jsonparse._parse_float, parse_constant=jsonparse._parse_constant)
    return strictjson.scan(data)


def test_a_clean_document_builds_no_path(monkeypatch):
    text = json.dumps(_big_doc())
    calls = []
    for module in (jsonparse, strictjson):    # the parser's and the schema reader's
        monkeypatch.setattr(module, "join", lambda *a: calls.append(a) or "")
    data, problems = strictjson.parse(text)
    topofile.from_dict(data, "big", problems)
    assert problems == [] and calls == []       # the old walk joined once per value: ~5,000 here


# one problem of each kind scan names, put deep inside a large clean document
HIDDEN = [
    ('"size_bytes": 1000000000000', '"size_bytes": 1000000000000, "size_bytes": 1', "nodes[37].bricks[5].size_bytes"),
    ('"speed_bps": 250000000.0', '"speed_bps": 1e400', "nodes[37].bricks[5].speed_bps"),
    ('"speed_bps": 250000000.0', '"speed_bps": NaN', "nodes[37].bricks[5].speed_bps"),
    ('"size_bytes": 1000000000000', '"size_bytes": 9223372036854775808', "nodes[37].bricks[5].size_bytes"),
    ('"size_bytes": 1000000000000', '"size_bytes": ' + "9" * 5000, "nodes[37].bricks[5].size_bytes"),
    ('"path": "/b5"', '"path": "/b\\u0000"', "nodes[37].bricks[5].path"),
    ('"path": "/b5"', '"path": "/b\\udc80"', "nodes[37].bricks[5].path"),
    ('"path": "/b5"', '"p\\u0000ath": "/b5"', 'nodes[37].bricks[5]["p\\u0000ath"]'),
    ('"free_bytes": null', '"free_bytes": ' + "[" * 70 + "]" * 70, "nodes[37].bricks[5].free_bytes"),
]


@pytest.mark.parametrize("good,bad,path", HIDDEN, ids=[h[2] + " " + h[1][:24] for h in HIDDEN])
def test_a_problem_hidden_in_a_large_document_is_named_as_the_full_walk_names_it(good, bad, path):
    text = json.dumps(_big_doc())
    node = text.index('"name": "node37"')
    brick = text.index('"path": "/b5"', node)
    at = text.index(good, brick - 10 if good != '"path": "/b5"' else brick)
    text = text[:at] + bad + text[at + len(good):]
    data, problems = strictjson.parse(text)
    slow_data, slow_problems = _slow_parse(text)
    assert problems == slow_problems and problems, problems
    assert any(p.path.startswith(path) for p in problems), problems
    with pytest.raises(topofile.TopologyFileError) as err:
        topofile.from_dict(data, "big", problems)
    with pytest.raises(topofile.TopologyFileError) as slow_err:
        topofile.from_dict(slow_data, "big", slow_problems)
    assert err.value.problems == slow_err.value.problems


def test_a_raw_surrogate_in_text_handed_over_as_a_string_is_still_refused():
    text = json.dumps({"format_version": 2, "name": "x"}, ensure_ascii=False).replace('"x"', '"x\udc80"')
    data, problems = strictjson.parse(text)
    assert [p.path for p in problems] == ["name"]


SCHEMA = Record({"name": Field(str, ""), "size": Field(int, 0, minimum=0), "rate": Field(float, None, nullable=True,
                 minimum=0, maximum=1e6), "flag": Field(bool, False), "text": Field(str, "dflt")}, {"name", "size"},
                {"name", "size", "rate", "flag", "text", "extra"})
VALUES = [None, True, False, 0, -1, 7, 2.5, -0.5, 1e7, "", " ", "a", [], {}, strictjson.INVALID]


def _field_by_field(raw, path: str):
    r = Reader()
    d = r.obj(raw, path, SCHEMA.allowed, SCHEMA.required)
    values = None if d is None else {k: r.field(d, k, path, f.kind, f.default, f.nullable, f.minimum, f.maximum)
                                     for k, f in SCHEMA.fields.items()}
    return values, r.problems


def test_record_reads_every_shape_exactly_as_obj_and_field_do():
    rng = random.Random(7)
    keys = ["name", "size", "rate", "flag", "text", "extra", "unknown"]
    for _ in range(3000):
        raw = {k: rng.choice(VALUES) for k in rng.sample(keys, rng.randint(0, len(keys)))}
        if rng.random() < 0.3:
            raw.update(name="n", size=rng.choice([0, 5, -1]))
        r = Reader()
        got = r.record(copy.deepcopy(raw), "x[1]", SCHEMA)
        want, want_problems = _field_by_field(copy.deepcopy(raw), "x[1]")
        assert r.problems == want_problems, raw
        if want is None:
            assert got is None
        else:
            assert {k: got[k] for k in SCHEMA.fields} == want, raw
    assert Reader().record("not an object", "x", SCHEMA) is None
