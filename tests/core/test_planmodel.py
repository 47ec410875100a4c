"""The planner's result types keep their dataclass behaviour where they are built by hand."""

import dataclasses
import inspect

import pytest

from brickyard.core.planmodel import BrickSet
from brickyard.core.topology import BrickRef


def test_brick_set_init_takes_every_field_in_order_and_stays_frozen():
    params = list(inspect.signature(BrickSet.__init__).parameters)[1:]
    assert params == [f.name for f in dataclasses.fields(BrickSet)]
    a, b = BrickRef("a", "/d/b"), BrickRef("b", "/d/b")
    s = BrickSet(0, (a, b), None, 1, 10)
    assert (s.index, s.bricks, s.arbiter, s.data_bricks, s.usable_bytes, s.redundancy) == (0, (a, b), None, 1, 10, 0)
    assert s == BrickSet(0, (a, b), None, 1, 10, 0) and hash(s) == hash(BrickSet(0, (a, b), None, 1, 10, 0))
    assert s != BrickSet(1, (a, b), None, 1, 10)
    assert dataclasses.replace(s, usable_bytes=5).usable_bytes == 5
    assert repr(s).startswith("BrickSet(index=0, bricks=(")
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.usable_bytes = 1  # type: ignore[misc]
