"""What the host-key refusals say: the host once, the real files to fix, an offered fingerprint that did not match."""

from pathlib import Path

import asyncssh

from brickyard.remote.hostkeys import HostKeyChanged, UnknownHostKey


def _key():
    return asyncssh.generate_private_key("ssh-ed25519")


def test_an_unknown_key_names_the_host_once_when_it_is_its_own_known_hosts_name(tmp_path):
    key = _key()
    err = UnknownHostKey("10.77.0.12", "10.77.0.12", key, tmp_path / "kh")
    assert str(err).startswith(f"10.77.0.12: unknown host key: ssh-ed25519 {err.fingerprint}. Compare")
    assert str(err).count("10.77.0.12") == 1
    aliased = UnknownHostKey("node2", "10.77.0.12", key, tmp_path / "kh")
    assert str(aliased).startswith("node2: unknown host key for 10.77.0.12: ")


def test_an_offered_fingerprint_that_does_not_match_is_said_to_differ(tmp_path):
    key = _key()
    offered = "SHA256:" + "A" * 43
    err = UnknownHostKey("node2", "node2", key, tmp_path / "kh", {offered})
    assert f"The fingerprint you offered ({offered}) does not match the host's ({err.fingerprint})" in str(err)
    two = UnknownHostKey("node2", "node2", key, tmp_path / "kh", {offered, "SHA256:" + "B" * 43})
    assert f"None of the fingerprints you offered (SHA256:{'A' * 43}, SHA256:{'B' * 43}) matches" in str(two)
    assert "offered" not in str(UnknownHostKey("node2", "node2", key, tmp_path / "kh"))


def test_a_changed_key_names_the_real_files_to_remove_it_from():
    err = HostKeyChanged("node1", "[10.0.0.1]:2222", _key(),
                         [("/home/u/.ssh/known_hosts", "SHA256:old"), ("/etc/ssh/ssh_known_hosts", "SHA256:old2")])
    text = str(err)
    assert text.startswith("node1: HOST KEY CHANGED for [10.0.0.1]:2222: it now presents ssh-ed25519 ")
    assert "ssh-keygen -R '[10.0.0.1]:2222' -f /etc/ssh/ssh_known_hosts; " \
           "ssh-keygen -R '[10.0.0.1]:2222' -f /home/u/.ssh/known_hosts" in text
    assert "FILE" not in text
    same = HostKeyChanged("node1", "node1", _key(), [("/k", "SHA256:old")])
    assert str(same).startswith("node1: HOST KEY CHANGED: ") and "ssh-keygen -R node1 -f /k)" in str(same)


def test_a_known_hosts_path_that_is_no_regular_file_is_refused_not_read_forever(tmp_path):
    """UserKnownHostsFile in an SSH config can name anything: /dev/zero or a FIFO would be
    read until memory runs out or wait for a writer."""
    import os

    import pytest

    from brickyard.remote.executor import ExecutorError
    from brickyard.remote.hostkeys import KnownHosts

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for bad in (Path("/dev/zero"), fifo, tmp_path):
        with pytest.raises(ExecutorError, match="cannot read known_hosts file: .*(not a regular file|is a directory)"):
            KnownHosts([bad], tmp_path / "own").load()
    for empty in (tmp_path / "missing", Path("/dev/null")):    # absent, or the usual /dev/null: nothing known
        merged, per_file = KnownHosts([empty], tmp_path / "own").load()
        assert per_file == {}
