"""The throughput MODEL: what a layout will do on given hardware, from named physical parameters.

Pure arithmetic, no I/O. ``calibration.py`` fits the parameters from measurements; the
planner's ``estimate`` is this model at its assumed defaults (uncalibrated) or calibrated.

One client, N files written (or read) at once, each one stream of large sequential calls of
``block`` bytes through the FUSE mount; the kernel hands gluster requests of ``q`` = 128 KiB.
For a layout, per data byte (``f``: brick RPCs per request, ``w``: bytes on the client's wire,
``t_ec``: erasure-coding seconds on the client, see ``SetShape``):

- one stream: τ₁ = 1/S + t_call/block + (f − 1)·t_fan/q + (w − 1)/W + (s − 1)·σ + t_ec
- the client's CPU over all streams: τ_C = 1/C + (f − 1)·t_fan_cpu/q + (w − 1)/W + (s − 1)·σ + t_ec
  (S and C are what one stream and the whole client move on plain distribute: f = w = s = 1,
  no EC; the other terms are what a layout adds to the same threads, so they add in time;
  s: bytes stored per data byte, σ: what a stored byte costs CPUs the servers share with the
  client — 0 for servers on machines of their own, measured by the probe where they are not)
- erasure coding (gluster's non-systematic Vandermonde code): encoding writes d fragments,
  each a k-term product, so t_ec = d/G per data byte; decoding a read t_ec = k/G (G: the
  core's GF(2⁸) multiply-add rate)
- the bricks: files land on sets by DHT hash, each set with probability 1/sets, so the files
  on one set are Binomial(N, 1/sets): bricks(N) = sets · E[min(m/τ₁, cap(m))], cap the set's
  own rate for m files (distribute: B; replica write: the slowest copy B; disperse write: k·B;
  reads: B times the bricks the volume's read options pick for m files, ``SetShape.read_bricks``:
  replica by cluster.read-hash-mode and cluster.choose-local, disperse k of d bricks a file by
  disperse.read-policy) — "the expected number of distinct sets N files hit" is what this
  becomes when a set is slower than one stream
- links: client link ÷ w; each server link ÷ the share of the data its bricks carry
- shared storage (bricks on one disk or controller, found by the probe): ÷ stored bytes per
  data byte (replica: copies, disperse: d/k)

single = min(1/τ₁, 1/τ_C, bricks(1), links, storage); N files = min(N/τ₁, 1/τ_C, bricks(N),
links, storage). Every prediction names the bound that binds and carries all of them.

What it ignores: metadata and small-file costs, caches (it predicts cold, flushed I/O),
partial-stripe read-modify-write (gluster's stripe cache hides it for sequential writes),
self-heal and rebalance traffic, several clients, TCP's own window limits, and hashing
luck beyond its expectation (a given set of file names may land better or worse).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from itertools import chain
from operator import attrgetter
from typing import Iterable, Mapping

from .client_options import (NO_IO_THREADS_ASSUMED, NO_IO_THREADS_NOTE, READ_FIRST, READ_LEAST,  # noqa: F401
                             READ_LOCAL, READ_POLICIES, READ_SPREAD, chooses_local, io_threads, read_policy)
from .topology import BrickRef

WRITE, READ = "write", "read"
DIRECTIONS = (WRITE, READ)

# where a parameter's value comes from (most trusted first)
MEASURED = "measured"    # a probe measured it on this hardware
FITTED = "fitted"        # a calibration measurement of a layout implies it
DECLARED = "declared"    # the topology says so (brick speed_bps, nic_gbps)
ASSUMED = "assumed"      # a labelled default
SOURCES = (MEASURED, FITTED, DECLARED, ASSUMED)

REQUEST_BYTES = 128 * 1024   # the FUSE request gluster receives (kernel max_write)
DEFAULT_FILES = 8            # "many files" when nobody says how many: the write-up's eight

# parameter names (keys of ``Params.values``); a per-brick or per-node value is NAME@WHERE
STREAM = "stream_bps"            # .write/.read: one file through one client, distribute, large blocks
CLIENT = "client_bps"            # .write/.read: one client's aggregate on distribute
BRICK = "brick_bps"              # .write/.read[@node:/path]: a brick filesystem's own rate
STORAGE = "storage_bps"          # .write/.read: bricks sharing one disk/controller, together
NODE_LINK = "node_link_bps"      # [@node]: a server's link
CLIENT_LINK = "client_link_bps"  # the client's link
EC_GF = "ec_gf_bps"              # GF(2^8) multiply-add bytes/s of one client core
WIRE = "client_wire_bps"         # bytes/s a client core pushes into sockets (extra copies cost 1/W)
FANOUT = "fanout_seconds"        # .write/.read: serial seconds a request waits per extra brick RPC
FANOUT_CPU = "fanout_cpu_seconds"  # .write/.read: client CPU seconds per extra brick RPC
CALL = "call_seconds"            # .write/.read: what one read()/write() call costs a stream
SHARED_BYTE = "shared_cpu_seconds_per_byte"  # .write/.read: CPU a stored byte costs servers on the client's CPUs
NOISE = "noise_log_sigma"        # the calibration figures' run-to-run spread (σ of ln figure), widens every range
NO_IO_THREADS = "no_io_threads_ratio"  # .write/.read: the client's aggregate without io-threads ÷ with them

#: what each parameter means, for people (the README and the UI's tooltips use these)
MEANING = {
    STREAM: "one file through one client mount (plain distribute, large blocks)",
    CLIENT: "everything one client mount moves at once (plain distribute)",
    BRICK: "a brick filesystem's own sequential rate on its node",
    STORAGE: "all bricks together, where they share a disk or controller",
    NODE_LINK: "a server's network link",
    CLIENT_LINK: "the client's network link",
    EC_GF: "GF(2⁸) multiply-add rate of one client core (erasure coding)",
    WIRE: "rate a client core copies extra bytes into sockets (replica copies, parity)",
    FANOUT: "what each extra brick RPC of one request adds to its wait",
    FANOUT_CPU: "client CPU each extra brick RPC of one request costs",
    CALL: "what one read()/write() call costs a stream (small blocks)",
    SHARED_BYTE: "what each extra stored byte costs CPUs the servers share with the client",
    NOISE: "run-to-run spread of the calibration figures and the fit's own misfit (σ of ln figure)",
    NO_IO_THREADS: "what a client without io-threads (replicated volumes: glusterd turns them off) moves, all "
                   "files at once, of what it moves with them",
}
#: how many σ of noise a range spans on each side: 1.645, so 90 % of figures fall inside
NOISE_Z = 1.645
#: parameters that are costs (seconds): larger is slower
COSTS = (FANOUT, FANOUT_CPU, CALL, SHARED_BYTE)


def base(name: str) -> str:
    """'brick_bps.write@node1:/b' → 'brick_bps'."""
    return name.split("@", 1)[0].split(".", 1)[0]


@dataclass(frozen=True)
class Value:
    """One parameter value. ``value`` None: no such bound (nothing limits there).
    ``pessimistic``/``optimistic``: the range the interval spans (for a rate the low and high
    end; for a cost in seconds the high and low end)."""

    value: float | None
    source: str
    note: str = ""
    pessimistic: float | None = None
    optimistic: float | None = None

    def at(self, end: str) -> float | None:
        if end == "pessimistic" and self.pessimistic is not None:
            return self.pessimistic
        if end == "optimistic" and self.optimistic is not None:
            return self.optimistic
        return self.value

    def to_json(self) -> dict:
        return {"value": self.value, "source": self.source, "note": self.note,
                "pessimistic": self.pessimistic, "optimistic": self.optimistic}


def spread(value: float, source: str, note: str = "", *, cost: bool = False,
           factor: float | None = None) -> Value:
    """A Value with the interval its source deserves: a measurement ±15 %, a fit −15 %/+50 %
    (another bound may be the one that bound), a declared figure −30 %/±0 (a nominal speed is
    a ceiling), an assumption ÷/× ``factor`` (default 2)."""
    if source == MEASURED:
        lo, hi = 0.85, 1.15
    elif source == FITTED:
        lo, hi = 0.85, 1.5
    elif source == DECLARED:
        lo, hi = 0.7, 1.0
    else:
        f = factor or 2.0
        lo, hi = 1 / f, f
    if cost:   # seconds: the pessimistic end is the larger
        return Value(value, source, note, value / lo, value * lo)
    return Value(value, source, note, value * lo, value * hi)


def assumed_cost(value: float, worst: float, note: str) -> Value:
    """An assumed cost in seconds with an explicit pessimistic value (a default of 0 has no
    factor to scale)."""
    return Value(value, ASSUMED, note, worst, 0.0)


# ------------------------------------------------------------------ defaults


EC_GF_DEFAULT = 25.0e9
EC_GF_NOTE = ("assumed: Hernandez (gluster-devel, 17 Jun 2016) measured gluster's Vandermonde code on "
              "one 2.0 GHz Xeon core with SSE2 at rate × disperse ≈ 12,000 MiB/s for every "
              "configuration (8+2: 1,237 MiB/s); gluster 10 generates 256-bit AVX code where the "
              "CPU has it, twice the width: ≈ 25 GB/s")
STREAM_DEFAULT = 300e6
CLIENT_DEFAULT = 2.2e9
CLIENT_NOTE = ("assumed: what the NFS-to-GlusterFS write-up's client moved (about 300 MB/s one file, "
               "2.2 GB/s eight files, 40 Gbit/s, write-behind off); calibrate to know yours")
WIRE_DEFAULT = 5e9
WIRE_NOTE = "assumed: one copy of each extra byte into a socket, ≈ 5 GB/s per core"
CALL_DEFAULT = 50e-6
CALL_NOTE = "assumed: a FUSE round trip per call, ≈ 50 µs"
FANOUT_NOTE = ("assumed 0: servers on their own machines answer a request's RPCs in parallel; "
               "where servers share CPUs with the client (a sandbox, hyperconverged nodes) a probe "
               "finds it and the fit derives it, or calibrate on two layouts of different fan-out")


def default_values() -> dict[str, Value]:
    """Parameters nothing measured: labelled assumptions with wide intervals."""
    out: dict[str, Value] = {EC_GF: spread(EC_GF_DEFAULT, ASSUMED, EC_GF_NOTE),
                             WIRE: spread(WIRE_DEFAULT, ASSUMED, WIRE_NOTE)}
    for d in DIRECTIONS:
        out[f"{STREAM}.{d}"] = spread(STREAM_DEFAULT, ASSUMED, CLIENT_NOTE, factor=3.0)
        out[f"{CLIENT}.{d}"] = spread(CLIENT_DEFAULT, ASSUMED, CLIENT_NOTE, factor=3.0)
        out[f"{CALL}.{d}"] = spread(CALL_DEFAULT, ASSUMED, CALL_NOTE, cost=True, factor=3.0)
        out[f"{FANOUT}.{d}"] = assumed_cost(0.0, 200e-6, FANOUT_NOTE)
        out[f"{FANOUT_CPU}.{d}"] = assumed_cost(0.0, 50e-6, FANOUT_NOTE)
        value, low, high = NO_IO_THREADS_ASSUMED[d]
        out[f"{NO_IO_THREADS}.{d}"] = Value(value, ASSUMED, NO_IO_THREADS_NOTE, low, high)
    return out


@dataclass(frozen=True)
class Params:
    """Every parameter by name (``STREAM + ".write"``, ``BRICK + ".read@node1:/srv/b1"``,
    ``NODE_LINK + "@node2"``); a missing name means no bound there."""

    values: Mapping[str, Value] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_tables", {})    # not a field: a cache of what never changes

    def brick_rates(self, direction: str, end: str = "") -> tuple[dict[str, float | None], float | None]:
        """({"node:/path": rate}, the default rate) for one direction at one end of the
        range, built once per Params (a 24,000-brick plan reads it for every set)."""
        key = (direction, end)
        table = self._tables.get(key)   # type: ignore[attr-defined]
        if table is None:
            prefix = f"{BRICK}.{direction}@"
            rates = {k[len(prefix):]: v.at(end) for k, v in self.values.items() if k.startswith(prefix)}
            default = self.values.get(f"{BRICK}.{direction}")
            table = (rates, None if default is None else default.at(end))
            self._tables[key] = table   # type: ignore[attr-defined]
        return table

    def node_links(self, end: str = "") -> tuple[dict[str, float | None], float | None]:
        """({node: its link's rate}, the rate of a node without one) at one end of the range,
        built once per Params (a 1,000-server plan reads it for every server)."""
        key = ("links", end)
        table = self._tables.get(key)   # type: ignore[attr-defined]
        if table is None:
            prefix = f"{NODE_LINK}@"
            rates = {k[len(prefix):]: v.at(end) for k, v in self.values.items() if k.startswith(prefix)}
            default = self.values.get(NODE_LINK)
            table = (rates, None if default is None else default.at(end))
            self._tables[key] = table   # type: ignore[attr-defined]
        return table

    def get(self, name: str, direction: str = "", where: str = "") -> Value | None:
        key = name + (f".{direction}" if direction else "")
        if where and f"{key}@{where}" in self.values:
            return self.values[f"{key}@{where}"]
        return self.values.get(key)

    def value(self, name: str, direction: str = "", where: str = "", end: str = "") -> float | None:
        v = self.get(name, direction, where)
        return None if v is None else v.at(end)

    def with_values(self, changes: Mapping[str, Value]) -> "Params":
        return Params({**self.values, **changes})

    def sources(self) -> dict[str, str]:
        return {k: v.source for k, v in self.values.items()}

    def to_json(self) -> dict:
        return {k: v.to_json() for k, v in sorted(self.values.items())}


# ------------------------------------------------------------------ layout shapes


@dataclass(frozen=True)
class SetShape:
    """One set as the model sees it. ``kind``: "distribute" (one brick), "replica"
    (``copies`` data bricks, ``arbiter`` one more), "disperse" (``d`` bricks, ``k`` data)."""

    kind: str
    bricks: tuple[BrickRef, ...]       # bricks holding file data (arbiter excluded)
    k: int = 1
    d: int = 1
    arbiter: BrickRef | None = None

    reads: str = READ_SPREAD        # how reads pick bricks (see READ_POLICIES)

    def __init__(self, kind: str, bricks: tuple[BrickRef, ...], k: int = 1, d: int = 1,
                 arbiter: BrickRef | None = None, reads: str = READ_SPREAD):
        # the frozen dataclass __init__ in one step (see planmodel.BrickSet): a 24,000-brick
        # plan builds 8,000 of these for every estimate
        copies = len(bricks) if kind == "replica" else 1
        self.__dict__.update(kind=kind, bricks=bricks, k=k, d=d, arbiter=arbiter, reads=reads, copies=copies,
                             structure=(kind, k, d, copies, reads))

    copies: int = field(init=False, repr=False, compare=False)
    #: what the model needs of a set besides its bricks' rates: (kind, k, d, copies, reads)
    structure: tuple[str, int, int, int, str] = field(init=False, repr=False, compare=False)

    def read_bricks(self, files: int) -> float:
        """Bricks that serve ``files`` files read at once from this set (in expectation): a
        replicated file is read from one brick of its set — which one is the volume's
        ``cluster.read-hash-mode`` (and ``cluster.choose-local``); a dispersed file from k of
        its d bricks (``disperse.read-policy``)."""
        if self.kind == "replica":
            c = self.copies
            if self.reads in (READ_FIRST, READ_LOCAL):
                return 1.0
            if self.reads == READ_LEAST:
                return float(min(files, c))
            return c * (1.0 - (1.0 - 1.0 / c) ** files)        # hashed: each file on a random copy
        if self.kind == "disperse":
            if self.reads == READ_LEAST:                        # round-robin: every read rotates
                return float(min(files * self.k, self.d))
            return self.d * (1.0 - (1.0 - self.k / self.d) ** files)   # gfid-hash: k bricks per file
        return 1.0

    @cached_property
    def brick_keys(self) -> tuple[str, ...]:
        """The bricks as parameters name them ("node:/path")."""
        return tuple(str(b) for b in self.bricks)

    def rpcs(self, direction: str) -> int:
        """Brick RPCs one request fans out to."""
        if self.kind == "replica":
            return self.copies + (1 if self.arbiter is not None else 0) if direction == WRITE else 1
        if self.kind == "disperse":
            return self.d if direction == WRITE else self.k
        return 1

    def wire(self, direction: str) -> float:
        """Bytes on the client's wire per data byte."""
        if direction == READ:
            return 1.0
        if self.kind == "replica":
            return float(self.copies)
        if self.kind == "disperse":
            return self.d / self.k
        return 1.0

    def stored(self, direction: str) -> float:
        """Bytes the bricks write (or read) per data byte."""
        return self.wire(direction)

    def ec_passes(self, direction: str) -> int:
        """GF(2⁸) passes over each data byte (encode d, decode k; 0 without EC)."""
        if self.kind != "disperse":
            return 0
        return self.d if direction == WRITE else self.k

    def brick_share(self, direction: str) -> float:
        """Bytes each brick of the set carries per data byte of the set (on average)."""
        if self.kind == "replica":
            return 1.0 if direction == WRITE else 1.0 / self.copies
        if self.kind == "disperse":
            return 1.0 / self.k if direction == WRITE else 1.0 / self.d
        return 1.0


@dataclass(frozen=True)
class LayoutShape:
    sets: tuple[SetShape, ...]
    description: str = ""
    io_threads: bool = True      # the client graph holds io-threads (``client_options.io_threads``)

    @property
    def bricks(self) -> tuple[BrickRef, ...]:
        return tuple(b for s in self.sets for b in s.bricks)

    def nodes(self) -> list[str]:
        return list(self._nodes)

    @cached_property
    def _nodes(self) -> tuple[str, ...]:
        nodes = dict.fromkeys(self._node_bricks)
        nodes.update(dict.fromkeys(s.arbiter.node for s in self.sets if s.arbiter is not None))
        return tuple(nodes)

    def first(self) -> SetShape:
        return self.sets[0]

    @cached_property
    def structures(self) -> dict[tuple[str, int, int, int], int]:
        """How many sets of each ``SetShape.structure``: worked out once per shape, so each
        evaluation groups 8,000 sets by looking at a handful of entries."""
        out: dict[tuple[str, int, int, int], int] = {}
        for s in self.sets:
            key = s.structure
            out[key] = out.get(key, 0) + 1
        return out

    @cached_property
    def _brick_sets(self) -> dict[str, list[int]]:
        """"node:/path" → the indices of the sets holding that brick (built only when some
        brick has a rate of its own)."""
        out: dict[str, list[int]] = {}
        for i, s in enumerate(self.sets):
            for key in s.brick_keys:
                out.setdefault(key, []).append(i)
        return out

    def sets_with(self, bricks: Iterable[str]) -> set[int]:
        """Indices of the sets holding any of ``bricks`` ("node:/path")."""
        index = self._brick_sets
        out: set[int] = set()
        for b in bricks:
            out.update(index.get(b, ()))
        return out

    @cached_property
    def _node_bricks(self) -> dict[str, dict[tuple[str, int, int, int], int]]:
        """Per server: how many bricks of sets of each structure it holds (one pass, at C
        speed where the sets are all alike)."""
        out: dict[str, dict[tuple[str, int, int, int], int]] = {}
        if len(self.structures) == 1:
            (key,) = self.structures
            counts = Counter(map(_NODE_OF, chain.from_iterable(map(_BRICKS_OF, self.sets))))
            return {node: {key: n} for node, n in counts.items()}
        for s in self.sets:
            key = s.structure
            for b in s.bricks:
                counts = out.get(b.node)
                if counts is None:
                    counts = out[b.node] = {}
                counts[key] = counts.get(key, 0) + 1
        return out

    @cached_property
    def _loads(self) -> dict[tuple[str, bool], dict[str, float]]:
        """Per direction and (one file, many files): the share of the data each server's
        bricks carry (many files: sets equally loaded). Worked out once per shape."""
        out: dict[tuple[str, bool], dict[str, float]] = {}
        shares = {key: next(s for s in self.sets if s.structure == key) for key in self.structures}
        for d in DIRECTIONS:
            share = {key: s.brick_share(d) for key, s in shares.items()}
            one: dict[str, float] = {}
            first = self.sets[0]
            for b in first.bricks:
                one[b.node] = one.get(b.node, 0.0) + first.brick_share(d)
            out[(d, True)] = one
            weight = 1.0 / len(self.sets)
            out[(d, False)] = {node: weight * sum(n * share[key] for key, n in counts.items())
                               for node, counts in self._node_bricks.items()}
        return out

    def node_loads(self, direction: str, one: bool) -> dict[str, float]:
        return self._loads[(direction, one)] if self.sets else {}


_NODE_OF = attrgetter("node")
_BRICKS_OF = attrgetter("bricks")


def shape_of(sets: Iterable, description: str = "", options: Mapping[str, str] | None = None,
             client_nodes: Iterable[str] = ()) -> LayoutShape:
    """A LayoutShape from the planner's ``BrickSet``s (duck-typed: bricks, arbiter,
    data_bricks, redundancy); a short, broken tail set (no data bricks) is left out.
    ``options``: the volume's options (how reads pick bricks); ``client_nodes``: servers the
    client runs on (with ``cluster.choose-local`` a replica set holding a brick there is read
    from that brick)."""
    options = options or {}
    replica_reads, disperse_reads = read_policy("replica", options), read_policy("disperse", options)
    local = set(client_nodes) if chooses_local(options) else set()
    out = []
    append = out.append
    for s in sets:
        if s.data_bricks <= 0:
            continue
        bricks, arbiter = tuple(s.bricks), s.arbiter
        if s.redundancy:
            append(SetShape("disperse", bricks, s.data_bricks, len(bricks), None, disperse_reads))
            continue
        # the arbiter is the set's last brick; a thin arbiter is written only when a data brick
        # is down: not in a request's fan-out
        data = bricks[:-1] if arbiter is not None and bricks and bricks[-1] == arbiter else bricks
        if arbiter is not None and getattr(s, "thin_arbiter", False):
            arbiter = None
        if len(data) > 1 or arbiter is not None:
            reads = READ_LOCAL if local and any(b.node in local for b in data) else replica_reads
            append(SetShape("replica", data, 1, 1, arbiter, reads))
        else:
            append(SetShape("distribute", data))
    return LayoutShape(tuple(out), description, io_threads(any(x.kind == "replica" for x in out), options))


# ------------------------------------------------------------------ predictions

# bound names (the UI says *why* with these)
B_STREAM = "client stream"
B_CLIENT = "client CPU"
B_EC = "EC CPU"
B_BRICK = "brick disk"
B_STORAGE = "shared storage"
B_CLIENT_LINK = "client link"
B_NODE_LINK = "node link"


@dataclass(frozen=True)
class Prediction:
    """One figure: ``bps`` with its binding ``bound`` and every bound's own figure; ``low``..
    ``high`` the interval (every parameter at its pessimistic, then optimistic end)."""

    direction: str
    concurrency: int
    block_size: int | None
    bps: float
    bound: str
    bounds: Mapping[str, float]
    low: float
    high: float
    why: str = ""          # the binding bound in words ("client link ÷ 2 copies")

    def to_json(self) -> dict:
        return {"direction": self.direction, "concurrency": self.concurrency,
                "block_size": self.block_size, "bps": self.bps, "bound": self.bound, "why": self.why,
                "low_bps": self.low, "high_bps": self.high, "bounds": dict(self.bounds)}


def expected_sets_hit(files: int, sets: int) -> float:
    """Expected number of distinct sets ``files`` files land on when DHT puts each on one of
    ``sets`` sets with equal chance: sets · (1 − (1 − 1/sets)^files)."""
    if files <= 0 or sets <= 0:
        return 0.0
    return sets * (1.0 - (1.0 - 1.0 / sets) ** files)


def _binomial(n: int, p: float) -> list[float]:
    return [math.comb(n, m) * p ** m * (1 - p) ** (n - m) for m in range(n + 1)]


def _min_known(values: Iterable[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return min(known) if known else None


class _Eval:
    """The model at one end of every parameter's range ('' = the value itself)."""

    def __init__(self, shape: LayoutShape, params: Params, direction: str, end: str = ""):
        self.shape, self.p, self.d, self.end = shape, params, direction, end
        self._slowest: dict[int, float | None] = {}
        self._groups: dict[tuple, int] | None = None
        self._links: dict[bool, tuple[float | None, str]] = {}

    def v(self, name: str, where: str = "", directional: bool = True) -> float | None:
        return self.p.value(name, self.d if directional else "", where, self.end)

    def brick(self, ref: BrickRef) -> float | None:
        return self.v(BRICK, str(ref))

    # per data byte, seconds
    def tau_stream(self, s: SetShape, block: int | None) -> float:
        stream = self.v(STREAM)
        t = 1.0 / stream if stream else 0.0
        call = self.v(CALL) or 0.0
        if block:
            t += call / block
        t += self._layout_cost(s, FANOUT)
        return t

    def tau_client(self, s: SetShape) -> float:
        client = self.v(CLIENT)
        return ((1.0 / client if client else 0.0) + self._layout_cost(s, FANOUT_CPU)) * self.threads()

    def threads(self) -> float:
        """How much longer a byte takes the client's threads on a layout without io-threads:
        every request is wound on the FUSE thread (1: the client has them). One stream's wait
        is left as it is: on the sandbox one file went as fast either way, within its scatter,
        while many files at once lost a fifth (reads) to two fifths (writes)."""
        if self.shape.io_threads:
            return 1.0
        ratio = self.v(NO_IO_THREADS)
        return 1.0 / ratio if ratio else 1.0

    def ec_seconds(self, s: SetShape) -> float:
        passes = s.ec_passes(self.d)
        gf = self.v(EC_GF, directional=False)
        return passes / gf if passes and gf else 0.0

    def _layout_cost(self, s: SetShape, fan: str) -> float:
        t = (s.rpcs(self.d) - 1) * (self.v(fan) or 0.0) / REQUEST_BYTES
        wire = self.v(WIRE, directional=False)
        if wire and s.wire(self.d) > 1:
            t += (s.wire(self.d) - 1) / wire
        # servers on the client's own CPUs: each extra stored byte (a replica copy, parity)
        # is received and written on those CPUs, which one stream and all of them wait for
        shared = self.v(SHARED_BYTE)
        if shared and s.stored(self.d) > 1:
            t += (s.stored(self.d) - 1) * shared
        return t + self.ec_seconds(s)

    def slowest(self, s: SetShape) -> float | None:
        """The slowest brick of a set (None: some brick's rate is unknown)."""
        key = id(s)
        if key in self._slowest:
            return self._slowest[key]
        rates, default = self.p.brick_rates(self.d, self.end)
        slow: float | None = None
        for name in s.brick_keys:
            rate = rates.get(name, default)
            if rate is None:
                slow = None
                break
            slow = rate if slow is None or rate < slow else slow
        self._slowest[key] = slow
        return slow

    def groups(self) -> dict[tuple, int]:
        """Sets by (kind, k, d, copies, slowest brick): how many of each. Only the sets holding
        a brick with a rate of its own are looked at one by one; every other set's slowest
        brick is the default rate, so its group comes from the shape's structure counts."""
        if self._groups is None:
            rates, default = self.p.brick_rates(self.d, self.end)
            shape = self.shape
            groups: dict[tuple, int] = {(*key, default): n for key, n in shape.structures.items()}
            if rates:
                sets = shape.sets
                for i in shape.sets_with(rates):
                    s = sets[i]
                    plain = (*s.structure, default)
                    groups[plain] -= 1
                    key = (*s.structure, self.slowest(s))
                    groups[key] = groups.get(key, 0) + 1
                groups = {k: n for k, n in groups.items() if n}
            self._groups = groups
        return self._groups

    def set_cap(self, s: SetShape, files: int) -> float | None:
        """A set's own rate for ``files`` files: distribute B; replica write the slowest
        copy; disperse write k·B; reads B × ``SetShape.read_bricks(files)`` (B: the slowest
        brick of the set, also where choose-local reads the client's own brick)."""
        return _cap(s.structure, self.slowest(s), self.d, files)

    def bounds(self, n: int, block: int | None) -> tuple[dict[str, float], dict[str, str]]:
        shape, sets = self.shape, self.shape.sets
        s0 = sets[0]
        # a stream's ceiling on a typical set (sets of one layout have the same shape)
        per_stream = 1.0 / self.tau_stream(s0, block) if self.tau_stream(s0, block) > 0 else None
        out: dict[str, float] = {}
        why: dict[str, str] = {}
        if per_stream is not None:
            out[B_STREAM] = n * per_stream
            why[B_STREAM] = (f"{n} streams × one stream's ceiling" if n > 1 else "one stream through the client mount")
        tc = self.tau_client(s0)
        if tc > 0:
            ec = self.ec_seconds(s0)
            key = B_EC if ec > tc / 2 else B_CLIENT
            out[key] = 1.0 / tc
            why[key] = (f"client CPU, {ec / tc:.0%} of it erasure coding (d={s0.d}, k={s0.k})" if ec else
                        "the client's aggregate (FUSE and transport threads)" if shape.io_threads else
                        "the client's aggregate without io-threads (requests wound on the FUSE thread)")
        # bricks: files per set ~ Binomial(n, 1/sets); each file at most one stream. A set
        # whose bricks' rates are unknown is not bounded by them. Sets of one kind and
        # slowest brick behave alike: each distinct one is worked out once.
        p = 1.0 / len(sets)
        probs = _binomial(n, p)
        groups = self.groups()
        total, known = 0.0, False
        for (*structure, slow), count in groups.items():
            known = known or slow is not None
            for m, pm in enumerate(probs):
                if m == 0 or pm == 0.0:
                    continue
                cap = _cap(structure, slow, self.d, m)
                stream_cap = m * per_stream if per_stream else math.inf
                total += count * pm * min(stream_cap, cap if cap is not None else math.inf)
        if known and math.isfinite(total):
            out[B_BRICK] = total
            hit = expected_sets_hit(n, len(sets))
            why[B_BRICK] = (f"brick disks: {n} file(s) land on ≈{hit:.2f} of {len(sets)} set(s)"
                            if len(sets) > 1 else f"brick disks of the one set ({s0.kind})")
        storage = self.v(STORAGE)
        if storage:
            out[B_STORAGE] = storage / s0.stored(self.d)
            why[B_STORAGE] = f"bricks' shared storage ÷ {s0.stored(self.d):g} bytes stored per byte"
        cl = self.v(CLIENT_LINK, directional=False)
        if cl:
            w = s0.wire(self.d)
            out[B_CLIENT_LINK] = cl / w
            why[B_CLIENT_LINK] = ("client link" if w == 1 else
                                  f"client link ÷ {w:g} ({'replica copies' if s0.kind == 'replica' else 'fragments of d/k'})")
        node_bound, node_name = self._node_links(n)
        if node_bound is not None:
            out[B_NODE_LINK] = node_bound
            why[B_NODE_LINK] = f"link of {node_name}"
        return out, why

    def _node_links(self, n: int) -> tuple[float | None, str]:
        """The data rate at which the busiest server link fills: each server carries its
        bricks' share of the data of their sets (sets equally loaded)."""
        one = n == 1
        found = self._links.get(one)
        if found is not None:
            return found
        best: float | None = None
        name = ""
        links, default = self.p.node_links(self.end)
        for node, share in self.shape.node_loads(self.d, one).items():
            link = links.get(node, default)
            if link and share > 0:
                bound = link / share
                if best is None or bound < best:
                    best, name = bound, node
        self._links[one] = (best, name)
        return best, name


def _cap(structure, slow: float | None, direction: str, files: int) -> float | None:
    """A set's own rate for ``files`` files at once (see ``_Eval.set_cap``): writes reach
    every brick (replica: the slowest copy; disperse: k bricks' worth), reads the bricks the
    set's read policy picks (``SetShape.read_bricks``)."""
    if slow is None:
        return None
    kind, k, d, copies, reads = structure
    if direction == WRITE:
        return k * slow if kind == "disperse" else slow
    if kind == "distribute":
        return slow
    return _read_bricks(kind, k, d, copies, reads, files) * slow


@lru_cache(maxsize=4096)
def _read_bricks(kind: str, k: int, d: int, copies: int, reads: str, files: int) -> float:
    return SetShape(kind, (None,) * (copies if kind == "replica" else d), k, d, None, reads).read_bricks(files)


def predict_many(shape: LayoutShape, params: Params,
                 points: Iterable[tuple[str, int, int | None]]) -> list[Prediction]:
    """``predict`` at several (direction, files, block size) points, sharing the work that
    does not depend on the point (each set's slowest brick, per direction and range end)."""
    evals: dict[tuple[str, str], _Eval] = {}
    out = []
    noise = params.value(NOISE) or 0.0
    for direction, concurrency, block_size in points:
        if direction not in DIRECTIONS:
            raise ValueError(f"direction {direction!r}: write or read")
        if not shape.sets:
            raise ValueError("a layout without sets has no throughput")
        ev = {end: evals.setdefault((direction, end), _Eval(shape, params, direction, end))
              for end in ("", "pessimistic", "optimistic")}
        n = max(1, int(concurrency))
        bounds, why = ev[""].bounds(n, block_size)
        if not bounds:
            raise ValueError("no parameter bounds this layout: nothing to predict from")
        bound = min(bounds, key=lambda k: bounds[k])
        value = bounds[bound]
        low = min(min(ev["pessimistic"].bounds(n, block_size)[0].values()), value)
        high = max(min(ev["optimistic"].bounds(n, block_size)[0].values()), value)
        if noise:
            low, high = _with_noise(value, low, high, noise)
        out.append(Prediction(direction, n, block_size, value, bound, bounds, low, high, why.get(bound, bound)))
    return out


def _with_noise(value: float, low: float, high: float, sigma: float) -> tuple[float, float]:
    """The range widened by the calibration's measured noise: the parameters' own range and
    ± NOISE_Z σ of run-to-run spread are independent, so their widths add in quadrature (in
    ln figure)."""
    z = NOISE_Z * sigma
    down = math.log(value / low) if low > 0 else math.inf
    up = math.log(high / value) if value > 0 else 0.0
    return value * math.exp(-math.hypot(down, z)), value * math.exp(math.hypot(up, z))


def predict(shape: LayoutShape, params: Params, direction: str, concurrency: int = 1,
            block_size: int | None = None) -> Prediction:
    """The model's figure for ``concurrency`` files at once (1: a single file), large blocks
    unless ``block_size`` says otherwise."""
    return predict_many(shape, params, [(direction, concurrency, block_size)])[0]


def bounds_of(shape: LayoutShape, params: Params, direction: str, concurrency: int = 1,
              block_size: int | None = None) -> dict[str, float]:
    """Every bound's figure at the parameters' own values (no interval: what a fit needs)."""
    return _Eval(shape, params, direction).bounds(max(1, int(concurrency)), block_size)[0]


def seconds_per_byte(shape: LayoutShape, params: Params, direction: str,
                     block_size: int | None = None) -> tuple[float, float]:
    """(τ₁, τ_C): what one stream and the client's CPU spend per data byte on this layout."""
    e = _Eval(shape, params, direction)
    s0 = shape.first()
    return e.tau_stream(s0, block_size), e.tau_client(s0)


def parameters_of(shape: LayoutShape, bound: str, direction: str) -> list[str]:
    """The parameter names a bound depends on (for calibration: what a measurement that this
    bound explains can tell)."""
    s0 = shape.first()
    if bound == B_STREAM:
        return [f"{STREAM}.{direction}"]
    if bound in (B_CLIENT, B_EC):
        return [f"{CLIENT}.{direction}"]
    if bound == B_BRICK:
        return [f"{BRICK}.{direction}"]
    if bound == B_STORAGE:
        return [f"{STORAGE}.{direction}"]
    if bound == B_CLIENT_LINK:
        return [CLIENT_LINK]
    if bound == B_NODE_LINK:
        return [NODE_LINK]
    return [s0.kind]
