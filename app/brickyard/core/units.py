"""Byte sizes and rates as admins write them: "14 TB", "12.7 TiB", "500G".

Decimal units (kB, MB, GB, TB, PB) are powers of 1000, binary units (KiB … PiB) powers of
1024. A bare suffix letter ("500G", "4k") follows dd/fio and means binary, which is how
those tools read it; the parsed value is exact bytes either way, so nothing is guessed
silently: ``describe_size`` shows both units side by side.

This module is the one place that writes a rate or a measured quantity for people
(STYLE habit 11): the CLI, the planner, the charts, the history and the report all call
``format_rate`` / ``rate_scale`` / ``format_quantity``, so an estimate reads against a
measurement at a glance. Rates are decimal MB/s and GB/s by default, as dd and fio print
them; ``set_binary_rates(True)`` (the ``"units": "binary"`` setting) switches every one of
them to MiB/s and GiB/s at once. Block sizes stay binary ("4K", "1 MiB"): they are powers
of two in every tool.
"""

from __future__ import annotations

import re

DECIMAL = {"B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12, "PB": 10**15}
BINARY = {"KIB": 2**10, "MIB": 2**20, "GIB": 2**30, "TIB": 2**40, "PIB": 2**50}
SHORT = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40, "P": 2**50}

MAX_SIZE = 2**63 - 1   # bytes: what a 64-bit file offset (and every column) holds
_SIZE_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*$")


class UnitError(ValueError):
    """A size or rate that cannot be read without guessing."""


def parse_size(text: str | int) -> int:
    """Return the number of bytes ``text`` names.

    >>> parse_size("14 TB")
    14000000000000
    >>> parse_size("1 KiB")
    1024
    """
    if isinstance(text, bool):
        raise UnitError("a size must be a number of bytes or a text such as '14 TB'")
    if isinstance(text, int):
        if text < 0:
            raise UnitError(f"a size cannot be negative: {text}")
        return text
    match = _SIZE_RE.match(str(text))
    if not match:
        raise UnitError(f"not a size: {text!r} (write e.g. '14 TB', '12.7 TiB', '500G')")
    number, unit = match.group(1), match.group(2).upper()
    if unit in ("", "B"):
        factor = 1
    elif unit in DECIMAL:
        factor = DECIMAL[unit]
    elif unit in BINARY:
        factor = BINARY[unit]
    elif unit in SHORT:
        factor = SHORT[unit]
    elif unit.endswith("B") and unit[:-1] in SHORT:  # "GB"-like handled above; "KB" too
        factor = DECIMAL.get(unit, SHORT[unit[:-1]])
    else:
        raise UnitError(f"unknown unit {match.group(2)!r} in {text!r} (use B, kB, MB, GB, TB, KiB, MiB, GiB, TiB or K, M, G, T)")
    if unit in ("", "B") and "." in number:
        raise UnitError(f"a size in bytes must be a whole number: {text!r}")
    whole, _, frac = number.partition(".")
    if len(whole.lstrip("0")) > 19:   # exact arithmetic below; never float('1e5000') = inf
        raise UnitError(f"{_clip(text)} is larger than any disk (at most {MAX_SIZE} bytes)")
    from fractions import Fraction   # (with decimal: ~5 ms of every start, for a size given in text)

    value = int(round(Fraction(number) * factor))
    if value > MAX_SIZE:
        raise UnitError(f"{_clip(text)} is larger than any disk (at most {MAX_SIZE} bytes)")
    return value


def _clip(text: object) -> str:
    s = str(text).strip()
    return repr(s) if len(s) <= 30 else repr(f"{s[:12]}…{s[-8:]}") + f" ({len(s)} characters)"


def format_bytes(n: float, binary: bool = False, digits: int = 2) -> str:
    """``format_bytes(28e12) == '28.00 TB'``; with ``binary=True`` '25.47 TiB'."""
    units = (
        ["B", "KiB", "MiB", "GiB", "TiB", "PiB"] if binary else ["B", "kB", "MB", "GB", "TB", "PB"]
    )
    step = 1024.0 if binary else 1000.0
    value = float(n)
    for unit in units:
        if abs(value) < step or unit == units[-1]:
            if unit == "B":
                return f"{int(round(value))} B"
            return f"{value:.{digits}f} {unit}"
        value /= step
    raise AssertionError("unreachable")


def describe_size(n: float) -> str:
    """Both units, so nobody mistakes TiB for TB: '28.00 TB (25.47 TiB)'."""
    return f"{format_bytes(n)} ({format_bytes(n, binary=True)})"


_RATE_UNITS = {
    False: (("kB/s", 1e3), ("MB/s", 1e6), ("GB/s", 1e9), ("TB/s", 1e12)),
    True: (("KiB/s", 2.0**10), ("MiB/s", 2.0**20), ("GiB/s", 2.0**30), ("TiB/s", 2.0**40)),
}
UNIT_CHOICES = ("decimal", "binary")
_preference = {"binary": False}


def set_binary_rates(binary: bool) -> None:
    """Write every rate in MiB/s and GiB/s (True) or MB/s and GB/s (False, the default)."""
    _preference["binary"] = bool(binary)


def binary_rates() -> bool:
    """Whether rates are written in binary units (the user's preference)."""
    return _preference["binary"]


def apply_unit_setting(value: object) -> None:
    """Apply the settings file's ``"units"`` value: "decimal" or "binary"."""
    if value not in UNIT_CHOICES:
        raise UnitError(f'"units" must be "decimal" (MB/s, GB/s) or "binary" (MiB/s, GiB/s), not {value!r}')
    set_binary_rates(value == "binary")


def _binary(binary: bool | None) -> bool:
    return _preference["binary"] if binary is None else binary


def rate_scale(largest_bps: float, binary: bool | None = None) -> tuple[float, str]:
    """(divisor, unit) to write rates whose largest is ``largest_bps`` (a chart axis, a
    column): MB/s below 1 GB/s, GB/s above, kB/s below 1 MB/s; MiB/s, GiB/s and KiB/s with
    the binary preference."""
    units = _RATE_UNITS[_binary(binary)]
    name, factor = units[0]
    for unit_name, unit_factor in units[1:]:
        if abs(largest_bps) >= unit_factor:
            name, factor = unit_name, unit_factor
    if abs(largest_bps) == 0:
        name, factor = units[1]
    return factor, name


def format_rate(bytes_per_second: float, binary: bool | None = None) -> str:
    """A throughput in decimal MB/s or GB/s, as dd and fio print it (MiB/s or GiB/s with
    the binary preference): '117.0 MB/s', '1.25 GB/s', '52.3 kB/s'."""
    factor, name = rate_scale(bytes_per_second, binary)
    digits = 1 if name[0] in "kKM" else 2
    return f"{bytes_per_second / factor:.{digits}f} {name}"


_TIME_UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}


def quantity_scale(unit: str, largest: float, binary: bool | None = None) -> tuple[float, str]:
    """(divisor, unit label) for an axis or a column of values in ``unit`` whose largest is
    ``largest``: rates as ``rate_scale``, byte counts in kB/MB/GB (KiB/MiB/GiB), anything
    else as measured ("us" is written µs)."""
    if unit == "B/s":
        return rate_scale(largest, binary)
    if unit == "B":
        names = ["B", "KiB", "MiB", "GiB", "TiB"] if _binary(binary) else ["B", "kB", "MB", "GB", "TB"]
        step = 1024.0 if _binary(binary) else 1000.0
        divisor, name = 1.0, "B"
        for i, candidate in enumerate(names):
            if abs(largest) >= step ** i:
                divisor, name = step ** i, candidate
        return divisor, name
    return 1.0, "µs" if unit == "us" else unit


def format_quantity(value: float, unit: str, binary: bool | None = None) -> str:
    """Any measured value with its unit, written the one way everywhere: rates through
    ``format_rate``, byte counts through ``format_bytes``, times in s/ms/µs, the rest as
    '1,234 tps', '0.93' for a ratio."""
    if value is None or (isinstance(value, float) and value != value):
        return "n/a"
    if unit == "B/s":
        return format_rate(value, binary)
    if unit == "B":
        return format_bytes(value, binary=_binary(binary), digits=1)
    if unit in _TIME_UNITS:
        return format_duration(value * _TIME_UNITS[unit])
    if unit == "ratio":
        return f"{value:.3g}"
    text = f"{value:,.4g}" if abs(value) < 1e4 else f"{value:,.0f}"
    return f"{text} {unit}".strip()


def format_duration(seconds: float) -> str:
    """A time in s, ms or µs with three significant figures: 5e-5 → '50 µs', 0.0125 →
    '12.5 ms', 3.2 → '3.2 s'; whole seconds from 1,000 s up ('1,500 s')."""
    for name, factor in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if abs(seconds) >= factor or name == "µs":
            value = seconds / factor
            return f"{value:,.3g} {name}" if abs(value) < 1000 else f"{value:,.0f} {name}"
    raise AssertionError("unreachable")


MAX_LINK_BPS = 1e15 / 8   # a petabit per second
_BITS = re.compile(r"^\s*([0-9.]+)\s*([kKmMgGtT]?)bit(?:/s)?\s*$")


def parse_link_rate(text: str) -> float:
    """Bytes per second of a link: '1Gbit', '10 Gbit/s' (bits, decimal), '117MB/s' or '125000000'."""
    m = _BITS.match(text)
    if m:
        scale = {"": 1, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}[m.group(2).lower()]
        try:
            value = float(m.group(1)) * scale / 8
        except ValueError:
            raise UnitError(f"link {_clip(text)}: write e.g. 1Gbit, 10Gbit or 117MB/s") from None
        if not 0 < value <= MAX_LINK_BPS:
            raise UnitError(f"link {_clip(text)}: a link speed must be more than 0 and at most 1 Pbit/s")
        return value
    try:
        value = float(parse_size(text.strip().removesuffix("/s")))
    except UnitError as exc:
        raise UnitError(f"link {_clip(text)}: write e.g. 1Gbit, 10Gbit or 117MB/s ({exc})") from None
    if not 0 < value <= MAX_LINK_BPS:
        raise UnitError(f"link {_clip(text)}: a link speed must be more than 0 and at most 1 Pbit/s")
    return value


def format_link_speed(bytes_per_second: float) -> str:
    """A link speed in bits, as NICs are sold: 1.25e9 B/s → '10 Gbit/s'."""
    bits = bytes_per_second * 8
    for unit, factor in (("Tbit/s", 1e12), ("Gbit/s", 1e9), ("Mbit/s", 1e6), ("kbit/s", 1e3)):
        if bits >= factor:
            return f"{bits / factor:.4g} {unit}"
    return f"{bits:.4g} bit/s"


def parse_block_size(text: str) -> int:
    """A dd block size such as '4K', '1M', '512M': binary multiples, as dd reads them."""
    match = _SIZE_RE.match(text)
    if not match:
        raise UnitError(f"not a block size: {text!r} (write e.g. 4K, 1M, 64M)")
    number, unit = match.group(1), match.group(2).upper()
    if "." in number:
        raise UnitError(f"a block size must be a whole number: {text!r}")
    unit = unit.removesuffix("IB").removesuffix("B") if unit not in ("B", "") else ""
    factor = {"": 1, **SHORT}.get(unit)
    if factor is None:
        raise UnitError(f"unknown unit in block size {text!r} (use K, M or G)")
    return int(number) * factor


def format_block_size(n: int) -> str:
    """The short dd form of a power-of-two size: 1024 → '1K', 2**29 → '512M'."""
    for suffix, factor in (("G", 2**30), ("M", 2**20), ("K", 2**10)):
        if n >= factor and n % factor == 0:
            return f"{n // factor}{suffix}"
    return str(n)


_BLOCK_LABEL_UNITS = (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10))


def format_block_label(n: float) -> str:
    """A block or request size for people, in binary units as every tool counts them:
    4096 → '4 KiB', 2**20 → '1 MiB', 1536 → '1.5 KiB', 512 → '512 B' (axis ticks,
    legends, notes; ``format_block_size`` is the dd argument form '4K')."""
    for unit, factor in _BLOCK_LABEL_UNITS:
        if n >= factor:
            value = n / factor
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.3g} {unit}"
    return f"{n:g} B"


def format_utc(seconds: float | None, fmt: str = "%Y-%m-%d %H:%M") -> str:
    """A ``time.time()`` value as UTC text; "" for None and "?" for a time no calendar holds
    (a row an old Brickyard imported with 1e300), so a list never dies on one bad run."""
    import time

    if seconds is None:
        return ""
    try:
        return time.strftime(fmt, time.gmtime(seconds))
    except (OverflowError, OSError, ValueError):
        return "?"
