"""What an options step leaves in effect is read from its commands by the verb's place, not by
searching the argv for "set": a volume may be named "set" or "reset"."""

from types import SimpleNamespace

import pytest

from brickyard.core import gluster_cli as cli
from brickyard.remote.changesteps import options_of


@pytest.mark.parametrize("name", ["vol1", "set", "reset"])
def test_a_raise_and_a_restore_are_read_whatever_the_volume_is_called(name):
    raise_step = SimpleNamespace(commands=(tuple(cli.change_set_argv(
        name, {"performance.least-prio-threads": "8", "cluster.shd-max-threads": "4"})),))
    assert options_of(raise_step) == {"performance.least-prio-threads": "8", "cluster.shd-max-threads": "4"}
    restore_step = SimpleNamespace(commands=(tuple(cli.change_set_argv(name, {"cluster.shd-max-threads": "2"})),
                                             tuple(cli.volume_reset_argv(name, "performance.least-prio-threads"))))
    assert options_of(restore_step) == {"cluster.shd-max-threads": "2", "performance.least-prio-threads": "1"}
