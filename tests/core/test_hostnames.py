"""One rule for host names, SSH addresses and users: the fields and the SSH layer agree."""

import pytest

from brickyard.core.hostnames import host_problem, user_problem


@pytest.mark.parametrize("text", ["node1", "gfs-1.example.com", "10.71.0.1", "fe80::1", "fe80::1%eth0", "db_1"])
def test_host_names_and_addresses_the_ssh_layer_takes_pass(text):
    assert host_problem(text) is None


@pytest.mark.parametrize("text, reason", [
    ("-5", "cannot start with '-'"), ("-oProxyCommand=x", "cannot start with '-'"),
    ("10.71.0.1 01", "holds no spaces"), ("a\tb", "holds no spaces"), ("", "cannot be empty"),
    ("10.71.0.256", "not an IPv4 address"), ("10.71.0.1.5", "not an IPv4 address"),
    ("node1:2222", "port goes in the SSH port field"), ("gfs;reboot", "not a host name"), ("gfsü", "not a host name"),
])
def test_what_the_ssh_layer_cannot_read_is_named(text, reason):
    assert reason in host_problem(text)


def test_users():
    assert user_problem("root") is None and user_problem("admin.user@corp") is None
    assert "not a user name" in user_problem("-oX") and "not a user name" in user_problem("a b")
