"""SshExecutor against a real throwaway sshd on 127.0.0.1."""

import asyncio
import time
from pathlib import Path

import pytest

from brickyard.remote.executor import CommandFailed, ExecutorError
from brickyard.remote.hostkeys import HostKeyChanged, UnknownHostKey
from brickyard.remote.ssh import SshOptions, SshPool, Unreachable, remote_command

from .sshd import keygen, sshd_fixture
from .test_local import _wait_gone, timed_out_group_is_killed


sshd = sshd_fixture("sshd")


@pytest.fixture
def trusted(sshd):
    sshd.trust()
    return sshd


def _options(sshd, tmp_path, **kw) -> SshOptions:
    return SshOptions(config_files=[str(sshd.ssh_config)], own_known_hosts=tmp_path / "by_known_hosts", **kw)


def _pool(sshd, tmp_path, **kw) -> SshPool:
    return SshPool(_options(sshd, tmp_path, **kw))


def _in_pool(options: SshOptions, body):
    """``await body(pool)`` on a pool of ``options``, closed afterwards."""
    async def main():
        pool = SshPool(options)
        try:
            return await body(pool)
        finally:
            await pool.close()

    return asyncio.run(main())


def _with_pool(sshd, tmp_path, body, **kw):
    return _in_pool(_options(sshd, tmp_path, **kw), body)


def test_remote_command_quotes_every_word_and_leads_a_process_group():
    cmd = remote_command(["mkdir", "-p", "/b/x; rm -rf /", "$(id)"], sudo=True)
    assert cmd.startswith("exec sudo -n -- setsid -w sh -c ")
    assert "'/b/x; rm -rf /'" in cmd and "'$(id)'" in cmd


def test_command_runs_with_status_streams_and_the_marker_removed(trusted, tmp_path):
    async def body(pool):
        return await pool.executor("target").run(["sh", "-c", "echo out; echo err >&2; exit 4"])

    result = _with_pool(trusted, tmp_path, body)
    assert (result.exit_status, result.stdout, result.stderr) == (4, b"out\n", b"err\n")
    assert result.host == "target"


def test_a_killed_command_says_killed_by_its_signal_not_setsids_success(trusted, tmp_path):
    """setsid -w reports a child killed by a signal as "setsid: child N did not exit normally:
    Success" with the signal's number as its status: read as a shell would (issue 25, "Also")."""
    async def body(pool):
        ex = pool.executor("target")
        ran = await ex.run(["sh", "-c", "echo before >&2; kill -9 $$"])
        proc = await ex.start(["sh", "-c", "kill -TERM $$"])
        status = await proc.wait(10)
        return ran, status, await proc.stderr_text()

    ran, status, err = _with_pool(trusted, tmp_path, body)
    assert (ran.exit_status, ran.stderr) == (137, b"before\nkilled by SIGKILL\n")
    assert (status, err) == (143, "killed by SIGTERM\n")


def test_ssh_logins_and_refusals_go_to_the_log(sshd, tmp_path, caplog):
    """The log file (core.applog) gets each login, where and as whom, and why one failed."""
    import logging

    caplog.set_level(logging.INFO, logger="brickyard.remote.ssh")
    sshd.user_known_hosts.write_text("")

    async def refused(pool):
        with pytest.raises(UnknownHostKey):
            await pool.executor("target").run(["true"])

    _with_pool(sshd, tmp_path, refused)
    sshd.trust()

    async def fine(pool):
        await pool.executor("target").run(["true"], check=True)

    _with_pool(sshd, tmp_path, fine)
    lines = [r.getMessage() for r in caplog.records if r.name == "brickyard.remote.ssh"]
    where = f"{sshd.user}@127.0.0.1:{sshd.port}"
    assert any(line.startswith(f"ssh target ({where}): not connected:") and sshd.host_fingerprint in line
               for line in lines), lines
    assert any(line == f"ssh target ({where}): connected, host key verified" for line in lines), lines


def test_unknown_host_key_needs_acceptance_then_is_remembered(sshd, tmp_path):
    sshd.user_known_hosts.write_text("")

    async def body(pool):
        with pytest.raises(UnknownHostKey) as info:
            await pool.executor("target").run(["true"])
        return info.value

    err = _with_pool(sshd, tmp_path, body)
    assert err.fingerprint == sshd.host_fingerprint and err.fingerprint in str(err)
    assert not (tmp_path / "by_known_hosts").exists()  # nothing stored before the user says yes
    stored = err.accept()
    assert stored.read_text().startswith(f"[127.0.0.1]:{sshd.port} ssh-ed25519 ")

    async def again(pool):
        return await pool.executor("target").run(["echo", "hi"], check=True)

    assert _with_pool(sshd, tmp_path, again).stdout == b"hi\n"


def test_fingerprint_accepted_up_front_is_stored_and_used(sshd, tmp_path):
    sshd.user_known_hosts.write_text("")

    async def body(pool):
        return await pool.executor("target").run(["true"], check=True)

    _with_pool(sshd, tmp_path, body, accepted_fingerprints={sshd.host_fingerprint})
    assert sshd.host_fingerprint and (tmp_path / "by_known_hosts").read_text().count("ssh-ed25519") == 1


def test_changed_host_key_is_refused_even_when_its_fingerprint_is_offered(sshd, tmp_path):
    other = keygen(tmp_path / "other_host_key")
    sshd.user_known_hosts.write_text(sshd.known_hosts_line(other.with_suffix(".pub")))

    async def body(pool):
        with pytest.raises(HostKeyChanged) as info:
            await pool.executor("target").run(["true"])
        return info.value

    err = _with_pool(sshd, tmp_path, body, accepted_fingerprints={sshd.host_fingerprint})
    assert "HOST KEY CHANGED" in str(err) and f"-f {sshd.user_known_hosts})" in str(err)
    assert not (tmp_path / "by_known_hosts").exists()


def test_a_wrong_fingerprint_offered_up_front_is_said_not_to_match(sshd, tmp_path):
    sshd.user_known_hosts.write_text("")
    wrong = "SHA256:" + "x" * 43

    async def body(pool):
        with pytest.raises(UnknownHostKey) as info:
            await pool.executor("target").run(["true"])
        return info.value

    err = _with_pool(sshd, tmp_path, body, accepted_fingerprints={wrong})
    assert f"The fingerprint you offered ({wrong}) does not match the host's ({sshd.host_fingerprint})" in str(err)
    assert not (tmp_path / "by_known_hosts").exists()


def test_one_pooled_connection_serves_many_commands(trusted, tmp_path):
    async def body(pool):
        ex = pool.executor("target")
        first = await ex.run(["sh", "-c", "echo $SSH_CONNECTION"], check=True)
        many = await asyncio.gather(*(ex.run(["sh", "-c", "echo $SSH_CONNECTION"], check=True) for _ in range(20)))
        return pool.connects, {r.text for r in [first, *many]}

    connects, sources = _with_pool(trusted, tmp_path, body)
    # 21 commands, 20 at once (more than sshd's MaxSessions 10): one handshake, one TCP source port
    assert connects == 1 and len(sources) == 1


def test_timeout_kills_the_remote_process_group(trusted, tmp_path):
    def run_with_timeout(argv, timeout):
        async def body(pool):
            await pool.executor("target").run(argv, timeout=timeout)

        _with_pool(trusted, tmp_path, body)

    # under load the remote shell may not start within 1.5 s: a longer timeout is tried then
    timed_out_group_is_killed(run_with_timeout, tmp_path / "child.pid")


def test_cancel_kills_the_remote_process_group(trusted, tmp_path):
    pidfile = tmp_path / "child.pid"

    async def body(pool):
        task = asyncio.create_task(
            pool.executor("target").run(["sh", "-c", f"sleep 60 & echo $! > {pidfile}; wait"], timeout=None))
        for _ in range(200):
            if pidfile.exists() and pidfile.read_text().strip():
                break
            await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    _with_pool(trusted, tmp_path, body)
    assert _wait_gone(int(pidfile.read_text()))


def test_shell_metacharacters_in_arguments_are_never_executed(trusted, tmp_path):
    # the remote shell starts in the login user's home: that is where a relative canary would land
    canary_name = f"brickyard-canary-{time.time_ns()}"
    brick = tmp_path / f"b1; touch {canary_name}; $(touch {canary_name}) `touch {canary_name}` | touch {canary_name}"

    async def body(pool):
        ex = pool.executor("target")
        await ex.run(["mkdir", "-p", str(brick)], check=True)
        return await ex.run(["ls", str(tmp_path)], check=True)

    listing = _with_pool(trusted, tmp_path, body)
    assert brick.is_dir() and listing.text == brick.name + "\n"
    assert not (Path.home() / canary_name).exists() and not list(tmp_path.glob("brickyard-canary-*"))


def test_host_name_with_metacharacters_is_not_executed(trusted, tmp_path):
    canary = tmp_path / "canary"

    async def body(pool):
        for bad in (f"target;touch {canary}", f"$(touch {canary})", "-oProxyCommand=touch canary"):
            with pytest.raises(ExecutorError, match="not a valid host name"):
                await pool.executor(bad).run(["true"])
        with pytest.raises(ExecutorError, match="not a valid user name"):
            await pool.executor("target", user=f"x;touch {canary}").run(["true"])
        return pool.connects

    assert _with_pool(trusted, tmp_path, body) == 0  # refused before any connection attempt
    assert not canary.exists()


def test_unreachable_port_is_a_clear_error(trusted, tmp_path):
    from .sshd import free_port

    async def body(pool):
        with pytest.raises(Unreachable, match="cannot reach"):
            await pool.executor("127.0.0.1", port=free_port()).run(["true"])

    _with_pool(trusted, tmp_path, body)


def test_check_failure_names_host_and_command(trusted, tmp_path):
    async def body(pool):
        with pytest.raises(CommandFailed, match=r"target: `ls /nonexistent-brickyard`"):
            await pool.executor("target").run(["ls", "/nonexistent-brickyard"], check=True)

    _with_pool(trusted, tmp_path, body)


def test_upload_and_started_process(trusted, tmp_path):
    target = tmp_path / "up it's.sh"

    async def body(pool):
        ex = pool.executor("target")
        await ex.upload(b"#!/bin/sh\nwhile read l; do echo got:$l; done\n", str(target), mode=0o750)
        proc = await ex.start([str(target)])
        await proc.write(b"x\ny\n")
        await proc.close_stdin()
        lines = [line async for line in proc.stdout_lines()]
        return lines, await proc.wait(10), await proc.stderr_text()

    lines, status, err = _with_pool(trusted, tmp_path, body)
    assert lines == [b"got:x", b"got:y"] and status == 0 and err == ""
    assert target.stat().st_mode & 0o777 == 0o750


def test_started_process_kill_takes_the_group(trusted, tmp_path):
    pidfile = tmp_path / "child.pid"

    async def body(pool):
        proc = await pool.executor("target").start(["sh", "-c", f"sleep 60 & echo $! > {pidfile}; wait"])
        deadline = time.monotonic() + 10
        while not (pidfile.exists() and pidfile.read_text().strip()) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        await proc.kill()

    _with_pool(trusted, tmp_path, body)
    assert _wait_gone(int(pidfile.read_text()))


class _MemoryKeyring:
    """An in-memory keyring backend so the test never touches a real OS keyring."""

    def __new__(cls):
        import keyring.backend

        class Backend(keyring.backend.KeyringBackend):
            priority = 1

            def __init__(self):
                super().__init__()
                self.items = {}

            def get_password(self, service, username):
                return self.items.get((service, username))

            def set_password(self, service, username, password):
                self.items[(service, username)] = password

            def delete_password(self, service, username):
                import keyring.errors

                if self.items.pop((service, username), None) is None:
                    raise keyring.errors.PasswordDeleteError(username)

        return Backend()


def test_password_lives_only_in_the_keyring(tmp_path, caplog):
    import logging

    import keyring

    from brickyard.remote import passwords

    password = "pw-" + str(time.time_ns()) + "-Zq"
    prompts = []
    backend = _MemoryKeyring()
    old = keyring.get_keyring()
    keyring.set_keyring(backend)
    caplog.set_level(logging.DEBUG)

    async def main():
        server, pw_config, port = await _password_server(tmp_path, password)
        (tmp_path / "ssh_config").write_text(pw_config)
        opts = dict(config_files=[str(tmp_path / "ssh_config")], own_known_hosts=tmp_path / "own_known")
        try:
            asking = SshPool(SshOptions(password_prompt=lambda label: prompts.append(label) or password, **opts))
            first = await asking.executor("pw").run(["whoami"], check=True)
            await asking.close()
            # a second session finds it in the keyring and does not ask
            quiet = SshPool(SshOptions(password_prompt=lambda label: prompts.append(label) or None, **opts))
            second = await quiet.executor("pw").run(["whoami"], check=True)
            await quiet.close()
            return first, second, port
        finally:
            server.close()

    try:
        first, second, port = asyncio.run(main())
    finally:
        keyring.set_keyring(old)
    assert first.stdout == second.stdout == b"authenticated\n"
    assert prompts == [f"tester@127.0.0.1:{port}"]
    assert backend.items == {(passwords.SERVICE, f"tester@127.0.0.1:{port}"): password}
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert password.encode() not in path.read_bytes(), path
    assert password not in caplog.text and password not in repr(first)


def test_proxyjump_from_the_ssh_config_is_followed_and_checked(trusted, tmp_path):
    config = tmp_path / "ssh_config"
    config.write_text(trusted.ssh_config.read_text() + (
        f"\nHost jumped\n  HostName 127.0.0.1\n  Port {trusted.port}\n  User {trusted.user}\n"
        f"  IdentityFile {trusted.client_key}\n  IdentitiesOnly yes\n  UserKnownHostsFile {trusted.user_known_hosts}\n"
        "  ProxyJump target\n"))

    async def main():
        pool = SshPool(SshOptions(config_files=[str(config)], own_known_hosts=tmp_path / "own"))
        try:
            result = await pool.executor("jumped").run(["sh", "-c", "echo $SSH_CONNECTION"], check=True)
            return result.text.split(), pool.connects
        finally:
            await pool.close()

    words, connects = asyncio.run(main())
    # the second hop arrives from the jump host's side of the tunnel, on a second connection
    assert connects == 2 and words[0] == "127.0.0.1" and words[2] == "127.0.0.1"


def test_encrypted_key_asks_for_its_passphrase(trusted, tmp_path):
    asked = []

    async def main(config):
        pool = SshPool(SshOptions(config_files=[str(config)], own_known_hosts=tmp_path / "own",
                                  passphrase=lambda name: asked.append(name) or "s3cret"))
        try:
            return await pool.executor("target").run(["echo", "in"], check=True)
        finally:
            await pool.close()

    with trusted.locked_key(tmp_path, "s3cret") as (key, config):
        assert asyncio.run(main(config)).stdout == b"in\n"
    assert asked and str(key) in asked[0]


def test_a_connection_lost_mid_command_is_reported_and_the_pool_reconnects(trusted, tmp_path):
    async def body(pool):
        ex = pool.executor("target")
        task = asyncio.create_task(ex.run(["sleep", "3"], timeout=30))
        await asyncio.sleep(0.5)
        (await pool.host("target")).conn.abort()
        with pytest.raises(Unreachable, match="connection was lost"):
            await task
        again = await ex.run(["echo", "back"], check=True)
        return again.stdout, pool.connects

    assert _with_pool(trusted, tmp_path, body) == (b"back\n", 2)


@pytest.mark.parametrize("hops", ["nofwd", "target,nofwd", "nofwd,target"])
def test_a_jump_host_that_refuses_forwarding_is_a_clear_error_naming_both_hosts(trusted, tmp_path, hops):
    from .sshd import start_sshd

    jump = start_sshd(tmp_path / "nofwd", extra_config="AllowTcpForwarding no\n")
    try:
        (tmp_path / "known").write_text(trusted.known_hosts_line() + jump.known_hosts_line())
        config = tmp_path / "ssh_config"
        behind = (f"  HostName 127.0.0.1\n  Port {trusted.port}\n  User {trusted.user}\n"
                  f"  IdentityFile {trusted.client_key}\n  IdentitiesOnly yes\n  UserKnownHostsFile {tmp_path / 'known'}\n")
        config.write_text(
            trusted.ssh_config.read_text() +
            f"Host nofwd\n  HostName 127.0.0.1\n  Port {jump.port}\n  User {jump.user}\n  IdentityFile {jump.client_key}\n"
            f"  IdentitiesOnly yes\n  UserKnownHostsFile {tmp_path / 'known'}\n"
            f"Host behind\n{behind}  ProxyJump {hops}\n"
            f"Host twohops\n{behind}  ProxyJump target,target\n")

        async def body(pool):
            with pytest.raises(Unreachable) as info:
                await pool.executor("behind").run(["true"])
            # the jump host itself stays usable, and two hops that forward work
            jump_ok = await pool.executor("nofwd").run(["echo", "j"], check=True)
            two = await pool.executor("twohops").run(["echo", "2"], check=True)
            return info.value, jump_ok, two

        err, jump_ok, two = _in_pool(SshOptions(config_files=[str(config)], own_known_hosts=tmp_path / "own"), body)
    finally:
        jump.stop()
    assert err.host == "behind" and jump_ok.stdout == b"j\n" and two.stdout == b"2\n"
    assert f"jump host nofwd refused to forward to 127.0.0.1:{trusted.port}" in str(err)
    assert "AllowTcpForwarding" in str(err)


def test_an_unreachable_jump_host_is_named(trusted, tmp_path):
    from .sshd import free_port

    config = tmp_path / "ssh_config"
    config.write_text(f"Host gone\n  HostName 127.0.0.1\n  Port {free_port()}\n"
                      f"Host behind\n  HostName 127.0.0.1\n  Port {trusted.port}\n  ProxyJump gone\n")

    async def body(pool):
        with pytest.raises(Unreachable) as info:
            await pool.executor("behind").run(["true"])
        return info.value

    err = _in_pool(SshOptions(config_files=[str(config)], own_known_hosts=tmp_path / "own"), body)
    assert str(err).startswith("behind: jump host gone: cannot reach ")


async def _password_server(tmp_path, password: str, user: str = "tester"):
    """An in-process asyncssh server on 127.0.0.1 that takes only ``password`` for ``user``;
    returns (server, its ssh_config text for ``Host pw``)."""
    import asyncssh

    class Server(asyncssh.SSHServer):
        def begin_auth(self, username):
            return True

        def password_auth_supported(self):
            return True

        def validate_password(self, username, pw):
            return username == user and pw == password

    async def handle(process):
        process.stdout.write("authenticated\n")
        process.exit(0)

    key = asyncssh.generate_private_key("ssh-ed25519")
    server = await asyncssh.create_server(Server, "127.0.0.1", 0, server_host_keys=[key], process_factory=handle)
    port = server.sockets[0].getsockname()[1]
    known = tmp_path / "pw_known"
    known.write_text(f"[127.0.0.1]:{port} {key.export_public_key().decode()}")
    config = (f"Host pw\n  HostName 127.0.0.1\n  Port {port}\n  User {user}\n  UserKnownHostsFile {known}\n"
              "  IdentitiesOnly yes\n  PubkeyAuthentication no\n")
    return server, config, port


def test_a_waiting_password_prompt_leaves_other_hosts_running(trusted, tmp_path):
    import threading

    import keyring

    asked, release, released = threading.Event(), threading.Event(), []

    def prompt(label):
        asked.set()
        released.append(release.wait(60))  # the user is still typing (only a loop blocked by it waits this out)
        return "secret"

    old = keyring.get_keyring()
    keyring.set_keyring(_MemoryKeyring())

    async def main():
        server, pw_config, _ = await _password_server(tmp_path, "secret")
        config = tmp_path / "ssh_config"
        config.write_text(trusted.ssh_config.read_text() + pw_config)
        pool = SshPool(SshOptions(config_files=[str(config)], own_known_hosts=tmp_path / "own", password_prompt=prompt))
        try:
            waiting = asyncio.create_task(pool.executor("pw").run(["whoami"], check=True))
            deadline = time.monotonic() + 60
            while not asked.is_set() and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
            other = await asyncio.wait_for(pool.executor("target").run(["echo", "free"], check=True), 60)
            still_waiting = not waiting.done()
            release.set()
            return other, still_waiting, await waiting
        finally:
            release.set()
            await pool.close()
            server.close()

    try:
        other, still_waiting, first = asyncio.run(main())
    finally:
        keyring.set_keyring(old)
    assert released == [True]  # answered by the test, not freed by its timeout
    assert other.stdout == b"free\n" and still_waiting and first.stdout == b"authenticated\n"


def test_without_a_keyring_a_password_login_stands_and_the_user_is_told_once(tmp_path, caplog):
    import logging

    import keyring
    import keyring.backends.fail

    password = "pw-" + str(time.time_ns()) + "-Nk"
    prompts = []
    old = keyring.get_keyring()
    keyring.set_keyring(keyring.backends.fail.Keyring())
    caplog.set_level(logging.DEBUG)

    async def main():
        server, pw_config, port = await _password_server(tmp_path, password)
        (tmp_path / "ssh_config").write_text(pw_config)
        opts = dict(config_files=[str(tmp_path / "ssh_config")], own_known_hosts=tmp_path / "own",
                    password_prompt=lambda label: prompts.append(label) or password)
        try:
            pool = SshPool(SshOptions(**opts))
            ex = pool.executor("pw")
            first = await ex.run(["whoami"], check=True)
            second = await ex.run(["whoami"], check=True)  # the same connection, not asked again
            connects, notes = pool.connects, list(pool.notes)
            await pool.close()
            later = SshPool(SshOptions(**opts))  # the next session has to ask again
            await later.executor("pw").run(["whoami"], check=True)
            await later.close()
            return first, second, connects, notes, port
        finally:
            server.close()

    try:
        first, second, connects, notes, port = asyncio.run(main())
    finally:
        keyring.set_keyring(old)
    label = f"tester@127.0.0.1:{port}"
    assert first.stdout == second.stdout == b"authenticated\n" and connects == 1
    assert prompts == [label, label]
    assert len(notes) == 1 and label in notes[0] and "asked again next time" in notes[0]
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING and "could not be kept" in r.getMessage()]
    assert len(warnings) == 2  # once per session that logged in
    assert password not in caplog.text and password not in notes[0]
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert password.encode() not in path.read_bytes(), path


def test_the_configs_connect_timeout_wins_over_the_default(tmp_path):
    async def main():
        held = []

        async def silent(reader, writer):  # accepts TCP, never speaks SSH
            held.append(writer)
            await asyncio.sleep(30)

        server = await asyncio.start_server(silent, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        (tmp_path / "ssh_config").write_text(
            f"Host mute\n  HostName 127.0.0.1\n  Port {port}\n  ConnectTimeout 1\n"
            f"Host plain\n  HostName 127.0.0.1\n  Port {port}\n")
        pool = SshPool(SshOptions(config_files=[str(tmp_path / "ssh_config")], own_known_hosts=tmp_path / "own",
                                  connect_timeout=30))
        try:
            plain, _ = await pool.resolve("plain")
            started = time.monotonic()
            with pytest.raises(Unreachable, match="did not answer within 1 s"):
                await pool.executor("mute").run(["true"])
            return plain.connect_timeout, time.monotonic() - started
        finally:
            await pool.close()
            for writer in held:
                writer.close()
            server.close()

    default, waited = asyncio.run(main())
    assert default == 30 and waited < 10


def test_global_known_hosts_files_are_read_and_never_written(sshd, tmp_path):
    sshd.user_known_hosts.write_text("")
    system = tmp_path / "ssh_known_hosts"
    system.write_text(sshd.known_hosts_line())
    config = tmp_path / "ssh_config"
    config.write_text(sshd.ssh_config.read_text() + f"  GlobalKnownHostsFile {tmp_path / 'missing'} {system}\n")
    (tmp_path / "default_config").write_text("Host plain\n  HostName 127.0.0.1\n")
    (tmp_path / "none_config").write_text("Host plain\n  HostName 127.0.0.1\n  GlobalKnownHostsFile none\n")

    async def main():
        pool = SshPool(SshOptions(config_files=[str(config)], own_known_hosts=tmp_path / "own"))
        try:
            result = await pool.executor("target").run(["echo", "ok"], check=True)
        finally:
            await pool.close()
        defaults = {}
        for name in ("default_config", "none_config"):
            resolved, _ = await SshPool(SshOptions(config_files=[str(tmp_path / name)])).resolve("plain")
            defaults[name] = resolved.known_hosts.global_files
        return result, defaults

    before = system.read_bytes()
    result, defaults = asyncio.run(main())
    assert result.stdout == b"ok\n" and system.read_bytes() == before and not (tmp_path / "own").exists()
    assert defaults == {"default_config": [Path("/etc/ssh/ssh_known_hosts"), Path("/etc/ssh/ssh_known_hosts2")],
                        "none_config": []}

    other = keygen(tmp_path / "other_host_key")
    system.write_text(sshd.known_hosts_line(other.with_suffix(".pub")))

    async def changed(pool):
        with pytest.raises(HostKeyChanged) as info:
            await pool.executor("target").run(["true"])
        return info.value

    err = asyncio.run(_refused(config, tmp_path, changed))
    assert str(system) in str(err)


async def _refused(config, tmp_path, body):
    pool = SshPool(SshOptions(config_files=[str(config)], own_known_hosts=tmp_path / "own"))
    try:
        return await body(pool)
    finally:
        await pool.close()
