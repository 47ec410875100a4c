"""Every command that reaches hosts over SSH asks for a key's passphrase the same way, on
the terminal, once per session: against a real throwaway sshd that accepts only an
encrypted key, from a real pseudo-terminal."""

from __future__ import annotations

import os

from .sshd import sshd_fixture
from .terminal import run_on_terminal


sshd = sshd_fixture("sshd-passphrase")


def _env(tmp_path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("SSH_AUTH_SOCK", "SSH_AGENT_PID")}
    env.update(XDG_DATA_HOME=str(tmp_path / "data"), XDG_CONFIG_HOME=str(tmp_path / "config"),
               BRICKYARD_KNOWN_HOSTS=str(tmp_path / "own_known_hosts"), BRICKYARD_LOCK_DIR=str(tmp_path / "locks"))
    return env


def test_bench_asks_for_an_encrypted_keys_passphrase_once_and_measures(sshd, tmp_path):
    sshd.trust()
    target = tmp_path / "target"
    target.mkdir()
    with sshd.locked_key(tmp_path, "s3cret") as (key, config):
        run = run_on_terminal(
            ["bench", "--target", f"target:{target}", "--workload", "dd", "--ssh-config", str(config),
             "--param", "block_sizes=4K", "--param", "concurrency=1", "--param", "size=64K",
             "--param", "direction=write", "--param", "repeats=1", "--json"],
            {"passphrase for": "s3cret"}, _env(tmp_path))
    assert len(run.prompts) == 1 and str(key) in run.prompts[0], run.output
    doc = run.json()
    assert doc["status"] == "complete", doc.get("error")
    assert len(doc["steps"]) == 1 and doc["steps"][0]["valid"], doc["steps"]
    assert os.listdir(target) == []        # the run removed what it wrote
