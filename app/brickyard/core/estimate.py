"""The planner's throughput figure for a volume: the model (``throughput.py``) at its assumed
defaults — an ESTIMATE — or calibrated on measurements (``calibration.py``) — a PREDICTION.

One path for every caller: ``plan_volume`` puts an ``Estimate`` in each ``PlanResult``; the
layout panel, Compare layouts, ``brickyard plan`` and the decision table all read it. Its four
headline figures are large blocks, one file vs ``concurrency`` files (default 8, the write-up's
count) for write and read; ``at(direction, files, block)`` gives any other point, each with the
bound that binds and an interval that widens with what was assumed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from . import throughput as tm
from .calibration import Model, describe_sources, prior_params
from .planmodel import BrickSet, TopologyIndex
from .throughput import DEFAULT_FILES, READ, WRITE, LayoutShape, Prediction
from .topology import Topology, Volume
from .units import format_block_size

ESTIMATE_LABEL = "estimate (uncalibrated)"
#: the block sizes where the size of a call matters (below them streaming dominates)
SMALL_BLOCKS = (4096, 65536, 1 << 20)


@dataclass(frozen=True)
class Question:
    """What the admin asks the model: how many files at once (the "concurrent" figures) and
    at which block sizes (``per_block_size``). ``brickyard plan --concurrency N --block-size
    4M`` and the window's Calibrate dialog set it; the default is the write-up's 8 files at
    4K/64K/1M."""

    concurrency: int = DEFAULT_FILES
    block_sizes: tuple[int, ...] = SMALL_BLOCKS

    def __post_init__(self) -> None:
        if not 1 <= int(self.concurrency) <= 4096:
            raise ValueError(f"files at once: {self.concurrency} is out of range (1 … 4096)")
        if not self.block_sizes:
            raise ValueError("give at least one block size")
        for b in self.block_sizes:
            if not 512 <= int(b) <= 1 << 40:
                raise ValueError(f"block size {b} bytes is out of range (512 bytes … 1 TiB)")
        object.__setattr__(self, "block_sizes", tuple(sorted(set(int(b) for b in self.block_sizes))))


@dataclass(frozen=True)
class Estimate:
    """What the model says for one planned volume. ``label`` says whether it is an estimate
    (nothing calibrated it) or a prediction (calibrated on the named runs or files)."""

    single_write_bps: float | None
    single_read_bps: float | None
    concurrent_write_bps: float | None
    concurrent_read_bps: float | None
    client_traffic_factor: float          # bytes on the client's wire per byte written
    formula: str
    missing: tuple[str, ...] = ()
    label: str = ESTIMATE_LABEL
    concurrency: int = DEFAULT_FILES
    predictions: tuple[Prediction, ...] = ()
    shape: LayoutShape | None = None
    model: Model | None = None
    block_sizes: tuple[int, ...] = SMALL_BLOCKS

    @property
    def calibrated(self) -> bool:
        return self.model is not None and self.model.calibrated

    def prediction(self, direction: str, concurrency: int) -> Prediction | None:
        """One of the four headline predictions (concurrency 1 or ``self.concurrency``)."""
        n = 1 if concurrency == 1 else self.concurrency
        return next((p for p in self.predictions if p.direction == direction and p.concurrency == n), None)

    def at(self, direction: str, concurrency: int, block_size: int | None = None) -> Prediction | None:
        """The model at any point (e.g. a decision-table column: 8 files, 16 MiB blocks)."""
        if self.shape is None or self.model is None or not self.shape.sets:
            return None
        return tm.predict(self.shape, self.model.params, direction, concurrency, block_size)

    def per_block_size(self) -> list[tuple[int, list[Prediction]]]:
        """The asked block sizes, each with its four predictions (write/read × one file/
        ``concurrency`` files); empty without a model."""
        if self.shape is None or self.model is None or not self.shape.sets:
            return []
        files = (1, self.concurrency) if self.concurrency > 1 else (1,)
        points = [(d, n, b) for b in self.block_sizes for d in (WRITE, READ) for n in files]
        found = iter(tm.predict_many(self.shape, self.model.params, points))
        return [(b, [next(found) for _ in range(2 * len(files))]) for b in self.block_sizes]

    def to_json(self) -> dict:
        doc = {
            "label": self.label,
            "calibrated": self.calibrated,
            "calibrated_on": list(self.model.calibrated_on) if self.model else [],
            "concurrency": self.concurrency,
            "single_write_bps": self.single_write_bps,
            "single_read_bps": self.single_read_bps,
            "concurrent_write_bps": self.concurrent_write_bps,
            "concurrent_read_bps": self.concurrent_read_bps,
            "client_traffic_factor": self.client_traffic_factor,
            "formula": self.formula,
            "missing": list(self.missing),
        }
        for p in self.predictions:
            key = f"{'single' if p.concurrency == 1 else 'concurrent'}_{p.direction}"
            doc.setdefault("bound", {})[key] = p.bound
            doc.setdefault("why", {})[key] = p.why
            doc.setdefault("interval", {})[key] = [p.low, p.high]
            doc.setdefault("bounds", {})[key] = dict(p.bounds)
        if self.shape is not None and self.model is not None and self.shape.sets:
            doc["per_block_size"] = []
            for b, preds in self.per_block_size():
                row: dict = {"block_size": b, "block": format_block_size(b)}
                for p in preds:
                    key = f"{'single' if p.concurrency == 1 else 'concurrent'}_{p.direction}"
                    row[f"{key}_bps"] = p.bps
                    row.setdefault("interval", {})[key] = [p.low, p.high]
                doc["per_block_size"].append(row)
        if self.model is not None:
            doc["sources"] = self.model.counts()
            doc["sources_text"] = describe_sources(self.model)
            doc["parameters"] = self.model.params.to_json()
            doc["notes"] = list(self.model.notes)
            doc["warnings"] = list(self.model.warnings)
            doc["fit"] = self.model.to_json()["fit"]
        return doc


def _arbiter_free(sets: Iterable[BrickSet]) -> list[BrickSet]:
    return [s for s in sets if s.data_bricks > 0]


def estimate(topo: Topology, volume: Volume, sets: list[BrickSet], model: Model | None = None,
             index: TopologyIndex | None = None, concurrency: int | None = None,
             question: Question | None = None) -> Estimate:
    """The model's figures for ``volume`` (planned into ``sets``): calibrated with ``model``,
    or at the topology's declared speeds and labelled assumptions; ``question``: how many
    files at once and which block sizes (default: 8 files, 4K/64K/1M)."""
    question = question or Question()
    concurrency = concurrency or question.concurrency
    blocks = question.block_sizes
    index = index or TopologyIndex(topo)
    if model is None:
        model = Model(prior_params(topo, volume.bricks, index))
    shape = tm.shape_of(_arbiter_free(sets), volume.name, volume.options, client_nodes(topo))
    missing = _missing(topo, shape, index, model)
    if not shape.sets:
        return Estimate(None, None, None, None, 1.0, "no set holds data", tuple(missing),
                        _label(model), concurrency, (), shape, model, blocks)
    preds = tuple(tm.predict_many(shape, model.params, [(d, n, None) for d in (WRITE, READ)
                                                         for n in (1, concurrency)]))
    by = {(p.direction, p.concurrency): p for p in preds}
    s0 = shape.first()
    formula = (f"one file: {by[(WRITE, 1)].why} (write), {by[(READ, 1)].why} (read); "
               f"{concurrency} files: {by[(WRITE, concurrency)].why} (write), "
               f"{by[(READ, concurrency)].why} (read)")
    return Estimate(by[(WRITE, 1)].bps, by[(READ, 1)].bps, by[(WRITE, concurrency)].bps,
                    by[(READ, concurrency)].bps, s0.wire(WRITE), formula, tuple(missing), _label(model),
                    concurrency, preds, shape, model, blocks)


def client_nodes(topo: Topology) -> list[str]:
    """Servers a client of the topology runs on (same name or address): with
    ``cluster.choose-local`` a replica set holding a brick there is read from that brick."""
    if not topo.clients:
        return []
    by = {n.name: n.name for n in topo.nodes}
    by.update({n.address: n.name for n in topo.nodes if n.address})
    return [by[key] for c in topo.clients for key in (c.name, c.address) if key and key in by]


def _label(model: Model) -> str:
    return model.label if model.calibrated else ESTIMATE_LABEL


def _missing(topo: Topology, shape: LayoutShape, index: TopologyIndex, model: Model) -> list[str]:
    """What the figures could not be bounded by, because nothing says how fast it is."""
    out = []
    for d in (WRITE, READ):
        rates, default = model.params.brick_rates(d)
        if default is None and any(rates.get(k) is None for s in shape.sets for k in s.brick_keys):
            out.append(f"brick speed of some bricks ({d}): not bounded by the bricks (give speed_bps or run the probe)")
            break
    nodes = shape.nodes()
    if any(model.params.get(tm.NODE_LINK, "", n) is None for n in nodes):
        out.append("NIC speed (nic_gbps) of some nodes: not bounded by their links")
    if model.params.get(tm.CLIENT_LINK) is None:
        out.append("the client's NIC speed: not bounded by its link")
    return out
