"""SSH trust at the boundary, against a real throwaway sshd: a host key is trusted for the
port it was accepted on only (known_hosts keys ``[host]:port`` apart, as OpenSSH does), and
a key passphrase is asked once per session, not once per host."""

from __future__ import annotations

import asyncio
import json

import pytest

from brickyard.cli import main
from brickyard.core import topofile
from brickyard.core.topology import Brick, Node, Topology
from brickyard.remote.hostkeys import UnknownHostKey
from brickyard.remote.ssh import PassphraseMemo, SshOptions, SshPool

from .sshd import sshd_fixture


sshd = sshd_fixture("sshd-security")


def _run(config, own, **kw):
    async def go():
        pool = SshPool(SshOptions(config_files=[str(config)], own_known_hosts=own, **kw))
        try:
            return await pool.executor("target").run(["echo", "in"], check=True)
        finally:
            await pool.close()
    return asyncio.run(go())


def test_a_key_stored_for_port_22_is_not_trusted_on_another_port(sshd, tmp_path):
    key = sshd.host_key.with_suffix(".pub").read_text().split()[:2]
    sshd.user_known_hosts.write_text(f"127.0.0.1 {key[0]} {key[1]}\n")   # as if accepted for port 22
    with pytest.raises(UnknownHostKey) as err:
        _run(sshd.ssh_config, tmp_path / "own")
    assert err.value.lookup == f"[127.0.0.1]:{sshd.port}"
    sshd.user_known_hosts.write_text(sshd.known_hosts_line())             # [127.0.0.1]:PORT: trusted
    assert _run(sshd.ssh_config, tmp_path / "own").stdout == b"in\n"


def test_preflight_json_names_an_unknown_host_key_as_structured_data(sshd, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("BRICKYARD_KNOWN_HOSTS", str(tmp_path / "own"))
    sshd.user_known_hosts.write_text("")
    path = tmp_path / "t.brickyard.json"
    topofile.save(Topology(name="t", nodes=[Node("target", bricks=[Brick(str(tmp_path / "b"), 1000)])]), path)
    assert main(["preflight", str(path), "--ssh-config", str(sshd.ssh_config), "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    host = doc["hosts"][0]
    assert host["host_key"]["kind"] == "unknown"
    assert host["host_key"]["fingerprint"] == sshd.host_fingerprint
    assert host["host_key"]["accept_with"] == f"--accept-host-key {sshd.host_fingerprint}"


def test_a_passphrase_is_asked_once_for_five_hosts_using_the_key(sshd, tmp_path):
    sshd.trust()
    asked = []

    def ask(name):
        asked.append(name)
        return "s3cret"

    with sshd.locked_key(tmp_path, "s3cret") as (key, config):
        five = config.read_text().replace("Host target", "Host h1 h2 h3 h4 h5")
        config.write_text(five)

        async def go():
            pool = SshPool(SshOptions(config_files=[str(config)], own_known_hosts=tmp_path / "own", passphrase=ask))
            try:
                results = await asyncio.gather(*(pool.executor(f"h{i}").run(["echo", f"{i}"], check=True)
                                                 for i in range(1, 6)))
                return [r.stdout for r in results], pool.connects
            finally:
                await pool.close()

        outs, connects = asyncio.run(go())
    assert outs == [f"{i}\n".encode() for i in range(1, 6)] and connects == 5
    assert len(asked) == 1 and str(key) in asked[0]


def test_a_wrong_passphrase_is_asked_again_and_only_the_right_one_is_kept(sshd, tmp_path):
    sshd.trust()
    answers = iter(["wrong", "s3cret"])
    asked = []

    def ask(name):
        asked.append(name)
        return next(answers)

    memo = PassphraseMemo(ask)
    with sshd.locked_key(tmp_path, "s3cret") as (key, config):
        assert _run(config, tmp_path / "own", passphrase=memo).stdout == b"in\n"
        assert _run(config, tmp_path / "own", passphrase=memo).stdout == b"in\n"   # same session: not asked
    assert len(asked) == 2
