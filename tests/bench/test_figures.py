"""What makes a step's figures honest: progress curves that track the bytes a worker reports,
the start-skew threshold, and re-reads judged against the first read of the same point."""

from types import SimpleNamespace

from brickyard.bench import figures
from brickyard.core.results import WorkerTiming

MB = 1_000_000


def run(worker, start, end, curve, counter="wchar", host="h"):
    return SimpleNamespace(timing=WorkerTiming(worker, host, start, end), counter=counter, curve=tuple(curve),
                           counter_step=0)


def test_curves_come_from_the_workers_just_run_by_position():
    ws = [WorkerTiming(0, "h", 0.0, 1.0, 10 * MB), WorkerTiming(1, "h", 0.0, 2.0, 20 * MB)]
    runs = [run(0, 0.0, 1.0, [(0.0, 0), (1.0, 10 * MB)]), run(1, 0.0, 2.0, [(0.0, 0), (1.0, 9 * MB), (2.0, 20 * MB)])]
    found = figures.curves_for(ws, runs)
    assert found.why_not == "" and found.curves[1][1] == (1.0, 9 * MB)


def test_a_counter_that_does_not_track_the_reported_bytes_means_not_measured():
    """fio with libaio moves its bytes outside read()/write(): its counter stays near zero."""
    ws = [WorkerTiming(0, "h", 0.0, 1.0, 64 * MB), WorkerTiming(1, "h", 0.0, 2.0, 64 * MB)]
    runs = [run(0, 0.0, 1.0, [(0.0, 0), (1.0, 20_000)]), run(1, 0.0, 2.0, [(0.0, 0), (2.0, 20_000)])]
    found = figures.curves_for(ws, runs)
    assert found.curves == {} and "does not all pass through read()/write()" in found.why_not


def test_a_worker_without_a_named_counter_means_not_measured():
    ws = [WorkerTiming(0, "h", 0.0, 1.0, MB), WorkerTiming(1, "h", 0.0, 2.0, MB)]
    runs = [run(0, 0.0, 1.0, [], counter=None), run(1, 0.0, 2.0, [], counter=None)]
    assert figures.curves_for(ws, runs) == figures.StepProgress(
        {}, "the workload names no I/O counter that follows its workers' progress")


def test_start_skew_is_flagged_relative_to_the_step_length():
    skew = {"p50": 0.004, "p99": 0.02, "max": 0.02}
    assert figures.skew_note(skew, 10.0, 20) == ""              # 20 ms of a 10 s step: 0.2 %
    assert "2.0 % of this 1 s step" in figures.skew_note(skew, 1.0, 20)
    assert figures.skew_note(skew, 1.0, 1) == ""


def test_a_re_read_much_faster_than_the_first_read_is_flagged():
    cold = figures.ColdReads()
    assert cold.judge(("1M", 4), True, 100 * MB, usable=True) == ("", "")
    assert cold.judge(("1M", 4), False, 130 * MB, usable=True) == ("", "")      # within the noise
    flag, note = cold.judge(("1M", 4), False, 3800 * MB, usable=True)
    assert flag == "faster-than-cold" and "38.0× the first read" in note
    assert cold.judge(("1M", 8), False, 3800 * MB, usable=True)[0] == ""        # no first read of that point
    assert "no first read of this point" in cold.judge(("1M", 8), False, 3800 * MB, usable=True)[1]


def test_a_suspect_first_read_is_no_reference():
    cold = figures.ColdReads()
    cold.judge("p", True, 5000 * MB, usable=False)
    cold.judge("p", True, 100 * MB, usable=True)
    assert cold.first == {"p": 100 * MB}


def test_calls_in_flight_at_the_first_finish_bound_the_stonewall_or_leave_it_not_measured():
    """A counter moves only when a call returns. dd bs=64M count=1 makes one write() per dd, so a
    running dd reads 0 until it is done: not measured. With bs=4M the running dd's are off by at
    most one call each: measured, with that margin."""
    size = 64 << 20
    ws = [WorkerTiming(i, "h", 0.0, 1.0 + i, size) for i in range(4)]
    runs = [SimpleNamespace(timing=w, counter="wchar", counter_step=size,
                            curve=((0.0, 0), (1.0, 0), (w.end, size))) for w in ws]
    found = figures.curves_for(ws, runs)
    assert found.curves == {} and "64.00 MiB per call" in found.why_not
    for r in runs:
        r.counter_step = 4 << 20
        r.curve = ((0.0, 0), (1.0, size * 1.0 / r.timing.end), (r.timing.end, size))
    found = figures.curves_for(ws, runs)
    assert found.why_not == "" and found.in_flight == 3 * (4 << 20)
