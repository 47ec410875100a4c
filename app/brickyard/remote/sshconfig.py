"""Checking an OpenSSH client config file named on a command line (``--ssh-config``), before
anything reads it, without loading the SSH library."""

from __future__ import annotations

import os

from ..core import strictjson

MAX_SSH_CONFIG_BYTES = 16 * strictjson.MiB


def ssh_config_problem(path: str) -> str | None:
    """Why ``path`` cannot be used as the SSH client config, or None. It must be a regular
    file of at most 16 MiB (never /dev/zero or a FIFO, which would hang the read), or
    /dev/null (``ssh -F /dev/null``: no config at all)."""
    if os.path.realpath(path) == os.devnull:
        return None
    try:
        strictjson.read_bytes(path, limit=MAX_SSH_CONFIG_BYTES, what="client config file for OpenSSH")
    except strictjson.JsonFileError as exc:
        return str(exc.problems[0])
    return None
