"""``--accept-host-key`` and ``--ssh-config`` are checked the same way by every command that
takes them, before the command does anything: a malformed fingerprint, or a config file that
is missing, a directory, a FIFO or /dev/zero, is exit 2 naming the problem, dry runs too."""

from __future__ import annotations

import argparse
import json
import os

import asyncssh
import pytest

from brickyard.cli import build_parser, main
from brickyard.clicmd.remote_common import host_key_fingerprint

from ..conftest import EXAMPLES

TOPO = str(EXAMPLES / "three-site.brickyard.json")
CAMPAIGN = str(EXAMPLES / "seed004-sandbox.campaign.json")

# every command that reaches hosts, as a user would type it (dry runs where there is one)
COMMAND_LINES = {
    "preflight": ["preflight", TOPO],
    "provision": ["provision", TOPO, "--dry-run"],
    "change": ["change", TOPO, "--volume", "gv3", "--dry-run"],
    "teardown": ["teardown", TOPO, "--volume", "gv3", "--confirm", "gv3"],
    "import": ["import", "node1", "--out", "/nonexistent/x.brickyard.json"],
    "bench": ["bench", "--workload", "dd", "--target", "node1:/mnt/gv0"],
    "campaign": ["campaign", CAMPAIGN, "--dry-run"],
    "probe": ["probe", TOPO, "--dry-run"],
}

MALFORMED = {
    "WRONG": "expected a SHA256:... fingerprint",
    "MD5:16:27:ac:a5:76:28:2d:36:63:1b:56:4d:eb:df:a6:48": "MD5 fingerprint",
    "SHA256:abc": "43 base64 characters",
    "SHA256:" + "A" * 42 + "$": "not all of them base64",
    "SHA256:" + "A" * 42 + "B": "not a SHA256 digest",     # 43 characters that cannot end 32 bytes
    "": "expected a SHA256",
}


def _commands_taking_the_flag() -> set[str]:
    sub = next(a for a in build_parser(load_all=True)._actions if isinstance(a, argparse._SubParsersAction))
    return {name for name, parser in sub.choices.items()
            if any("--accept-host-key" in a.option_strings for a in parser._actions)}


def test_every_command_that_reaches_hosts_takes_accept_host_key():
    assert _commands_taking_the_flag() == set(COMMAND_LINES)


@pytest.mark.parametrize("command", sorted(COMMAND_LINES))
@pytest.mark.parametrize("value", sorted(MALFORMED))
def test_a_malformed_fingerprint_is_exit_2_naming_it_in_every_command(command, value, capsys):
    code = main([*COMMAND_LINES[command], "--accept-host-key", value, "--json"])
    captured = capsys.readouterr()
    assert code == 2, captured
    doc = json.loads(captured.out)
    assert doc["exit"] == 2 and "--accept-host-key" in doc["error"] and MALFORMED[value] in doc["error"], doc
    assert "--accept-host-key" in captured.err and MALFORMED[value] in captured.err


def test_the_fingerprint_ssh_keygen_prints_is_taken_as_is():
    printed = asyncssh.generate_private_key("ssh-ed25519").get_fingerprint("sha256")
    assert host_key_fingerprint(printed) == printed
    assert host_key_fingerprint(printed + "=") == printed   # base64 padding pasted along: same key


def test_a_good_fingerprint_leaves_a_dry_run_as_it_was(capsys):
    printed = asyncssh.generate_private_key("ssh-ed25519").get_fingerprint("sha256")
    assert main(["provision", TOPO, "--dry-run", "--json"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main(["provision", TOPO, "--dry-run", "--accept-host-key", printed, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == plain


@pytest.mark.parametrize("command", sorted(COMMAND_LINES))
def test_a_bad_ssh_config_is_exit_2_naming_it_in_every_command(command, tmp_path, capsys):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)                       # reading it would wait for a writer forever
    for bad, words in ((tmp_path / "missing", "No such file"), (tmp_path, "is a directory"),
                       (fifo, "not a regular file"), ("/dev/zero", "not a regular file")):
        code = main([*COMMAND_LINES[command], "--ssh-config", str(bad), "--json"])
        doc = json.loads(capsys.readouterr().out)
        assert code == 2 and "--ssh-config" in doc["error"] and words in doc["error"], doc


def test_ssh_config_dev_null_means_no_config_as_with_ssh(capsys):
    assert main(["provision", TOPO, "--dry-run", "--ssh-config", "/dev/null", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["dry_run"] is True
