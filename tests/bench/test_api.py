"""Typed workload parameters: parsing, limits, messages that name the parameter."""

import pytest

from brickyard.bench.api import COMMON_PARAMS, Param, ParamError, Workload, compact_size


class Tiny(Workload):
    name = "tiny"
    params = (
        Param("sizes", "sizes", "4K,1M", "block sizes", minimum=1024, maximum=512 << 20),
        Param("n", "int", 2, "workers", minimum=1, maximum=8),
        Param("mode", "choice", "a", "mode", choices=("a", "b")),
    )

    def step_count(self, values):
        return 1

    async def run(self, ctx):
        raise AssertionError("not run in these tests")


def test_defaults_and_common_params_resolve():
    values = Tiny().resolve({})
    assert values["sizes"] == (4096, 1 << 20)
    assert values["repeats"] == 3
    assert {p.name for p in COMMON_PARAMS} <= set(values)


def test_values_from_text_are_parsed():
    values = Tiny().resolve({"sizes": "64M, 1K", "n": "8", "mode": "b", "repeats": "1"})
    assert values == {**values, "sizes": (64 << 20, 1024), "n": 8, "mode": "b", "repeats": 1}


@pytest.mark.parametrize("given, message", [
    ({"n": "9"}, "n: 9 is above the maximum 8"),
    ({"n": "x"}, "n: invalid literal"),
    ({"sizes": "512"}, "sizes: 512 B is below the minimum 1.00 KiB"),
    ({"sizes": "1G"}, "sizes: 1.00 GiB is above the maximum 512.00 MiB"),
    ({"mode": "c"}, "mode: 'c' is not one of a, b"),
    ({"nope": "1"}, "tiny has no parameter 'nope'"),
    ({"sizes": ""}, "sizes: give at least one value"),
])
def test_bad_values_name_the_parameter(given, message):
    with pytest.raises(ParamError, match=message.replace(".", r"\.").replace("(", r"\(")):
        Tiny().resolve(given)


def test_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="unknown kind"):
        Param("x", "complex", 0, "")


def test_compact_size_uses_dd_suffixes():
    assert [compact_size(n) for n in (1024, 1 << 20, 3 << 30, 1000)] == ["1K", "1M", "3G", "1000"]


def test_power_of_two_ranges_expand_like_the_korean_sweep():
    values = Tiny().resolve({"sizes": "1K..512M"})
    assert len(values["sizes"]) == 20 and values["sizes"][0] == 1024 and values["sizes"][-1] == 512 << 20
    with pytest.raises(ParamError, match="power-of-two range"):
        Tiny().resolve({"sizes": "3K..1M"})
