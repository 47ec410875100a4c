"""RemoteServices: futures from the loop thread, over a real throwaway sshd."""

import subprocess

import pytest

from brickyard.core.topology import Brick, Node, Topology
from brickyard.remote.hostkeys import UnknownHostKey
from brickyard.remote.services import RemoteServices
from brickyard.remote.ssh import SshOptions

from .sshd import sshd_fixture


sshd = sshd_fixture("sshd-services")


def test_preflight_future_checks_a_real_host_and_unknown_keys_surface_as_the_exception(sshd, tmp_path):
    topo = Topology(nodes=[Node("target", bricks=[Brick(str(tmp_path / "brick"), 1000)])])
    sshd.user_known_hosts.write_text("")
    services = RemoteServices(SshOptions(config_files=[str(sshd.ssh_config)], own_known_hosts=tmp_path / "own"))
    try:
        first = services.preflight(topo).result(60)
        reach = {c.name: c for c in first.hosts[0].checks}["reachable"]
        assert reach.status == "fail" and sshd.host_fingerprint in reach.message
        with pytest.raises(UnknownHostKey) as info:
            services.import_cluster("target").result(60)
        info.value.accept()
        report = services.preflight(topo).result(60)
    finally:
        services.close()
    checks = {c.name: c for c in report.hosts[0].checks}
    assert checks["reachable"].status == checks["authenticated"].status == checks["root or sudo"].status == "ok"
    brick = checks[f"brick {tmp_path / 'brick'}"]
    fstype = subprocess.run(["findmnt", "-n", "-o", "FSTYPE", "--target", str(tmp_path)],
                            capture_output=True, text=True).stdout.strip().splitlines()[0]
    assert f"on {fstype} at " in brick.message and "free" in brick.message, brick
    assert [p.name for p in tmp_path.iterdir()] == ["own"]  # pre-flight left nothing behind
    assert checks["clock"].status == "ok"


def test_cli_reports_an_unknown_host_key_then_accepts_the_named_fingerprint(sshd, tmp_path, capsys, monkeypatch):
    import json

    from brickyard.cli import main

    own = tmp_path / "brickyard_known_hosts"
    monkeypatch.setenv("BRICKYARD_KNOWN_HOSTS", str(own))
    sshd.user_known_hosts.write_text("")
    args = ["import", "target", "--out", str(tmp_path / "t.brickyard.json"), "--ssh-config", str(sshd.ssh_config), "--json"]
    assert main(args) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["host_key"]["kind"] == "unknown" and doc["host_key"]["fingerprint"] == sshd.host_fingerprint
    assert doc["host_key"]["known_hosts_name"] == f"[127.0.0.1]:{sshd.port}" and not own.exists()
    wrong = "SHA256:" + "A" * 43
    assert main([*args, "--accept-host-key", wrong]) == 1 and not own.exists()
    capsys.readouterr()
    main([*args, "--accept-host-key", sshd.host_fingerprint])
    doc = json.loads(capsys.readouterr().out)
    assert "host_key" not in doc  # past the host key: whatever gluster says on this machine comes next
    assert own.read_text().startswith(f"[127.0.0.1]:{sshd.port} ssh-ed25519 ")


def test_interactive_preflight_asks_about_an_unknown_key_and_checks_again(sshd, tmp_path, capsys, monkeypatch):
    import io

    from brickyard.cli import main
    from brickyard.core import topofile

    class Tty(io.StringIO):
        def isatty(self):
            return True

    own = tmp_path / "brickyard_known_hosts"
    monkeypatch.setenv("BRICKYARD_KNOWN_HOSTS", str(own))
    monkeypatch.setattr("sys.stdin", Tty())
    answers = iter(["yes"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    sshd.user_known_hosts.write_text("")
    path = tmp_path / "t.brickyard.json"
    topofile.save(Topology(name="one", nodes=[Node("target")]), path)
    main(["preflight", str(path), "--ssh-config", str(sshd.ssh_config)])
    captured = capsys.readouterr()
    assert sshd.host_fingerprint in captured.err and "stored in" in captured.err
    assert "[ok  ] reachable" in captured.out and "[ok  ] authenticated" in captured.out
    assert own.read_text().count("ssh-ed25519") == 1
