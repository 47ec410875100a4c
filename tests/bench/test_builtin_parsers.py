"""Built-in workloads' pure parts against recorded real output (dd 9.1, fio 3.33)."""

from pathlib import Path

import pytest
from brickyard_dd import dd_argv, file_plan, parse_dd_stderr
from brickyard_fio import extract_json, job_stats, parse_options
from brickyard_smallfile.tree import DIRS, FILES, TOTAL_BYTES, wordpress_shaped

FIX = Path(__file__).resolve().parents[1] / "fixtures"


def test_dd_status_line_gives_bytes_and_seconds():
    assert parse_dd_stderr((FIX / "dd/write-1M-x8.stderr").read_text()) == (8388608, 0.0106614)
    assert parse_dd_stderr((FIX / "dd/write-1K-x1.stderr").read_text()) == (1024, 5.7034e-05)
    assert parse_dd_stderr("dd: error writing: No space left on device\n") is None


def test_dd_write_includes_the_flush_and_steps_are_whole_blocks():
    assert "conv=fdatasync" in dd_argv("write", "/m/f", 4096, 10)
    assert "conv=fdatasync" not in dd_argv("read", "/m/f", 4096, 10)
    assert file_plan(1 << 20, 64 << 20) == (64, 64 << 20)
    assert file_plan(512 << 20, 64 << 20) == (1, 512 << 20)      # at least one block
    assert file_plan(4096, 10000) == (2, 8192)


def test_fio_plain_json_parsed_per_job():
    jobs = job_stats(extract_json((FIX / "fio/seq-write-1M-2jobs.json").read_text()))
    assert len(jobs) == 2
    assert all(j["io_bytes"] == 32 << 20 for j in jobs)
    assert all(j["runtime_ms"] > 0 and j["bw_bytes"] > 0 for j in jobs)


def test_fio_client_server_output_with_host_prefixed_lines_parses():
    text = (FIX / "fio/client-server-seq-write-2jobs.txt").read_text()
    assert text.startswith("<")
    jobs = job_stats(extract_json(text))
    assert [j["host"] for j in jobs] == ["localhost", "localhost"]
    assert sum(j["io_bytes"] for j in jobs) == 2 * (16 << 20)


def test_fio_random_read_latency_percentile_is_read():
    (job,) = job_stats(extract_json((FIX / "fio/rand-read-4k-1job.json").read_text()))
    assert job["clat_p99_ns"] > 0 and job["iops"] > 0 and job["ios"] > 0


def test_fio_user_options_take_only_allow_listed_io_shaping_options():
    assert parse_options("iodepth=16 direct=1,ioengine=libaio") == {"iodepth": "16", "direct": "1", "ioengine": "libaio"}
    assert parse_options("rw=randrw rwmixread=70 bssplit=4k/50:64k/50 random_distribution=zipf:1.2 "
                         "--end_fsync=1 norandommap") == {
        "rw": "randrw", "rwmixread": "70", "bssplit": "4k/50:64k/50", "random_distribution": "zipf:1.2",
        "end_fsync": "1", "norandommap": "1"}


@pytest.mark.parametrize("text, named, why", [
    ("ioengine=exec program=/usr/bin/touch arguments=/tmp/x", "ioengine=exec", "only engines that do file I/O"),
    ("ioengine=external:/tmp/evil.so", "ioengine=external", "only engines that do file I/O"),
    ("exec_prerun=/tmp/x", "exec_prerun", "runs a program"),
    ("exec_postrun=/tmp/x", "exec_postrun", "runs a program"),
    ("write_iolog=/etc/cron.d/x", "write_iolog", "outside the run's directory"),
    ("read_iolog=/etc/shadow", "read_iolog", "outside the run's directory"),
    ("write_bw_log=/root/x", "write_bw_log", "outside the run's directory"),
    ("write_lat_log=/root/x", "write_lat_log", "outside the run's directory"),
    ("write_iops_log=/root/x", "write_iops_log", "outside the run's directory"),
    ("write_hist_log=/root/x", "write_hist_log", "outside the run's directory"),
    ("verify_state_save=1", "verify_state_save", "outside the run's directory"),
    ("mem=mmap:/etc/x", "mem", "outside the run's directory"),
    ("filename=/dev/sda", "filename", "Brickyard sets it"),
    ("directory=/etc", "directory", "Brickyard sets it"),
    ("opendir=/", "opendir", "Brickyard sets it"),
    ("trigger_cmd=reboot", "trigger_cmd", "runs a program"),
    ("trigger-file=/tmp/t", "trigger-file", "runs a program"),
    ("ioscheduler=none", "ioscheduler", "changes the host"),
    ("cgroup=x", "cgroup", "changes the host"),
    ("uid=0", "uid", "changes the host"),
    ("numjobs=100000", "numjobs", "its own parameter"),
    ("some_future_option=1", "some_future_option", "not on Brickyard's list"),
    ("bs=$(touch${IFS}/tmp/x)", "bs=", "no spaces, quotes, '$'"),
    ("bs=`touch`", "bs=", "a value may hold only"),
    ("x;y=1", "'x;y'", "not a fio option name"),
])
def test_fio_user_options_refuse_each_unsafe_option_by_name_and_reason(text, named, why):
    with pytest.raises(ValueError) as err:
        parse_options(text)
    assert named in str(err.value) and why in str(err.value)


def test_fio_user_options_name_every_refused_option_at_once():
    with pytest.raises(ValueError) as err:
        parse_options("iodepth=8 exec_prerun=/x write_iolog=/y direct=1")
    assert "exec_prerun" in str(err.value) and "write_iolog" in str(err.value) and "iodepth" not in str(err.value)


def test_wordpress_shaped_tarball_matches_the_write_up_and_is_deterministic():
    import io
    import tarfile

    t = wordpress_shaped(1.0)
    assert (t.dirs, t.files, t.file_bytes) == (DIRS, FILES, TOTAL_BYTES)
    assert t.objects == 2028 and round(t.file_bytes / t.objects) == 21053
    members = tarfile.open(fileobj=io.BytesIO(t.data), mode="r:gz").getmembers()
    assert sum(m.isdir() for m in members) == DIRS and sum(m.isfile() for m in members) == FILES
    assert sum(m.size for m in members if m.isfile()) == TOTAL_BYTES
    small = wordpress_shaped(0.05)
    assert small.data == wordpress_shaped(0.05).data and small.files == round(FILES * 0.05)


def test_lstat_loop_output_and_source_ship_with_the_plugin():
    from brickyard_metadata import loop_source, parse_loop_output

    assert parse_loop_output("544768 1.004540723\n") == (544768, 1.004540723)
    with pytest.raises(ValueError):
        parse_loop_output("lstat: No such file or directory")
    assert b"CLOCK_MONOTONIC" in loop_source()


def test_pgbench_output_parsed_from_a_real_postgresql_15_run():
    from brickyard_pgbench import parse_init_seconds, parse_pgbench

    run = parse_pgbench((FIX / "pgbench/run-c2-t50.stdout").read_text())
    assert run == {"tps": 464.489758, "latency_ms": 4.306, "done": 100.0, "asked": 100.0}
    assert parse_init_seconds((FIX / "pgbench/init-s1.txt").read_text()) == 0.36
    assert parse_pgbench("connection to server failed") == {}


def test_pgbench_refuses_a_bin_directory_pg_ctl_would_pass_through_a_shell():
    from brickyard.bench.api import ParamError
    from brickyard_pgbench import PgBench

    assert PgBench().resolve({"pg_bin": "/usr/lib/postgresql/15/bin"})["pg_bin"] == "/usr/lib/postgresql/15/bin"
    for bad in ('/opt/pg$(touch /tmp/x)/bin', "/opt/`id`", '/opt/a"b', "/opt/a\\b", "relative/bin", "/opt/a b"):
        with pytest.raises(ParamError, match="pg_bin: .* is not a plain absolute path"):
            PgBench().resolve({"pg_bin": bad})


@pytest.mark.parametrize("text", ["iodepth=64", "iodepth_batch=0", "bs=4k", "bs=1M", "bs=4KiB", "bsrange=4k-64k",
                                  "rwmixread=70", "loops=3", "nrfiles=1000", "thinktime=200000", "thinktime=10ms",
                                  "ramp_time=5m", "startdelay=2", "offset=50%", "io_size=1g", "filesize=1m-4m",
                                  "rate=100m", "rate_iops=5000", "kb_base=1000", "significant_figures=6"])
def test_fio_option_values_in_a_sane_range_are_taken(text):
    key, _, value = text.partition("=")
    assert parse_options(text) == {key: value}


@pytest.mark.parametrize("text, says", [
    ("iodepth=0", "iodepth=0 is refused: it must be a whole number from 1 to 4,096"),
    ("iodepth=100000", "iodepth=100000 is refused: it must be a whole number from 1 to 4,096"),
    ("iodepth=deep", "iodepth=deep is refused: it must be a whole number"),
    ("bs=1", "bs=1 is refused: it must be a size from 512 to 1G"),
    ("bs=2g", "bs=2g is refused: it must be a size from 512 to 1G"),
    ("bsrange=4k-4g", "bsrange=4k-4g is refused: it must be a size from 512 to 1G"),
    ("rwmixread=150", "rwmixread=150 is refused: it must be a percentage from 0 to 100"),
    ("loops=5000", "loops=5000 is refused: it must be a whole number from 1 to 1,000"),
    ("nrfiles=10000000", "nrfiles=10000000 is refused"),
    ("thinktime=2m", "thinktime=2m is refused: it must be a time from 0 to 60 s (a bare number is in microseconds)"),
    ("ramp_time=2h", "ramp_time=2h is refused: it must be a time from 0 to 3600 s"),
    ("offset=150%", "offset=150% is refused: it must be a size from 0 to 1T or a percentage"),
    ("filesize=2t", "filesize=2t is refused: it must be a size from 4K to 1T"),
    ("kb_base=7", "kb_base=7 is not allowed: one of 1000, 1024"),
])
def test_fio_option_values_out_of_a_sane_range_are_refused_naming_the_option_and_its_range(text, says):
    with pytest.raises(ValueError) as err:
        parse_options(text)
    assert says in str(err.value)


def test_size_numjobs_and_runtime_are_bounded_once_as_the_plugins_own_parameters():
    from brickyard_fio import Fio

    params = {p.name: p for p in Fio.params}
    assert (params["size"].minimum, params["size"].maximum) == (4096, 1 << 40)
    assert (params["numjobs"].minimum, params["numjobs"].maximum) == (1, 256)
    with pytest.raises(ValueError, match="its own parameter"):
        parse_options("numjobs=512")
