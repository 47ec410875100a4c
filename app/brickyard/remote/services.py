"""What the app calls to reach hosts: each method returns a ``concurrent.futures.Future``.

One ``RemoteServices`` owns the asyncio loop thread and the SSH pool for the app's life.
The UI turns ``Progress`` callbacks and future completion into Qt signals (in ``ui/``);
nothing here imports Qt. A refused host key arrives as the future's ``UnknownHostKey`` /
``HostKeyChanged`` exception: the UI shows the fingerprint, and after the user accepts,
``UnknownHostKey.accept()`` stores it and the call is simply made again.
"""

from __future__ import annotations

from concurrent.futures import Future
from typing import Callable, Sequence

from ..core.topology import Topology
from .hosts import TopologyHosts
from .importer import ImportResult, import_cluster
from .loop import AsyncLoopThread, Progress
from .preflight import HostChecks, PreflightReport, preflight
from .provision import provision_plan, run_provision
from .ssh import SshOptions, SshPool
from .steps import RunReport, StepOutcome
from .teardown import run_teardown

OnStep = Callable[[int, StepOutcome], None]


class RemoteServices:
    def __init__(self, options: SshOptions | None = None, loop: AsyncLoopThread | None = None):
        self.loop = loop or AsyncLoopThread()
        self._owns_loop = loop is None
        self.pool = SshPool(options)

    def hosts(self, topo: Topology) -> TopologyHosts:
        return TopologyHosts(topo, self.pool)

    def preflight(self, topo: Topology, volume: str | None = None,
                  on_host: Callable[[HostChecks], None] | None = None) -> "Future[PreflightReport]":
        """Pre-flight of ``topo`` (give the loop thread a copy the GUI will not edit meanwhile)."""
        return self.loop.submit(preflight(topo, self.hosts(topo), volume, on_host))

    def provision(self, topo: Topology, volume: str, progress: Progress, *, fstab: bool = False,
                  on_step: OnStep | None = None, topology_file: str | None = None) -> "Future[RunReport]":
        """Provision after the user accepted ``provision_plan(...).questions`` (raises ProvisionError now).

        ``on_step(index, outcome)`` reports each step as it starts and ends (``steps.run_steps``);
        ``topology_file`` is named in the undo hint of a failed run."""
        plan = provision_plan(topo, volume, fstab=fstab)
        return self.loop.submit(run_provision(plan, self.hosts(topo), progress, on_step, topology_file=topology_file))

    def teardown(self, topo: Topology, volume: str, progress: Progress,
                 on_step: OnStep | None = None) -> "Future[RunReport]":
        return self.loop.submit(run_teardown(topo, volume, self.hosts(topo), progress, on_step))

    def import_cluster(self, host: str, volume: str | None = None,
                       clients: Sequence[str] = ()) -> "Future[ImportResult]":
        return self.loop.submit(import_cluster(self.pool.executor(host), volume, reach=self.pool.executor,
                                               clients=clients))

    def check_login(self, host: str) -> "Future[str]":
        """Log in to ``host`` and say as whom and where (``user@address:port``): the Connection
        settings' Test. Fails as any command would (host key, refused login, unreachable)."""
        return self.loop.submit(self._whoami(host))

    async def _whoami(self, host: str) -> str:
        ex = self.pool.executor(host)
        result = await ex.run(["sh", "-c", "echo \"$(id -un)@$(hostname)\""], timeout=30, check=True)
        where = await self.pool.host(host)
        r = where.resolved
        return f"logged in to {host} as {result.text.strip()} ({r.user}@{r.host}:{r.port})"

    def close(self) -> None:
        if self.loop.running:
            self.loop.run(self.pool.close(), timeout=30)
        if self._owns_loop:
            self.loop.stop()
