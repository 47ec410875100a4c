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
