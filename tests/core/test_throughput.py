"""The throughput model's physics, one bound at a time: each test makes one bound the
binding one and checks the figure and the name it gives."""

import pytest

from brickyard.core import throughput as tm
from brickyard.core.throughput import (BRICK, CLIENT, CLIENT_LINK, EC_GF, NODE_LINK, STORAGE, STREAM, WIRE,
                                       LayoutShape, Params, SetShape, Value, predict)
from brickyard.core.topology import BrickRef

MB = 1e6
HUGE = 1e15


def bricks(n, per_node=1):
    return [BrickRef(f"n{i // per_node}", f"/b{i % per_node}") for i in range(n)]


def distribute(n, per_node=1):
    return LayoutShape(tuple(SetShape("distribute", (b,)) for b in bricks(n, per_node)))


def replica(n, copies):
    bs = bricks(n)
    return LayoutShape(tuple(SetShape("replica", tuple(bs[i:i + copies])) for i in range(0, n, copies)))


def disperse(n, d, r):
    bs = bricks(n)
    return LayoutShape(tuple(SetShape("disperse", tuple(bs[i:i + d]), k=d - r, d=d) for i in range(0, n, d)))


def params(**given):
    """Every bound out of the way (huge) unless given; costs 0."""
    v = {}
    for d in ("write", "read"):
        v[f"{STREAM}.{d}"] = Value(given.get("stream", HUGE), "assumed")
        v[f"{CLIENT}.{d}"] = Value(given.get("client", HUGE), "assumed")
        if "brick" in given:
            v[f"{BRICK}.{d}"] = Value(given["brick"], "measured")
        if "storage" in given:
            v[f"{STORAGE}.{d}"] = Value(given["storage"], "measured")
    v[EC_GF] = Value(given.get("gf", HUGE), "assumed")
    v[WIRE] = Value(given.get("wire", HUGE), "assumed")
    if "client_link" in given:
        v[CLIENT_LINK] = Value(given["client_link"], "declared")
    if "node_link" in given:
        v[NODE_LINK] = Value(given["node_link"], "declared")
    return Params(v)


def test_expected_sets_hit_by_hashing_is_not_the_number_of_files():
    assert tm.expected_sets_hit(8, 8) == pytest.approx(8 * (1 - (7 / 8) ** 8))   # ≈ 5.25
    assert tm.expected_sets_hit(8, 1) == 1
    assert tm.expected_sets_hit(1, 100) == pytest.approx(1)
    assert tm.expected_sets_hit(0, 4) == 0


def test_one_stream_is_bounded_by_the_client_stream_and_many_by_the_client():
    p = params(stream=300 * MB, client=2000 * MB)
    one = predict(distribute(8), p, "write", 1)
    assert one.bps == pytest.approx(300 * MB) and one.bound == tm.B_STREAM
    eight = predict(distribute(8), p, "write", 8)
    assert eight.bps == pytest.approx(2000 * MB) and eight.bound == tm.B_CLIENT
    four = predict(distribute(8), p, "write", 4)
    assert four.bps == pytest.approx(1200 * MB) and four.bound == tm.B_STREAM


def test_files_hashed_onto_slow_bricks_share_the_sets_they_hit():
    # streams far faster than a brick: 8 files on 8 bricks move ≈5.25 bricks' worth
    p = params(brick=100 * MB)
    pr = predict(distribute(8), p, "write", 8)
    assert pr.bound == tm.B_BRICK
    assert pr.bps == pytest.approx(tm.expected_sets_hit(8, 8) * 100 * MB)


def test_a_file_is_one_stream_even_alone_on_a_fast_set():
    # a set with one file moves one stream, not the set's rate
    p = params(stream=100 * MB, brick=1000 * MB)
    assert predict(distribute(2), p, "write", 2).bps == pytest.approx(200 * MB)


def test_replica_writes_every_copy_and_reads_one():
    p = params(client_link=1000 * MB)
    w = predict(replica(8, 2), p, "write", 8)
    assert w.bps == pytest.approx(500 * MB) and w.bound == tm.B_CLIENT_LINK and "÷ 2" in w.why
    assert predict(replica(8, 2), p, "read", 8).bps == pytest.approx(1000 * MB)


def test_replica_reads_hash_files_onto_the_copies():
    """cluster.read-hash-mode 1 (gluster's default): each file is read from the copy its GFID
    hashes to, so two files on a pair land on the same copy half the time."""
    p = params(brick=100 * MB)
    one_set = replica(2, 2)
    assert predict(one_set, p, "read", 1).bps == pytest.approx(100 * MB)
    assert predict(one_set, p, "read", 2).bps == pytest.approx(150 * MB)   # 1.5 copies busy on average
    assert predict(one_set, p, "read", 8).bps == pytest.approx(200 * MB * (1 - 0.5 ** 8))
    assert predict(one_set, p, "write", 2).bps == pytest.approx(100 * MB)  # both copies write all


def shaped(sets, options, clients=()):
    """A LayoutShape of planner-like sets with the volume's options (duck-typed BrickSets)."""
    from types import SimpleNamespace
    planned = [SimpleNamespace(bricks=tuple(s.bricks) + ((s.arbiter,) if s.arbiter else ()), arbiter=s.arbiter,
                               data_bricks=s.k if s.kind == "disperse" else 1,
                               redundancy=(s.d - s.k) if s.kind == "disperse" else 0) for s in sets]
    return tm.shape_of(planned, "v", options, clients)


@pytest.mark.parametrize("options,clients,two_files,eight_files", [
    ({}, (), 1.75, 4 * (1 - 0.75 ** 8)),                                    # GFID hash over 4 copies
    ({"cluster.read-hash-mode": "2"}, (), 1.75, 4 * (1 - 0.75 ** 8)),       # GFID + PID: as random
    ({"cluster.read-hash-mode": "0"}, (), 1, 1),                            # the first readable copy
    ({"cluster.read-hash-mode": "3"}, (), 2, 4),                            # least outstanding reads
    ({}, ("n2",), 1, 1),                                                    # choose-local: the client's brick
    ({"cluster.choose-local": "off"}, ("n2",), 1.75, 4 * (1 - 0.75 ** 8)),
])
def test_replica_reads_follow_the_volumes_read_options(options, clients, two_files, eight_files):
    p = params(brick=100 * MB)
    shape = shaped(replica(4, 4).sets, options, clients)
    assert predict(shape, p, "read", 1).bps == pytest.approx(100 * MB)
    assert predict(shape, p, "read", 2).bps == pytest.approx(two_files * 100 * MB)
    assert predict(shape, p, "read", 8).bps == pytest.approx(eight_files * 100 * MB)
    assert predict(shape, p, "write", 8).bps == pytest.approx(100 * MB)


def test_disperse_reads_follow_the_read_policy():
    p = params(brick=100 * MB)
    hashed = shaped(disperse(6, 6, 2).sets, {})                              # gfid-hash: k bricks a file
    rr = shaped(disperse(6, 6, 2).sets, {"disperse.read-policy": "round-robin"})
    assert predict(hashed, p, "read", 1).bps == pytest.approx(400 * MB)
    assert predict(hashed, p, "read", 2).bps == pytest.approx(6 * (1 - (1 / 3) ** 2) * 100 * MB)
    assert predict(rr, p, "read", 2).bps == pytest.approx(600 * MB)


def test_disperse_moves_d_over_k_and_writes_k_bricks_worth():
    shape = disperse(6, 6, 2)       # 4 + 2
    p = params(client_link=600 * MB)
    assert predict(shape, p, "write", 8).bps == pytest.approx(400 * MB)
    p = params(brick=100 * MB)
    assert predict(shape, p, "write", 8).bps == pytest.approx(400 * MB)    # k × B
    assert predict(shape, p, "read", 1).bps == pytest.approx(400 * MB)     # one file reads k bricks
    assert predict(shape, p, "read", 8).bps == pytest.approx(600 * MB, rel=1e-3)   # many files keep all d busy


def test_erasure_coding_adds_d_passes_writing_and_k_reading_to_the_client():
    gf = 10_000 * MB
    p = params(client=1000 * MB, gf=gf)
    w = predict(disperse(8, 8, 2), p, "write", 8)
    assert 1 / w.bps == pytest.approx(1 / (1000 * MB) + 8 / gf)
    r = predict(disperse(8, 8, 2), p, "read", 8)
    assert 1 / r.bps == pytest.approx(1 / (1000 * MB) + 6 / gf)
    heavy = predict(disperse(8, 8, 2), params(client=10_000 * MB, gf=gf), "write", 8)
    assert heavy.bound == tm.B_EC and "erasure coding" in heavy.why


def test_extra_wire_bytes_cost_the_client():
    p = params(client=1000 * MB, wire=1000 * MB)
    w = predict(replica(8, 2), p, "write", 8)
    assert 1 / w.bps == pytest.approx(2 / (1000 * MB))
    assert predict(distribute(8), p, "write", 8).bps == pytest.approx(1000 * MB)


def test_shared_storage_is_divided_by_the_bytes_stored_per_byte():
    p = params(storage=400 * MB)
    assert predict(distribute(8), p, "write", 8).bps == pytest.approx(400 * MB)
    assert predict(replica(8, 2), p, "write", 8).bps == pytest.approx(200 * MB)
    assert predict(replica(8, 2), p, "read", 8).bps == pytest.approx(400 * MB)
    assert predict(disperse(8, 8, 2), p, "write", 8).bps == pytest.approx(300 * MB)


def test_a_server_with_two_bricks_carries_two_shares_on_its_link():
    p = params(node_link=100 * MB)
    pr = predict(distribute(8, per_node=2), p, "write", 8)
    assert pr.bound == tm.B_NODE_LINK
    assert pr.bps == pytest.approx(400 * MB)   # each node carries 2/8 of the data


def test_the_interval_spans_the_assumptions_and_narrows_with_measurements():
    shape = distribute(8)
    guessed = Params({**tm.default_values()})
    pr = predict(shape, guessed, "write", 8)
    assert pr.low < pr.bps < pr.high
    measured = guessed.with_values({f"{CLIENT}.write": tm.spread(2e9, "measured"),
                                    f"{STREAM}.write": tm.spread(3e8, "measured")})
    pm = predict(shape, measured, "write", 8)
    assert (pm.high - pm.low) / pm.bps < (pr.high - pr.low) / pr.bps


def test_small_blocks_pay_for_each_call():
    p = params(stream=300 * MB).with_values({f"{tm.CALL}.write": Value(100e-6, "assumed")})
    big = predict(distribute(1), p, "write", 1, 16 << 20).bps
    small = predict(distribute(1), p, "write", 1, 4096).bps
    assert 1 / small == pytest.approx(1 / (300 * MB) + 100e-6 / 4096)
    assert small < big < 300 * MB
