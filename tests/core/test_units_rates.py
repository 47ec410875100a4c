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


def test_block_labels_are_binary_and_compact_for_axes_legends_and_notes():
    assert units.format_block_label(4096) == "4 KiB"
    assert units.format_block_label(2**20) == "1 MiB"
    assert units.format_block_label(1536) == "1.5 KiB"
    assert units.format_block_label(128 * 1024) == "128 KiB"
    assert units.format_block_label(512 * 2**20) == "512 MiB"
    assert units.format_block_label(2**40) == "1 TiB"
    assert units.format_block_label(512) == "512 B"
    assert units.format_block_label(2.0 ** 12) == "4 KiB"          # a log2 axis hands floats


def test_durations_pick_s_ms_or_us_with_three_significant_figures():
    assert units.format_duration(50e-6) == "50 µs"
    assert units.format_duration(153.4e-6) == "153 µs"
    assert units.format_duration(0.0125) == "12.5 ms"
    assert units.format_duration(3.2) == "3.2 s"
    assert units.format_duration(1500) == "1,500 s"
    assert units.format_duration(0.5e-6) == "0.5 µs"
    # a measured time in any unit goes through the same words
    assert format_quantity(12.5, "us") == units.format_duration(12.5e-6)


def test_link_speeds_are_written_in_bits_as_nics_are_sold():
    assert units.format_link_speed(10e9 / 8) == "10 Gbit/s"
    assert units.format_link_speed(940e6 / 8) == "940 Mbit/s"
    assert units.format_link_speed(2.5e9 / 8) == "2.5 Gbit/s"
    assert units.format_link_speed(1e9 / 8) == "1 Gbit/s"
    assert units.format_link_speed(100e12 / 8) == "100 Tbit/s"
