"""``--json`` output is written by one walk (``clicmd.command.dumps_indented``) instead of
json.dumps' pure-Python indenting encoder: the text must be the one json.dumps gave, byte for
byte, for every document (compared on random documents and on real plans)."""

from __future__ import annotations

import enum
import json
import math
import random

import pytest

from brickyard.clicmd.command import dumps_indented, json_safe
from brickyard.core.plan import plan_volume
from brickyard.core.topology import Layout, VolumeType

from tests.core import _topo  # noqa: I001


def _before(doc: object, indent: int) -> str:
    return json.dumps(json_safe(doc), indent=indent, ensure_ascii=False, allow_nan=False, default=str)


class Colour(enum.Enum):
    RED = "red"


class Level(enum.IntEnum):
    HIGH = 3


class Word(str):
    pass


class Ratio(float):
    pass


class Stuff(dict):
    pass


SCALARS = ["", "a", "é ü 中", "quote \" back \\ nl \n tab \t", "\x00\x1f\x7f", "\u2028", 0, -1, 2**70, 1.5, -0.0,
           1e300, 5e-324, math.nan, math.inf, -math.inf, True, False, None, Colour.RED, Level.HIGH, Word("w"),
           Ratio(2.5), Ratio(math.nan), b"bytes", 3 + 4j]
KEYS = ["k", "", "ü", 1, -7, 2.5, True, False, None, Level.HIGH, Word("wk")]


def _random_doc(rng: random.Random, depth: int) -> object:
    roll = rng.random()
    if depth <= 0 or roll < 0.35:
        return rng.choice(SCALARS)
    if roll < 0.55:
        return [_random_doc(rng, depth - 1) for _ in range(rng.randint(0, 4))]
    if roll < 0.65:
        return tuple(_random_doc(rng, depth - 1) for _ in range(rng.randint(0, 3)))
    kind = Stuff if roll < 0.7 else dict
    return kind((rng.choice(KEYS), _random_doc(rng, depth - 1)) for _ in range(rng.randint(0, 4)))


def test_random_documents_are_written_as_json_dumps_wrote_them():
    for seed in range(600):
        rng = random.Random(seed)
        doc = _random_doc(rng, rng.randint(0, 6))
        for indent in (2, 0, 4):
            assert dumps_indented(doc, indent) == _before(doc, indent), (seed, indent)


@pytest.mark.parametrize("key", [math.nan, math.inf, object(), (1, 2)])
def test_keys_json_refuses_are_refused_alike(key):
    doc = {"a": [{key: 1}]}
    with pytest.raises((ValueError, TypeError)) as before:
        _before(doc, 2)
    with pytest.raises(before.type):
        dumps_indented(doc, 2)


def test_a_circular_document_is_left_to_json_dumps():
    doc: list = [1]
    doc.append(doc)
    assert dumps_indented(doc, 2) is None


@pytest.mark.parametrize("kind,counts", [(VolumeType.DISTRIBUTED_REPLICATE, {"replica": 3}),
                                         (VolumeType.DISTRIBUTED_DISPERSE, {"disperse": 4, "redundancy": 1}),
                                         (VolumeType.DISTRIBUTED_REPLICATE, {"replica": 3, "arbiter": 1})])
def test_a_plan_is_written_as_json_dumps_wrote_it(kind, counts):
    topo = _topo.build({f"n{i}": 4 for i in range(6)}, sites={f"n{i}": f"dc{i % 3}" for i in range(6)})
    vol = _topo.volume(topo, kind, **counts)
    doc = plan_volume(topo, vol, ["n1"]).to_json()
    assert dumps_indented(doc, 2) == _before(doc, 2)
