"""Canaries for the benchmark security tests (here and in tests/e2e): strings that, were any
shell or self-shelling tool to parse them, would create a file in a canary directory.

The directory must exist (and be writable for every user: pgbench's server runs as
postgres) before a test, or a command that did get injected would fail to create its file
and the test would pass for the wrong reason."""

from __future__ import annotations

#: the built-in workloads with parameters small enough for a test (a few seconds each)
TINY = {
    "dd": {"block_sizes": "64K,1M", "concurrency": "1,2", "size": "1M", "repeats": "1"},
    "fio": {"presets": "seq-write,rand-read", "size": "1M", "runtime": "0.3", "repeats": "1"},
    "smallfile": {"scale": "0.02", "repeats": "1"},
    "metadata": {"seconds": "0.2", "repeats": "1"},
    "randread": {"files": "8", "min_size": "4K", "max_size": "16K", "readers": "1,2", "seconds": "0.3",
                 "repeats": "1"},
    "pgbench": {"scale": "1", "clients": "1", "transactions": "5", "repeats": "1"},
}


def shell_canaries(d: str) -> list[str]:
    """One canary per way a shell (sh -c, a double-quoted "%s", system()) could be made to run
    a command; each would create its own file in ``d``."""
    return [
        f"$(touch {d}/dollar-paren)",
        f"$(touch${{IFS}}{d}/ifs)",
        f"`touch {d}/backquote`",
        f";touch {d}/semicolon;",
        f"|touch {d}/pipe|",
        f"&touch {d}/ampersand&",
        f"\"$(touch {d}/dquote-break)\"",
        f"'$(touch {d}/squote-break)'",
        f"\\\"`touch {d}/escaped-break`",
        f"${{IFS}}touch${{IFS}}{d}/ifs-word",
    ]


def newline_canaries(d: str) -> list[str]:
    """A new line ends a shell command, a fio job-file line or a findmnt record."""
    return [f"x\ntouch {d}/newline\n", f"x\nexec_prerun=touch {d}/jobfile-line\n"]


def fio_option_canaries(d: str) -> list[str]:
    """fio options that run programs or write files where the user says (issue 11, item 2)."""
    return [
        f"ioengine=exec program=/usr/bin/touch arguments={d}/fio-exec runtime=1 time_based=1",
        f"exec_prerun=/usr/bin/touch${{IFS}}{d}/fio-prerun",
        f"exec_postrun=touch {d}/fio-postrun",
        f"write_iolog={d}/fio-iolog",
        f"read_iolog={d}/fio-read-iolog",
        f"write_bw_log={d}/fio-bw",
        f"write_lat_log={d}/fio-lat",
        f"write_iops_log={d}/fio-iops",
        f"write_hist_log={d}/fio-hist",
        f"filename={d}/fio-filename",
        f"directory={d}",
        f"filename_format={d}/fio-format",
        f"opendir={d}",
        f"verify_state_save=1 verify=crc32c",
        f"trigger_file={d}/fio-trigger trigger_cmd=touch${{IFS}}{d}/fio-trigger-cmd",
        f"ioengine=external:{d}/evil.so",
        f"mem=mmap:{d}/fio-mmap",
        f"bs=$(touch${{IFS}}{d}/fio-value)",
    ]


def hostile_path_part(d: str) -> str:
    """Every shell canary in one path component chain (a '/' in a canary makes directories)."""
    return "m" + "".join(shell_canaries(d)) + "y:z${HOME}"
