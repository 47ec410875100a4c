"""Reaching hosts as the window's Connection settings say (issue 21 point 4), against a real
sshd on 127.0.0.1: identity files like ``ssh -i``, OpenSSH's default keys when nothing names a
key, per-host user and port, a default user, ProxyJump through the chosen config, and a refused
login that names the config and every key that was tried."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from brickyard.remote.connection import ConnectionSettings, HostSetting, key_file_problem, load
from brickyard.remote.ssh import CLI_AUTH_HINT, AuthenticationFailed, SshOptions, SshPool

from .sshd import keygen, new_users_home, sshd_fixture


sshd = sshd_fixture("sshd", trusted=True)


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A home of its own (no ~/.ssh of the tester's) and no ssh-agent."""
    return new_users_home(tmp_path, monkeypatch, ssh_dir=True)


def bare_config(sshd, folder: Path, *, port: bool = True, user: bool = True, extra: str = "") -> Path:
    """An SSH config naming the test server as ``target``, with no IdentityFile (and, as asked,
    no Port or User): what the Connection settings must then supply."""
    config = folder / "bare_ssh_config"
    config.write_text(f"Host target\n  HostName 127.0.0.1\n" + (f"  Port {sshd.port}\n" if port else "")
                      + (f"  User {sshd.user}\n" if user else "") + f"  UserKnownHostsFile {sshd.user_known_hosts}\n"
                      + extra)
    return config


def run_on(options: SshOptions, alias: str = "target"):
    async def main():
        pool = SshPool(options)
        try:
            return await pool.executor(alias).run(["sh", "-c", "echo $USER"], check=True)
        finally:
            await pool.close()

    return asyncio.run(main())


def refused(options: SshOptions, alias: str = "target") -> str:
    with pytest.raises(AuthenticationFailed) as info:
        run_on(options, alias)
    return str(info.value)


def test_an_identity_file_given_logs_in_like_ssh_i(sshd, home, tmp_path):
    config = bare_config(sshd, tmp_path)
    result = run_on(SshOptions(config_files=[str(config)], own_known_hosts=tmp_path / "own",
                               identity_files=[str(sshd.client_key)]))
    assert result.exit_status == 0


def test_the_default_keys_are_tried_when_nothing_names_a_key_as_openssh_does(sshd, home, tmp_path):
    config = bare_config(sshd, tmp_path)
    options = SshOptions(config_files=[str(config)], own_known_hosts=tmp_path / "own")
    message = refused(options)                                   # no ~/.ssh/id_* yet
    assert "keys tried: none (no IdentityFile named, and no default key ~/.ssh/id_* exists)" in message
    shutil.copy(sshd.client_key, home / ".ssh" / "id_ed25519")
    assert run_on(options).exit_status == 0
    # a key named in the config (here one that is not there) means: no default keys, as ssh -i would
    named = bare_config(sshd, tmp_path, extra=f"  IdentityFile {tmp_path / 'gone_key'}\n")
    message = refused(SshOptions(config_files=[str(named)], own_known_hosts=tmp_path / "own"))
    assert f"named but not there: {tmp_path / 'gone_key'}" in message and "id_ed25519" not in message


def test_a_refused_login_names_the_config_and_every_key_tried_and_what_to_do(sshd, home, tmp_path):
    config = bare_config(sshd, tmp_path)
    wrong = keygen(tmp_path / "wrong_key")
    missing = tmp_path / "not_there"
    message = refused(SshOptions(config_files=[str(config)], own_known_hosts=tmp_path / "own",
                                 identity_files=[str(wrong), str(missing)]))
    assert message.startswith(f"target: {sshd.user}@127.0.0.1:{sshd.port} accepted none of the credentials offered")
    assert f"SSH config: {config}" in message
    assert f"keys tried: {wrong}; named but not there: {missing}" in message
    assert "no ssh-agent (SSH_AUTH_SOCK is not set)" in message
    assert "the host does not offer password login" in message
    assert message.endswith(CLI_AUTH_HINT)
    # the window says where to change it
    hint = "Choose the SSH config, a key or the user in Cluster ▸ Connection settings…"
    message = refused(SshOptions(config_files=[str(config)], own_known_hosts=tmp_path / "own",
                                 identity_files=[str(wrong)], auth_hint=hint))
    assert message.endswith(hint) and "--ask-password" not in message
    # the default config, when none is chosen, is named too (and said to be missing)
    message = refused(SshOptions(own_known_hosts=tmp_path / "own", identity_files=[str(wrong)],
                                 host_ports={"127.0.0.1": sshd.port}, accepted_fingerprints={sshd.host_fingerprint}),
                      alias="127.0.0.1")
    assert f"SSH config: none ({home / '.ssh' / 'config'}: not there)" in message


def test_per_host_user_and_port_and_a_default_user_fill_what_the_config_leaves_out(sshd, home, tmp_path):
    config = bare_config(sshd, tmp_path, port=False, user=False)
    base = dict(config_files=[str(config)], own_known_hosts=tmp_path / "own", identity_files=[str(sshd.client_key)])
    result = run_on(SshOptions(**base, host_ports={"target": sshd.port}, host_users={"target": sshd.user}))
    assert result.text.strip() == sshd.user
    # the default user applies where nothing names one
    result = run_on(SshOptions(**base, host_ports={"target": sshd.port}, default_user=sshd.user))
    assert result.text.strip() == sshd.user
    # … but never over the config's own User
    named = bare_config(sshd, tmp_path, port=False)
    message = refused(SshOptions(config_files=[str(named)], own_known_hosts=tmp_path / "own",
                                 identity_files=[str(sshd.client_key)], host_ports={"target": sshd.port},
                                 host_users={"target": "nobody-here"}))
    assert "nobody-here@127.0.0.1" in message       # a per-host user wins over the config, as ssh -l does
    result = run_on(SshOptions(config_files=[str(named)], own_known_hosts=tmp_path / "own",
                               identity_files=[str(sshd.client_key)], host_ports={"target": sshd.port},
                               default_user="nobody-here"))
    assert result.text.strip() == sshd.user


def test_proxyjump_in_the_chosen_config_is_followed_with_the_identity_given(sshd, home, tmp_path):
    config = bare_config(sshd, tmp_path, extra=(
        f"Host jumped\n  HostName 127.0.0.1\n  Port {sshd.port}\n  User {sshd.user}\n"
        f"  UserKnownHostsFile {sshd.user_known_hosts}\n  ProxyJump target\n"))
    result = run_on(SshOptions(config_files=[str(config)], own_known_hosts=tmp_path / "own",
                               identity_files=[str(sshd.client_key)]), alias="jumped")
    assert result.exit_status == 0


# ---- the settings themselves ---------------------------------------------------------------
def test_connection_settings_round_trip_and_name_every_problem(tmp_path):
    key = keygen(tmp_path / "k")
    config = tmp_path / "cfg"
    config.write_text("Host x\n  HostName 127.0.0.1\n")
    good = ConnectionSettings(str(config), (str(key),), "admin", (HostSetting("node1", "root", 2222),))
    assert good.problems() == []
    again, problems = ConnectionSettings.from_json(good.to_json())
    assert again == good and problems == []
    assert load({"connection": good.to_json()})[0] == good
    options = good.ssh_options()
    assert options == {"config_files": [str(config)], "identity_files": [str(key)], "default_user": "admin",
                       "host_users": {"node1": "root"}, "host_ports": {"node1": 2222}}
    assert good.ssh_options(["/etc/override"])["config_files"] == ["/etc/override"]   # --ssh-config wins
    bad = ConnectionSettings(str(tmp_path / "nope"), (str(key.with_suffix(".pub")), "/dev/zero"), "-x",
                             (HostSetting("a b", "root", 0), HostSetting("n2", "", 70000), HostSetting("n3")))
    assert bad.problems() == [
        f"SSH config {tmp_path / 'nope'}: no such file",
        f"identity file {key}.pub: holds no private key (that is the public half: name the file without .pub)",
        "identity file /dev/zero: not a regular file",
        "default user '-x' is not a user name (letters, digits, '.', '_', '-')",
        "host 'a b' is not a host name or address (letters, digits, '.', '-', '_', ':')",
        "host n2: port 70000 is not between 1 and 65535",
        "host n3: give a user, a port or both",
    ]
    settings, problems = ConnectionSettings.from_json({"ssh_config": 5, "identity_files": "x", "hosts": [1]})
    assert settings == ConnectionSettings() and problems == [
        "connection.ssh_config must be text", "connection.identity_files must be a list of file names",
        "connection.hosts[0] must name a host"]
    assert key_file_problem(str(key)) is None
