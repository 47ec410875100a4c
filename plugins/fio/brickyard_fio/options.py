"""Which fio job options a user may add: an allow-list, not a block-list.

fio can run programs (``ioengine=exec``, ``exec_prerun``), load code (``ioengine=external:``),
read and write files anywhere (``write_iolog``, ``write_*_log``, ``read_iolog``,
``verify_state_save``, ``mem=mmap:FILE``, ``filename``) and change the host (``ioscheduler``,
``cgroup``, ``uid``). New fio versions add more. So a user option is taken only when it is
named below: each only shapes the I/O fio does on its own files inside the run's directory.
Values are plain words (letters, digits and ``. _ : / % + -``): no ``$`` (fio expands
``${VAR}`` and ``$ncpus``), no quotes, no ``=``, no spaces or newlines (a job file line).
"""

from __future__ import annotations

import re

#: options a user may add, by what they shape
ALLOWED = frozenset("""
    rw rw_sequencer rwmixread rwmixwrite bs ba bsrange bssplit bs_unaligned bs_is_seq_rand
    randrepeat allrandrepeat randseed norandommap random_generator random_distribution percentage_random
    offset offset_increment offset_align number_ios io_size filesize nrfiles file_service_type openfiles
    file_append overwrite loops ramp_time startdelay
    ioengine iodepth iodepth_batch iodepth_batch_complete_min iodepth_batch_complete_max iodepth_low
    io_submit_mode serialize_overlap
    direct buffered sync fsync fdatasync end_fsync fsync_on_close sync_file_range invalidate fallocate
    fadvise_hint pre_read create_on_open create_serialize create_fsync unlink unlink_each_loop
    thinktime thinktime_spin thinktime_blocks thinktime_blocks_type thinktime_iotime
    rate rate_min rate_process rate_cycle rate_ignore_thinktime rate_iops rate_iops_min
    latency_target latency_window latency_percentile latency_run max_latency
    zero_buffers refill_buffers scramble_buffers buffer_compress_percentage buffer_compress_chunk
    dedupe_percentage buffer_pattern
    group_reporting clat_percentiles lat_percentiles slat_percentiles percentile_list gtod_reduce
    disable_lat disable_clat disable_slat disable_bw_measurement unified_rw_reporting kb_base unit_base
    stats significant_figures continue_on_error ignore_error exitall exitall_on_error thread stonewall
    new_group
""".split())

#: I/O engines that do file I/O on the job's own files (not exec, external:, net, sg, rbd, …)
ENGINES = frozenset("sync psync vsync pvsync pvsync2 libaio io_uring posixaio mmap splice falloc ftruncate "
                    "filecreate filestat filedelete".split())

_RUNS = "it runs a program"
_FILES = "it reads or writes a file outside the run's directory"
_HOST = "it changes the host beyond this run"
_OWN = "Brickyard sets it: fio works only in the run's own directory"
#: why the options people reach for are refused (anything else not in ALLOWED gets a general reason)
REFUSED = {
    **dict.fromkeys(("exec_prerun", "exec_postrun", "profile"), _RUNS),
    **dict.fromkeys(("filename", "directory", "filename_format", "unique_filename", "opendir", "name", "output",
                     "create_only", "lockfile", "description", "wait_for"), _OWN),
    **dict.fromkeys(("size", "numjobs", "runtime", "time_based"),
                    "it has its own parameter (size, numjobs, runtime), bounded there"),
    **dict.fromkeys(("write_iolog", "read_iolog", "read_iolog_chunked", "replay_redirect", "merge_blktrace_file",
                     "write_bw_log", "write_lat_log", "write_iops_log", "write_hist_log", "per_job_logs",
                     "verify_state_save", "verify_state_load", "verify", "do_verify", "verify_only", "mem", "iomem",
                     "trigger", "trigger_file", "trigger_timeout", "trigger_cmd", "error_dump", "fill_device",
                     "fill_fs"), _FILES),
    **dict.fromkeys(("ioscheduler", "cgroup", "cgroup_weight", "cgroup_nodelete", "uid", "gid", "lockmem",
                     "hugepage_size", "allow_mounted_write", "allow_file_create", "cpumask", "cpus_allowed",
                     "cpus_allowed_policy", "numa_cpu_nodes", "numa_mem_policy", "gtod_cpu", "nice", "prio",
                     "prioclass", "zonemode", "clocksource"), _HOST),
}

# ---- sane ranges for the numbers an allowed option takes ---------------------------------
# fio takes iodepth=1000000 or loops=10^9 and then runs out of memory or runs for a week; a
# value out of range is refused naming the option and its range. (size, numjobs and runtime
# are the plugin's own parameters, bounded there.) Kinds: "int"; "size" in bytes (fio's k, m,
# g, t suffixes, powers of 1024; "a-b" a range, both ends checked); "size%" a size or a
# percentage of the file; "pct" 0-100; "us"/"s" a time with fio's default unit and suffixes
# (us, ms, s, m, h); "one of" the listed words.
KIB, GIB, TIB = 1 << 10, 1 << 30, 1 << 40
BOUNDS: dict[str, tuple[str, float, float]] = {
    "iodepth": ("int", 1, 4096), "iodepth_batch": ("int", 0, 4096), "iodepth_batch_complete_min": ("int", 0, 4096),
    "iodepth_batch_complete_max": ("int", 0, 4096), "iodepth_low": ("int", 0, 4096),
    "bs": ("size", 512, GIB), "ba": ("size", 512, GIB), "bsrange": ("size", 512, GIB),
    "rwmixread": ("pct", 0, 100), "rwmixwrite": ("pct", 0, 100),
    "buffer_compress_percentage": ("pct", 0, 100), "dedupe_percentage": ("pct", 0, 100),
    "nrfiles": ("int", 1, 100_000), "openfiles": ("int", 1, 100_000), "loops": ("int", 1, 1000),
    "number_ios": ("int", 1, 10 ** 12), "thinktime_blocks": ("int", 1, 10 ** 6),
    "io_size": ("size%", 0, TIB), "filesize": ("size", 4 * KIB, TIB), "offset": ("size%", 0, TIB),
    "offset_increment": ("size%", 0, TIB),
    "thinktime": ("us", 0, 60), "thinktime_spin": ("us", 0, 60), "latency_target": ("us", 0, 60),
    "latency_window": ("us", 0, 3600), "max_latency": ("us", 0, 3600),
    "ramp_time": ("s", 0, 3600), "startdelay": ("s", 0, 3600),
    "rate": ("size", 1, TIB), "rate_min": ("size", 1, TIB), "rate_iops": ("int", 1, 10 ** 9),
    "rate_iops_min": ("int", 1, 10 ** 9), "significant_figures": ("int", 1, 10),
}
CHOICES = {"kb_base": ("1000", "1024"), "unit_base": ("0", "1", "8")}

_NUMBER = re.compile(r"^(\d+(?:\.\d+)?)([a-z]*)$")
_SIZE_UNITS = {"": 1, "b": 1, **{p + tail: 1024 ** (i + 1) for i, p in enumerate("kmgtp")
                                 for tail in ("", "b", "ib")}}
_TIME_UNITS = {"us": 1e-6, "usec": 1e-6, "ms": 1e-3, "msec": 1e-3, "s": 1.0, "sec": 1.0, "m": 60.0, "min": 60.0,
               "h": 3600.0}


def _size(text: str) -> float | None:
    m = _NUMBER.match(text.lower())
    return float(m.group(1)) * _SIZE_UNITS[m.group(2)] if m and m.group(2) in _SIZE_UNITS else None


def _seconds(text: str, default: str) -> float | None:
    m = _NUMBER.match(text.lower())
    if not m or (m.group(2) or default) not in _TIME_UNITS:
        return None
    return float(m.group(1)) * _TIME_UNITS[m.group(2) or default]


def _plain(n: float) -> str:
    for unit, factor in (("T", TIB), ("G", GIB), ("M", 1 << 20), ("K", KIB)):
        if n >= factor and n % factor == 0:
            return f"{n / factor:g}{unit}"
    return f"{n:g}"


def out_of_range(key: str, value: str) -> str:
    """Why ``key=value`` is not a sane number for that option, or '' (also for options
    without a range here: their values are words fio checks itself)."""
    if key in CHOICES:
        return "" if value in CHOICES[key] else f"{key}={value} is not allowed: one of {', '.join(CHOICES[key])}"
    if key not in BOUNDS:
        return ""
    kind, low, high = BOUNDS[key]
    if kind == "int":
        ok, shown = value.isdigit() and low <= int(value) <= high, f"a whole number from {low:,} to {high:,}"
    elif kind == "pct":
        ok = value.replace(".", "", 1).isdigit() and low <= float(value) <= high
        shown = "a percentage from 0 to 100"
    elif kind in ("us", "s"):
        secs = _seconds(value, kind)
        ok = secs is not None and low <= secs <= high
        shown = f"a time from {low:g} to {high:g} s (a bare number is in {'microseconds' if kind == 'us' else 'seconds'})"
    else:
        if kind == "size%" and value.endswith("%"):
            pct = value[:-1]
            ok = pct.replace(".", "", 1).isdigit() and 0 <= float(pct) <= 100
        else:
            ends = [_size(v) for v in (value.split("-", 1) if kind == "size" and "-" in value else [value])]
            ok = all(e is not None and low <= e <= high for e in ends)
        shown = f"a size from {_plain(low)} to {_plain(high)}" + (" or a percentage" if kind == "size%" else "")
    return "" if ok else f"{key}={value} is refused: it must be {shown}"


_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")
_VALUE = re.compile(r"^[A-Za-z0-9._:/%+-]+$")


def refusal(key: str, value: str) -> str:
    """Why ``key=value`` may not be added to a fio job, or '' when it may."""
    if not _NAME.match(key):
        return f"{key!r} is not a fio option name"
    if key.startswith(("exec_", "trigger")):
        return f"{key} is not allowed: {_RUNS}"
    if key not in ALLOWED:
        why = REFUSED.get(key) or REFUSED.get(key.replace("-", "_"))
        if why is None:
            if key.startswith(("write_", "read_", "replay_", "log_", "verify")):
                why = _FILES
            else:
                why = "it is not on Brickyard's list of options that only shape the I/O inside the run's directory"
        return f"{key} is not allowed: {why}"
    if not _VALUE.match(value):
        return (f"{key}={value!r}: a value may hold only letters, digits and . _ : / % + - "
                "(no spaces, quotes, '$' or '=')")
    bounded = out_of_range(key.replace("-", "_"), value)
    if bounded:
        return bounded
    if key == "ioengine" and value not in ENGINES:
        return (f"ioengine={value} is not allowed: only engines that do file I/O in the run's directory "
                f"({', '.join(sorted(ENGINES))})")
    return ""


def parse_options(text: str) -> dict[str, str]:
    """User job options "iodepth=16 direct=1" (spaces or commas) → dict. Raises ValueError
    naming every refused option and why."""
    out: dict[str, str] = {}
    problems = []
    for token in re.split(r"[\s,]+", text.strip()):
        if not token:
            continue
        key, sep, value = token.partition("=")
        key = key.lstrip("-")
        if sep and not value:
            problems.append(f"{key}= has no value")
            continue
        why = refusal(key, value if sep else "1")
        if why:
            problems.append(why)
        else:
            out[key] = value if sep else "1"
    if problems:
        raise ValueError("options: " + "; ".join(problems))
    return out
