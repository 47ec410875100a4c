"""Calibrating the throughput model (``throughput.py``) on what was measured.

Inputs (all pure data; the stores and files are read by callers):
- ``Observation``: a layout's measured throughput at one point (direction, files at once, block
  size), from a stored run (``observations_from_steps``) or a calibration file
  (``calibration_file``);
- measured parameters from the probe workload (``params_from_probe``): each brick filesystem's
  own rate, the bricks all at once (shared storage), client→server TCP.

The fit (``fit``) follows what each kind of parameter can be known from:
1. Probe measurements are taken as they are (MEASURED); the topology's brick speeds and NIC
   speeds are DECLARED; the rest start as labelled assumptions.
2. What only a layout measurement can tell is fitted from it: the client's one-stream ceiling
   S from single-file figures, its aggregate C from many-file figures (both on the plainest
   layout measured: distribute first), then what a layout adds per request — the fan-out
   cost of extra brick RPCs — from layouts with more RPCs per request, and the cost of a
   read()/write() call from small blocks. Where the probe found the servers on the client's
   CPUs and only one fan-out was measured, the fan-out cost is derived from the plain layout's
   own request cost instead (``_shared_fanout``).
3. A measurement no bound with a prior can carry proves the prior wrong: a declared or measured
   rate whose bound falls below a measured figure is raised to the least value that carries
   it, and the fit says so ("the topology's 300 MB/s per brick cannot carry …").
4. When a bound with a prior already explains a many-file figure (within 10 %), C is only
   known to be at least that figure: it keeps its assumed value if that is higher.
Every parameter keeps its source (measured, fitted, declared, assumed) and a note saying how
it was found, so the estimate can say which figures rest on assumptions.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from . import lazystats as statistics, throughput as tm
from .calibration_noise import MISFIT, NOISY, noise as _noise, noisy as _noisy  # noqa: F401 (MISFIT, NOISY: the warnings' limits)
from .calibration_threads import fit_no_io_threads
from .throughput import (ASSUMED, BRICK, CALL, CLIENT, CLIENT_LINK, DECLARED, DIRECTIONS, FANOUT, FANOUT_CPU,
                         FITTED, MEASURED, NODE_LINK, READ, REQUEST_BYTES, SHARED_BYTE, STORAGE, STREAM, WRITE,
                         LayoutShape, Params, Value, predict, spread)
from .topology import Topology
from .units import format_block_label, format_block_size, format_duration, format_link_speed, format_rate

LARGE_BLOCK = 1 << 20        # blocks of 1 MiB and more measure the streaming ceiling
EXPLAINED = 0.10             # a bound within 10 % of a figure explains it


@dataclass(frozen=True)
class Observation:
    """One measured figure of one layout: ``bps`` at ``concurrency`` files, ``block_size``
    bytes per call (None: large blocks, unknown size); ``source`` names the run or file."""

    shape: LayoutShape
    direction: str
    concurrency: int
    block_size: int | None
    bps: float
    source: str
    layout: str = ""
    repeats: int = 1
    values: tuple[float, ...] = ()     # every repeat's figure (``bps`` is their median)

    @property
    def large(self) -> bool:
        return self.block_size is None or self.block_size >= LARGE_BLOCK

    def to_json(self) -> dict:
        return {"layout": self.layout, "direction": self.direction, "concurrency": self.concurrency,
                "block_size": self.block_size, "bps": self.bps, "source": self.source, "repeats": self.repeats}


@dataclass(frozen=True)
class Inputs:
    """What a model is calibrated on: observations, probe-measured parameters, and the names
    of their sources (run ids, file names) for the label."""

    observations: tuple[Observation, ...] = ()
    measured: Mapping[str, Value] = field(default_factory=dict)
    sources: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    latency: tuple[Any, ...] = ()             # small-file points (``latency.Point``): ``latency_inputs``
    latency_sources: tuple[str, ...] = ()

    def __add__(self, other: "Inputs") -> "Inputs":
        return Inputs(self.observations + other.observations, {**self.measured, **other.measured},
                      tuple(dict.fromkeys(self.sources + other.sources)), self.notes + other.notes,
                      self.latency + other.latency, tuple(dict.fromkeys(self.latency_sources + other.latency_sources)))

    @property
    def empty(self) -> bool:
        return not self.observations and not self.measured and not self.latency


@dataclass(frozen=True)
class Residual:
    observation: Observation
    predicted: float
    bound: str

    @property
    def error(self) -> float:
        """(predicted − measured) ÷ measured."""
        return self.predicted / self.observation.bps - 1.0

    def describe(self) -> str:
        """'dt8 write 8 files, 4M blocks: measured 429.3 MB/s, model 429.3 MB/s (+0%)'."""
        o = self.observation
        files = "1 file" if o.concurrency == 1 else f"{o.concurrency} files"
        block = f", {format_block_size(o.block_size)} blocks" if o.block_size else ""
        return (f"{o.layout or o.shape.description} {o.direction} {files}{block}: measured {format_rate(o.bps)}, "
                f"model {format_rate(self.predicted)} ({self.error:+.0%})")


@dataclass(frozen=True)
class Model:
    """A throughput model ready to predict: its parameters and where they came from.
    ``label``: "estimate (uncalibrated)" or "predicted (calibrated on …)"."""

    params: Params
    calibrated_on: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    residuals: tuple[Residual, ...] = ()
    warnings: tuple[str, ...] = ()      # the calibration misses its own inputs, or is noisy
    latency: Any = None                 # ``latency.LatencyModel`` fitted on small-file runs, or None
    latency_sources: tuple[str, ...] = ()
    #: the run-to-run spread of the calibration figures alone (σ of ln figure; None: no point
    #: was measured twice): what the spread warning is given on. ``NOISE`` adds the misfit to it
    spread: float | None = None

    @property
    def noisy(self) -> bool:
        """The calibration figures spread more than NOISY run to run (then a warning says so)."""
        return _noisy(self.spread)

    @property
    def misfits(self) -> tuple[Residual, ...]:
        """The calibration figures the fitted model misses by more than MISFIT."""
        return tuple(r for r in self.residuals if abs(r.error) > MISFIT)

    @property
    def calibrated(self) -> bool:
        return bool(self.calibrated_on)

    @property
    def label(self) -> str:
        if not self.calibrated:
            return "estimate (uncalibrated)"
        names = list(self.calibrated_on)
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        return f"predicted (calibrated on {shown})"

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(tm.SOURCES, 0)
        for v in self.params.values.values():
            out[v.source] = out.get(v.source, 0) + 1
        return out

    def to_json(self) -> dict:
        return {"label": self.label, "calibrated_on": list(self.calibrated_on), "notes": list(self.notes),
                "warnings": list(self.warnings), "spread": self.spread,
                "parameters": self.params.to_json(),
                "fit": [{**r.observation.to_json(), "predicted_bps": r.predicted, "error": r.error, "bound": r.bound}
                        for r in self.residuals]}


# ------------------------------------------------------------------ priors


def prior_params(topo: Topology, bricks: Iterable[Any] | None = None, index: Any = None) -> Params:
    """Assumed defaults, then what the topology declares: each brick's ``speed_bps`` (both
    directions), each node's and the clients' ``nic_gbps`` (bits → bytes). ``bricks``: only
    these bricks and their nodes (a plan needs no more); ``index``: the plan's
    ``TopologyIndex``, which has looked those bricks up already."""
    values = tm.default_values()
    if bricks is not None and index is not None and _one_speed(topo, bricks, index, values):
        return _with_links(topo, values)
    wanted: dict[str, set[str]] | None = None
    if bricks is not None:
        wanted = {}
        for b in bricks:
            paths = wanted.get(b.node)
            if paths is None:
                paths = wanted[b.node] = set()
            paths.add(b.path)
    # every wanted brick's speed first, no names built: a 24,000-brick plan of identical disks
    # needs none
    speeds: list[float | None] = []
    chosen: list[tuple[str, list]] = []
    for node in topo.nodes:
        paths = None if wanted is None else wanted.get(node.name)
        if wanted is not None and paths is None:
            continue
        if node.nic_gbps:
            values[f"{NODE_LINK}@{node.name}"] = spread(node.nic_gbps * 1e9 / 8, DECLARED,
                                                        f"{node.name}'s NIC, {format_link_speed(node.nic_gbps * 1e9 / 8)} (topology)")
        mine = node.bricks if paths is None else [b for b in node.bricks if b.path in paths]
        chosen.append((node.name, mine))
        speeds.extend([b.speed_bps or None for b in mine])
    # the most common speed is the default, the others per brick: a 24,000-brick plan of
    # identical disks holds two entries, not 48,000 (a brick with no speed has none)
    counts = Counter(speeds)
    common = counts.most_common(1)[0][0] if counts and None not in counts else None
    shared: dict[float, Value] = {}
    if common:
        shared[common] = spread(float(common), DECLARED, "the brick's speed_bps (topology)")
        for d in DIRECTIONS:
            values[f"{BRICK}.{d}"] = shared[common]
    if len(counts) > 1:
        for node_name, mine in chosen:
            for b in mine:
                speed = b.speed_bps
                if not speed or speed == common:
                    continue
                v = shared.get(speed)
                if v is None:
                    v = shared[speed] = spread(float(speed), DECLARED, "the brick's speed_bps (topology)")
                for d in DIRECTIONS:
                    values[f"{BRICK}.{d}@{node_name}:{b.path}"] = v
    return _with_links(topo, values)


def _one_speed(topo: Topology, bricks: Iterable[Any], index: Any, values: dict[str, Value]) -> bool:
    """``prior_params`` for a volume whose bricks all have one speed (or none), read from the
    bricks the index found for the volume (no set of wanted paths per node, no walk of every
    node's bricks: a third of a 24,000-brick estimate): its nodes' links and the speed go
    into ``values`` (True). False, with ``values`` untouched, when the bricks have several speeds (each brick other than the most common
    gets an entry of its own, in the topology's order) or the index cannot tell which bricks
    they are (a node name, or a node's brick path, given twice; a brick listed twice)."""
    if index.ambiguous:
        return False
    refs = bricks if isinstance(bricks, list) else list(bricks)
    found, missing, unique = index.resolve(refs)
    if not unique:
        return False
    speeds = set([b.speed_bps or None for b in found if b is not None] if missing else
                 [b.speed_bps or None for b in found])
    if len(speeds) > 1:
        return False
    names = set([r.node for r in refs])
    for node in topo.nodes:
        if node.nic_gbps and node.name in names:
            values[f"{NODE_LINK}@{node.name}"] = spread(node.nic_gbps * 1e9 / 8, DECLARED,
                                                        f"{node.name}'s NIC, {format_link_speed(node.nic_gbps * 1e9 / 8)} (topology)")
    common = next(iter(speeds), None)
    if common:
        shared = spread(float(common), DECLARED, "the brick's speed_bps (topology)")
        for d in DIRECTIONS:
            values[f"{BRICK}.{d}"] = shared
    return True


def _with_links(topo: Topology, values: dict[str, Value]) -> Params:
    """The priors with the client link the topology declares (or assumes)."""
    links = [c.nic_gbps for c in topo.clients]
    if links and all(links):
        slow = min(links)   # type: ignore[type-var]
        values[CLIENT_LINK] = spread(slow * 1e9 / 8, DECLARED, f"the slowest client's NIC, {format_link_speed(slow * 1e9 / 8)} (topology)")
    elif not links:
        speeds = [n.nic_gbps for n in topo.nodes if n.nic_gbps]
        if speeds:   # no client drawn: one like the servers
            values[CLIENT_LINK] = spread(min(speeds) * 1e9 / 8, ASSUMED,
                                         "assumed: no client in the topology, one with the slowest server's NIC",
                                         factor=1.5)
    return Params(values)


def uncalibrated(topo: Topology) -> Model:
    return Model(prior_params(topo))


# ------------------------------------------------------------------ fitting


def fit(topo: Topology, inputs: Inputs) -> Model:
    """The model for ``topo`` calibrated on ``inputs`` (see the module doc for the rules)."""
    return fit_params(prior_params(topo), inputs)


def fit_params(prior: Params, inputs: Inputs) -> Model:
    """``fit`` from given priors (e.g. an uncalibrated estimate's own parameters)."""
    params = prior
    notes: list[str] = list(inputs.notes)
    if inputs.measured:
        params = params.with_values(dict(inputs.measured))
    obs = list(inputs.observations)
    for direction in DIRECTIONS:
        mine = [o for o in obs if o.direction == direction]
        if mine:
            params = _fit_direction(params, mine, direction, notes)
    params = _shared_fanout(params, obs, notes)
    residuals = tuple(_residual(o, params) for o in obs)
    warnings: list[str] = []
    run_spread = None
    if obs:
        params, run_spread = _noise(params, obs, residuals, notes, warnings)
        residuals = tuple(_residual(o, params) for o in obs)
    from .latency import fit as fit_latency

    return Model(params, tuple(inputs.sources), tuple(dict.fromkeys(notes)), residuals, tuple(warnings),
                 fit_latency(inputs.latency) if inputs.latency else None, tuple(inputs.latency_sources), run_spread)


def _residual(o: Observation, params: Params) -> Residual:
    p = predict(o.shape, params, o.direction, o.concurrency, o.block_size)
    return Residual(o, p.bps, p.bound)


def _plainness(o: Observation) -> tuple:
    """Order for fitting the client's own ceilings: the layout adding least per request first
    (distribute: one RPC, no extra wire bytes, no erasure coding)."""
    s = o.shape.first()
    return (s.rpcs(o.direction), s.wire(o.direction), s.ec_passes(o.direction), not o.shape.io_threads)


def _fit_direction(params: Params, obs: list[Observation], d: str, notes: list[str]) -> Params:
    large = [o for o in obs if o.large]
    singles = [o for o in large if o.concurrency == 1]
    many = [o for o in large if o.concurrency > 1]
    for _ in range(3):   # the ceilings and the per-layout costs inform each other: settle them
        params = _fit_ceiling(params, singles, d, STREAM, notes, single=True)
        params = _fit_ceiling(params, many, d, CLIENT, notes, single=False)
        params = _fit_fanout(params, singles, d, FANOUT, notes)
        params = _fit_fanout(params, many, d, FANOUT_CPU, notes)
        params = fit_no_io_threads(params, many, d, notes)
        for o in large:
            params = _raise_priors(params, o, notes)
    return _fit_call(params, [o for o in obs if o.concurrency == 1 and not o.large], d, notes)


def _solve(f, target: float, lo: float = 1.0, hi: float = 1e14) -> float:
    """The least x in [lo, hi] with f(x) ≥ target, f non-decreasing (geometric bisection)."""
    if f(hi) < target:
        return hi
    for _ in range(48):
        mid = (lo * hi) ** 0.5
        if f(mid) >= target:
            hi = mid
        else:
            lo = mid
    return hi


NO_LIMIT = 1e13     # a ceiling the other costs already explain: as good as none
RAISE_LIMIT = 1e6   # a prior proved too low is raised at most this many times


def _bound_value(params: Params, o: Observation, bound: str) -> float | None:
    return tm.bounds_of(o.shape, params, o.direction, o.concurrency, o.block_size).get(bound)


def _without(params: Params, key: str) -> Params:
    return params.with_values({key: Value(None, FITTED)})


def _fit_ceiling(params: Params, obs: list[Observation], d: str, name: str, notes: list[str],
                 single: bool) -> Params:
    """S (``single``) or C from the plainest layout measured: the value at which its bound
    equals the measured figure (median over the figures of that layout). Both add in time to
    the layout's other costs, so each is 1 ÷ (measured seconds per byte − the others')."""
    if not obs:
        return params
    key = f"{name}.{d}"
    if params.values.get(key) is not None and params.values[key].source == MEASURED:
        return params
    plain = min(_plainness(o) for o in obs)
    mine = [o for o in obs if _plainness(o) == plain]
    implied: list[float] = []
    explained_by: list[str] = []
    for o in mine:
        stream_rest, client_rest = tm.seconds_per_byte(o.shape, _without(params, key), d, o.block_size)
        if single:
            left = o.concurrency / o.bps - stream_rest
            implied.append(1.0 / left if left > 0 else NO_LIMIT)
            continue
        # C: unless a bound with a prior already carries the figure, C is what holds it down
        others = tm.bounds_of(o.shape, _without(params, key), d, o.concurrency, o.block_size)
        prior_bounds = {b: v for b, v in others.items() if b not in (tm.B_STREAM, tm.B_CLIENT, tm.B_EC)}
        carrier = min(prior_bounds, key=lambda b: prior_bounds[b]) if prior_bounds else ""
        if carrier and abs(prior_bounds[carrier] / o.bps - 1) <= EXPLAINED:
            explained_by.append(f"{carrier} ({format_rate(prior_bounds[carrier])})")
            implied.append(o.bps)
            continue
        # a layout without client io-threads moves R × what the same client does with them
        left = (1.0 / o.bps - client_rest) * (1.0 if o.shape.io_threads else params.value(tm.NO_IO_THREADS, d) or 1.0)
        implied.append(1.0 / left if left > 0 else NO_LIMIT)
    value = statistics.median(implied)
    what = "one file" if single else f"{'/'.join(sorted({str(o.concurrency) for o in mine}))} files at once"
    srcs = ", ".join(sorted({o.source for o in mine}))
    layout = mine[0].layout or mine[0].shape.description
    if explained_by and len(explained_by) == len(mine):
        old = params.values.get(key)
        keep = old is not None and old.value is not None and old.value > value
        final = old.value if keep else value   # type: ignore[union-attr]
        note = (f"at least {format_rate(value)} ({layout} {what}, {srcs}, is carried by "
                f"{explained_by[0]}); " + ("kept at the assumed value" if keep else "taken at that"))
        return params.with_values({key: Value(final, FITTED, note, value, max(final * 1.5, value))})
    note = f"{layout} {what} {d}: {format_rate(statistics.median([o.bps for o in mine]))} ({srcs})"
    return params.with_values({key: spread(value, FITTED, note)})


def _fit_fanout(params: Params, obs: list[Observation], d: str, name: str, notes: list[str]) -> Params:
    """What an extra brick RPC of one request costs, from layouts with more RPCs per request
    than the plainest one measured (only when both kinds were measured): the seconds per byte
    they take beyond the plain layout's, per extra RPC of a request."""
    key = f"{name}.{d}"
    if not obs or (params.values.get(key) is not None and params.values[key].source == MEASURED):
        return params
    rpcs = {o.shape.first().rpcs(d) for o in obs}
    if len(rpcs) < 2:
        return params
    plain = min(rpcs)
    fanned = [o for o in obs if o.shape.first().rpcs(d) > plain]
    implied = []
    for o in fanned:
        stream0, client0 = tm.seconds_per_byte(o.shape, params.with_values({key: Value(0.0, FITTED)}), d,
                                               o.block_size)
        target, base = (o.concurrency / o.bps, stream0) if name == FANOUT else (1.0 / o.bps, client0)
        extra = o.shape.first().rpcs(d) - 1
        implied.append(max(0.0, (target - base) * REQUEST_BYTES / extra))
    value = statistics.median(implied)
    srcs = ", ".join(sorted({o.layout or o.shape.description for o in fanned}))
    note = (f"{format_duration(value)} per extra brick RPC of a {format_block_label(REQUEST_BYTES)} request, from {srcs} "
            f"beside the plainest layout measured")
    return params.with_values({key: Value(value, FITTED, note, value * 1.5, value * 0.6)})


#: of what a plain request costs servers sharing the client's CPUs beyond moving and storing its
#: bytes, the part an extra brick RPC repeats: the brick's side of a request (its RPC layer,
#: io-threads hand-off, the filesystem call) and the client's protocol RPC to it, but not the
#: FUSE crossing and the translators above the protocol client, which a request pays once.
#: Assumed two thirds: on the 2-core sandbox, a second layout of another fan-out (2 × disperse
#: 3+1 beside distribute) fitted 62 % and 74 % of it in two runs (README "How far off it is").
RPC_SHARE = 2 / 3


def _shared_fanout(params: Params, obs: Sequence[Observation], notes: list[str]) -> Params:
    """Where the probe found the servers on the client's CPUs (it measured what a stored byte
    costs them, σ) and the client's aggregate C was fitted on a layout of one brick RPC per
    request, an extra brick RPC costs those CPUs, and a stream's wait, ``RPC_SHARE`` of that
    request's cost beyond its bytes: q ÷ C − q × σ. Writes measure it (the probe's write figures
    are CPU work on one kernel; a read after a cache drop waits on the disk, which costs no
    CPU); an RPC's own cost does not depend on the way the data goes, so reads take the same —
    also when two layouts of different fan-out fitted the write side, which is then kept."""
    per_byte = params.values.get(f"{SHARED_BYTE}.{WRITE}")
    if per_byte is None or per_byte.source != MEASURED or not per_byte.value:
        return params
    fitted = {name: params.values.get(f"{name}.{WRITE}") for name in (FANOUT, FANOUT_CPU)}
    if all(v is not None and v.source == FITTED for v in fitted.values()):
        changes = {}
        for name, v in fitted.items():
            old = params.values.get(f"{name}.{READ}")
            if old is None or old.source not in (FITTED, MEASURED):
                changes[f"{name}.{READ}"] = Value(v.value, FITTED, f"{v.note}; reads take the writes' cost",
                                                  v.pessimistic, v.optimistic)
        return params.with_values(changes)
    client = params.values.get(f"{CLIENT}.{WRITE}")
    many = [o for o in obs if o.direction == WRITE and o.large and o.concurrency > 1]
    plain = min(many, key=_plainness, default=None)
    if (client is None or client.source != FITTED or not client.value or client.value >= NO_LIMIT
            or client.note.startswith("at least") or plain is None):   # C unknown: another bound carried it
        notes.append("the shared CPUs' cost per extra brick RPC stays assumed: no layout's many-file writes "
                     "measured what the client's CPUs move")
        return params
    first = plain.shape.first()
    if first.rpcs(WRITE) > 1 or first.ec_passes(WRITE):
        notes.append(f"the shared CPUs' cost per extra brick RPC stays assumed: the plainest layout measured "
                     f"({plain.layout or plain.shape.description}) sends each request to {first.rpcs(WRITE)} "
                     "bricks, so its figure already holds that cost; calibrate on distribute to derive it")
        return params
    request = REQUEST_BYTES / client.value
    beyond = request - REQUEST_BYTES * per_byte.value
    if beyond <= 0:
        # storing a byte "costs" more than a whole plain request: the probe's rates were not CPU
        notes.append(f"the probe's cost per stored byte ({per_byte.note}) exceeds what a whole request of "
                     f"{plain.layout or 'the calibration layout'} costs: it is not CPU work, left out")
        return params.with_values({f"{SHARED_BYTE}.{WRITE}": Value(None, FITTED, "left out: see the notes")})
    cost = RPC_SHARE * beyond
    note = (f"{format_duration(cost)} per extra brick RPC: {RPC_SHARE:.0%} (an assumed split) of what a "
            f"{format_block_label(REQUEST_BYTES)} request costs the shared CPUs on "
            f"{plain.layout or 'the calibration layout'} ({format_duration(request)}: {client.note}) beyond "
            f"storing its bytes ({format_duration(REQUEST_BYTES * per_byte.value)}, probe)")
    changes = {}
    for d in DIRECTIONS:
        for name in (FANOUT, FANOUT_CPU):
            key = f"{name}.{d}"
            old = params.values.get(key)
            if old is not None and old.source in (FITTED, MEASURED):
                continue
            changes[key] = Value(cost, FITTED, note, cost * 1.6, cost * 0.6)
    return params.with_values(changes)


def _raise_priors(params: Params, o: Observation, notes: list[str]) -> Params:
    """A measured figure above a bound with a prior (declared or measured brick, storage or
    link rate) proves that prior too low: raise it to the least value that carries the figure."""
    tolerance = 1.05
    bounds = tm.bounds_of(o.shape, params, o.direction, o.concurrency, o.block_size)
    for bound in (tm.B_BRICK, tm.B_STORAGE, tm.B_CLIENT_LINK, tm.B_NODE_LINK):
        value = bounds.get(bound)
        if value is None or value * tolerance >= o.bps:
            continue
        params = _raise(params, o, bound, notes)
        bounds = tm.bounds_of(o.shape, params, o.direction, o.concurrency, o.block_size)
    return params


def _raise(params: Params, o: Observation, bound: str, notes: list[str]) -> Params:
    d = o.direction
    if bound == tm.B_BRICK:
        keys = [k for k in params.values if tm.base(k) == BRICK and (f".{d}@" in k or k == f"{BRICK}.{d}")
                and (k.split("@", 1)[1] if "@" in k else "") in {str(b) for b in o.shape.bricks} | {""}]
    elif bound == tm.B_STORAGE:
        keys = [f"{STORAGE}.{d}"]
    elif bound == tm.B_CLIENT_LINK:
        keys = [CLIENT_LINK]
    else:
        keys = [k for k in params.values if tm.base(k) == NODE_LINK]
    keys = [k for k in keys if k in params.values]
    if not keys:
        return params
    before = {k: params.values[k] for k in keys}

    def scaled(factor: float) -> Params:
        return params.with_values({k: Value(v.value * factor, v.source, v.note, v.pessimistic, v.optimistic)
                                   for k, v in before.items() if v.value})

    if (_bound_value(scaled(RAISE_LIMIT), o, bound) or 0.0) < o.bps:
        # even a far faster disk or link would not carry it: something else in that bound
        # holds the figure down (a brick is fed by one stream at most), not this prior
        return params
    factor = _solve(lambda f: _bound_value(scaled(f), o, bound) or 0.0, o.bps, 1.0, RAISE_LIMIT)
    changes = {}
    for k, v in before.items():
        if not v.value:
            continue
        new = v.value * factor
        was = f"{v.source} {format_rate(v.value)}"
        note = (f"raised from {was}: {o.layout or o.shape.description} measured {format_rate(o.bps)} "
                f"with {o.concurrency} file(s) ({o.source}), which it cannot carry")
        changes[k] = Value(new, FITTED, note, new, new * 1.5)
    if changes:
        notes.append(f"{bound}: {next(iter(changes.values())).note}")
    return params.with_values(changes)


def _fit_call(params: Params, small: list[Observation], d: str, notes: list[str]) -> Params:
    """The cost of one call, from single-file figures at small blocks."""
    key = f"{CALL}.{d}"
    if not small or (params.values.get(key) is not None and params.values[key].source == MEASURED):
        return params
    implied = []
    for o in small:
        stream0, _ = tm.seconds_per_byte(o.shape, params.with_values({key: Value(0.0, FITTED)}), d, o.block_size)
        if not o.block_size:
            continue
        implied.append(max(0.0, (1.0 / o.bps - stream0) * o.block_size))
    if not implied:
        return params
    value = statistics.median(implied)
    sizes = ", ".join(format_block_label(b) for b in sorted({o.block_size for o in small}))
    return params.with_values({key: Value(value, FITTED, f"{format_duration(value)} per call, from one-file figures at "
                                                        f"{sizes} blocks", value * 1.5, value * 0.6)})


# ------------------------------------------------------------------ from stored runs


def observations_from_steps(shape: LayoutShape, steps: Iterable[Any], source: str, layout: str) -> list[Observation]:
    """Median throughput per (direction, files, block size) over headline steps (valid, not
    a suspected cache figure) of one run or several runs of one layout."""
    points: dict[tuple[str, int, int], list[float]] = {}
    for s in steps:
        if not getattr(s, "headline", s.valid):
            continue
        p = s.params
        d, n, b = p.get("direction"), p.get("concurrency", 1), p.get("block_size")
        m = s.metric("throughput")
        if d not in DIRECTIONS or not isinstance(n, int) or not isinstance(b, int) or m is None or not m.value > 0:
            continue
        points.setdefault((d, n, b), []).append(float(m.value))
    return [Observation(shape, d, n, b, statistics.median(v), source, layout, len(v), tuple(v))
            for (d, n, b), v in sorted(points.items())]


def merge(inputs: Sequence[Inputs]) -> Inputs:
    out = Inputs()
    for i in inputs:
        out = out + i
    return out


def describe_sources(model: Model) -> str:
    """'fitted: stream_bps.write, brick_bps.write ×8; declared: node_link_bps ×8; assumed: …'
    (a per-brick or per-node value counted once per parameter)."""
    groups: dict[str, dict[str, int]] = {}
    for key, v in model.params.values.items():
        name = key.split("@", 1)[0]
        groups.setdefault(v.source, {})
        groups[v.source][name] = groups[v.source].get(name, 0) + 1
    parts = []
    for source in tm.SOURCES:
        names = groups.get(source)
        if names:
            parts.append(f"{source}: " + ", ".join(f"{n} ×{c}" if c > 1 else n for n, c in sorted(names.items())))
    return "; ".join(parts)


def assumed_names(params: Params) -> list[str]:
    return sorted(k for k, v in params.values.items() if v.source == ASSUMED)


__all__ = ["Inputs", "Model", "Observation", "Residual", "assumed_names", "describe_sources", "fit", "fit_params",
           "merge", "observations_from_steps", "prior_params", "uncalibrated", "READ", "WRITE"]
