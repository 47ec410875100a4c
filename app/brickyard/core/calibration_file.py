"""Calibration files: the strict reader of the file format (a layout and its measured figures)
and the fit's inputs from one (``observations_from_file``). The fit itself is ``calibration.py``;
this is the user-file side, read as strictly as every user file (``core.strictjson``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from . import strictjson
from .calibration import Inputs, Observation
from .throughput import DIRECTIONS, LayoutShape
from .units import UnitError, parse_block_size, parse_link_rate

FORMAT_VERSION = 1
FILE_LIMIT = 1 << 20         # a calibration file is a small table: 1 MiB is plenty


class CalibrationFileError(strictjson.JsonFileError):
    """A calibration file with problems (every one of them, by field path)."""


_LAYOUT_KEYS = {"type", "replica", "arbiter", "disperse", "redundancy", "bricks", "name"}
_MEASUREMENT_KEYS = {"direction", "concurrency", "block_size", "throughput", "note"}


@dataclass(frozen=True)
class CalibrationFile:
    """A parsed calibration file: a layout (``layout`` dict in topology-file words: type and
    counts, optional brick list or brick count) and its measurements."""

    source: str
    name: str
    layout: Mapping[str, Any]
    measurements: tuple[tuple[str, int, int | None, float], ...]   # direction, files, block, bps


def parse_file(text: str, source: str = "calibration file") -> CalibrationFile:
    data, problems = strictjson.parse(text)
    r = strictjson.Reader(problems)
    doc = r.obj(data, "", {"format_version", "name", "description", "layout", "measurements"},
                {"format_version", "layout", "measurements"})
    measurements: list[tuple[str, int, int | None, float]] = []
    layout: dict[str, Any] = {}
    name = ""
    if doc is not None:
        r.integer_version(doc, "format_version", (FORMAT_VERSION,))
        name = r.field(doc, "name", "name", str, "") or ""
        r.field(doc, "description", "description", str, "")
        lay = r.obj(doc.get("layout"), "layout", _LAYOUT_KEYS, {"type"})
        if lay is not None:
            layout = _read_layout(r, lay)
        items = r.array(doc, "measurements", "measurements")
        if doc.get("measurements") is not None and isinstance(items, list) and not items:
            r.problem("measurements", "give at least one measurement")
        for i, item in enumerate(items):
            m = _read_measurement(r, item, f"measurements[{i}]")
            if m is not None:
                measurements.append(m)
    if r.problems:
        raise CalibrationFileError(source, r.problems)
    return CalibrationFile(source, name, layout, tuple(measurements))


def load_file(path: str) -> CalibrationFile:
    """Read a calibration file as strictly as every user file (``core.strictjson``)."""
    try:
        text = strictjson.read_text(path, limit=FILE_LIMIT, what="calibration file")
    except strictjson.JsonFileError as exc:
        raise CalibrationFileError(exc.source, exc.problems) from None
    return parse_file(text, strictjson.source_name(path))


_TYPES = ("distribute", "replicate", "disperse", "distributed-replicate", "distributed-disperse")


def _read_layout(r: strictjson.Reader, lay: dict) -> dict[str, Any]:
    out: dict[str, Any] = {}
    kind = r.field(lay, "type", "layout.type", str)
    if kind is not None and kind not in _TYPES:
        r.problem("layout.type", f"{strictjson.printable(kind)!s} is not one of {', '.join(_TYPES)}")
    out["type"] = kind
    for key in ("replica", "arbiter", "disperse", "redundancy"):
        v = r.field(lay, key, f"layout.{key}", int)
        if v is not None:
            if not 0 <= v <= 1024:
                r.problem(f"layout.{key}", f"{v} is out of range (0 … 1024)")
            out[key] = v
    bricks = lay.get("bricks")
    if bricks is not None:
        if isinstance(bricks, bool) or not isinstance(bricks, (int, list)):
            r.problem("layout.bricks", "a brick count or a list of \"node:/path\" bricks")
        elif isinstance(bricks, int):
            if not 1 <= bricks <= 100000:
                r.problem("layout.bricks", f"{bricks} is out of range (1 … 100000)")
            out["bricks"] = bricks
        else:
            refs = []
            for i, b in enumerate(bricks):
                if not isinstance(b, str) or ":" not in b or not b.partition(":")[2].startswith("/"):
                    r.problem(f"layout.bricks[{i}]", "a brick is \"node:/path\"")
                else:
                    refs.append(b)
            out["bricks"] = refs
    name = r.field(lay, "name", "layout.name", str)
    if name:
        out["name"] = name
    return out


def _read_measurement(r: strictjson.Reader, item: Any, path: str) -> tuple[str, int, int | None, float] | None:
    m = r.obj(item, path, _MEASUREMENT_KEYS, {"direction", "concurrency", "throughput"})
    if m is None:
        return None
    ok = True
    direction = r.field(m, "direction", f"{path}.direction", str)
    if direction is not None and direction not in DIRECTIONS:
        r.problem(f"{path}.direction", f"{strictjson.printable(direction)} is not write or read")
        ok = False
    conc = r.field(m, "concurrency", f"{path}.concurrency", int)
    if conc is not None and not 1 <= conc <= 4096:
        r.problem(f"{path}.concurrency", f"{conc} is out of range (1 … 4096 files at once)")
        ok = False
    block: int | None = None
    raw_block = m.get("block_size")
    if raw_block is not None:
        if isinstance(raw_block, str):
            try:
                block = parse_block_size(raw_block)
            except UnitError as exc:
                r.problem(f"{path}.block_size", str(exc))
                ok = False
        elif isinstance(raw_block, int) and not isinstance(raw_block, bool):
            block = raw_block
        else:
            r.problem(f"{path}.block_size", "a block size such as \"64M\" or a number of bytes")
            ok = False
        if block is not None and not 512 <= block <= 1 << 40:
            r.problem(f"{path}.block_size", f"{block} bytes is out of range (512 bytes … 1 TiB)")
            ok = False
    raw = m.get("throughput")
    bps: float | None = None
    if isinstance(raw, str):
        try:
            bps = parse_link_rate(raw)
        except UnitError as exc:
            r.problem(f"{path}.throughput", f"{exc} (write e.g. \"315MB/s\" or \"2.2GB/s\")")
    elif isinstance(raw, (int, float)) and not isinstance(raw, bool):
        if raw <= 0 or raw > 1e15:
            r.problem(f"{path}.throughput", f"{raw} bytes/s is out of range")
        else:
            bps = float(raw)
    elif "throughput" in m:
        r.problem(f"{path}.throughput", "a rate such as \"315MB/s\" or bytes per second")
    r.field(m, "note", f"{path}.note", str, "")
    if not ok or bps is None or direction is None or conc is None:
        return None
    return direction, conc, block, bps


def observations_from_file(cf: CalibrationFile, shape: LayoutShape) -> Inputs:
    label = cf.name or cf.source
    obs = tuple(Observation(shape, d, n, b, bps, cf.source, label) for d, n, b, bps in cf.measurements)
    return Inputs(obs, {}, (label,))


__all__ = ["CalibrationFile", "CalibrationFileError", "load_file", "observations_from_file", "parse_file"]
