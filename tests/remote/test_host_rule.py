"""The SSH layer and the fields that take host names read them by one rule (core.hostnames)."""

import pytest

from brickyard.core.hostnames import host_problem
from brickyard.remote.executor import ExecutorError
from brickyard.remote.ssh import check_host_name


def test_the_ssh_layer_refuses_what_the_rule_refuses():
    for text in ("-5", "10.71.0.1 01", "gfs;reboot"):
        assert host_problem(text)
        with pytest.raises(ExecutorError):
            check_host_name(text)
