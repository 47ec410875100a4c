"""One unit convention: rates in decimal MB/s and GB/s by default (as dd and fio print them),
binary MiB/s and GiB/s as a preference, written by core.units alone."""

from __future__ import annotations

import json

import pytest

from brickyard.core import units
from brickyard.core.settings import SettingsError, apply_unit_preference
from brickyard.core.units import format_quantity, format_rate, quantity_scale, rate_scale


@pytest.fixture(autouse=True)
def _decimal_again():
    yield
    units.set_binary_rates(False)


def test_rates_are_decimal_by_default_as_dd_prints_them():
    assert format_rate(117e6) == "117.0 MB/s"
    assert format_rate(1.25e9) == "1.25 GB/s"
    assert format_rate(52_300) == "52.3 kB/s"
    assert rate_scale(450e6) == (1e6, "MB/s")
    assert rate_scale(2.2e9) == (1e9, "GB/s")


def test_the_binary_preference_switches_every_rate_at_once():
    units.set_binary_rates(True)
    assert format_rate(117e6) == "111.6 MiB/s"
    assert format_rate(2**31) == "2.00 GiB/s"
    assert rate_scale(450e6) == (2**20, "MiB/s")
    assert format_quantity(2**20, "B") == "1.0 MiB"
    assert format_rate(117e6, binary=False) == "117.0 MB/s"      # an explicit choice still wins


def test_every_measured_quantity_has_one_written_form():
    assert format_quantity(117e6, "B/s") == "117.0 MB/s"
    assert format_quantity(441.66, "tps") == "441.7 tps"
    assert format_quantity(1.958, "s") == "1.96 s"
    assert format_quantity(0.0123, "s") == "12.3 ms"
    assert format_quantity(12.5, "us") == "12.5 µs"
    assert format_quantity(8e6, "B") == "8.0 MB"
    assert format_quantity(float("nan"), "B/s") == "n/a"
    assert quantity_scale("B/s", 3e8) == (1e6, "MB/s")
    assert quantity_scale("us", 40) == (1.0, "µs")


def test_the_setting_and_the_environment_choose_and_a_bad_value_is_named(tmp_path, monkeypatch):
    path = tmp_path / "settings.json"
    monkeypatch.delenv("BRICKYARD_UNITS", raising=False)
    assert apply_unit_preference(path) == "decimal" and not units.binary_rates()
    path.write_text(json.dumps({"history_db": "sqlite:////x.sqlite3", "units": "binary"}))
    assert apply_unit_preference(path) == "binary" and units.binary_rates()
    monkeypatch.setenv("BRICKYARD_UNITS", "decimal")
    assert apply_unit_preference(path) == "decimal" and not units.binary_rates()
    monkeypatch.setenv("BRICKYARD_UNITS", "MiB")
    with pytest.raises(SettingsError, match='BRICKYARD_UNITS: "units" must be "decimal"'):
        apply_unit_preference(path)
