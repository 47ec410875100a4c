"""``brickyard lab status``: what is recorded and what is really running."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

from .state import LabState, is_alive, load_state
from .system import link_exists, memory_of_pid_namespace, netns_exists, port_open

GLUSTERD_PORT = 24007


@dataclass
class MachineHealth:
    name: str
    role: str
    address: str
    running: bool
    netns: bool
    ssh: bool
    glusterd: bool | None   # None on clients
    processes: int
    memory_bytes: int
    delay_ms: float = 0.0   # towards it; its forwarder must run for ``running``
    delay_from_ms: float | None = None   # from it (None: as delay_ms)

    @property
    def healthy(self) -> bool:
        return self.running and self.netns and self.ssh and self.glusterd is not False


@dataclass
class LabHealth:
    directory: str
    recorded: bool
    status: str             # "down" (nothing recorded), "up", "degraded", "incomplete"
    bridge: bool
    machines: list[MachineHealth]
    state: LabState | None

    @property
    def up(self) -> bool:
        return self.status == "up"

    def to_dict(self) -> dict:
        return {
            "directory": self.directory,
            "status": self.status,
            "bridge": self.bridge,
            "machines": [asdict(m) for m in self.machines],
            "lab": self.state.to_dict() if self.state else None,
        }


def lab_health(directory: Path) -> LabHealth:
    state = load_state(directory)
    if state is None:
        return LabHealth(str(directory), False, "down", False, [], None)
    machines = []
    for m in state.machines:
        running = is_alive(m.init_pid, m.init_start) and (
            not m.delayed or is_alive(m.forwarder_pid, m.forwarder_start))
        processes, memory = memory_of_pid_namespace(m.init_pid) if running else (0, 0)
        machines.append(MachineHealth(
            name=m.name, role=m.role, address=m.address, running=running,
            netns=netns_exists(m.netns),
            ssh=running and port_open(m.address, m.ssh_port),
            glusterd=(running and port_open(m.address, GLUSTERD_PORT)) if m.role == "server" else None,
            processes=processes, memory_bytes=memory, delay_ms=m.delay_ms, delay_from_ms=m.delay_from_ms,
        ))
    bridge = link_exists(state.bridge)
    if state.status != "up":
        status = "incomplete"   # still starting, or an up that failed part-way
    elif bridge and all(h.healthy for h in machines):
        status = "up"
    else:
        status = "degraded"
    return LabHealth(str(directory), True, status, bridge, machines, state)
