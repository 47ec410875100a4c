"""Executors for the machines of a topology, by the names the topology gives them.

Where SSH connects: a node's ``address`` (else its name) is the SSH host, looked up in the
OpenSSH client config like any ``ssh HOST``. The topology's ``ssh_user``/``ssh_port`` apply
when they differ from the defaults (root, 22); otherwise the config's ``User``/``Port`` decide,
so one ``~/.ssh/config`` (or ``--ssh-config FILE``) serves every command as admins expect.
"""

from __future__ import annotations

from typing import Callable

from ..core.topology import Topology
from .executor import Executor, ExecutorError
from .ssh import SshPool, check_host_name

DEFAULT_USER = "root"
DEFAULT_PORT = 22


class TopologyHosts:
    """``executor(name)`` for every node and client; one pooled executor per machine."""

    def __init__(self, topo: Topology, pool: SshPool | None = None,
                 factory: Callable[[str, str, str | None, int | None], Executor] | None = None):
        self.topo = topo
        self.pool = pool
        self._factory = factory
        self._executors: dict[str, Executor] = {}

    def names(self) -> list[str]:
        return [n.name for n in self.topo.nodes] + [c.name for c in self.topo.clients]

    def target(self, name: str) -> tuple[str, str | None, int | None]:
        machine = self.topo.node(name) or self.topo.client(name)
        if machine is None:
            raise ExecutorError(name, "is neither a node nor a client of the topology")
        user = machine.ssh_user if machine.ssh_user and machine.ssh_user != DEFAULT_USER else None
        port = machine.ssh_port if machine.ssh_port and machine.ssh_port != DEFAULT_PORT else None
        check_host_name(machine.ssh_host, user)
        return machine.ssh_host, user, port

    def executor(self, name: str) -> Executor:
        if name not in self._executors:
            host, user, port = self.target(name)
            if self._factory is not None:
                self._executors[name] = self._factory(name, host, user, port)
            elif self.pool is not None:
                self._executors[name] = self.pool.executor(host, user=user, port=port, name=name)
            else:
                raise ExecutorError(name, "no way to reach hosts was configured")
        return self._executors[name]

    __call__ = executor
