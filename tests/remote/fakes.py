"""A fake cluster behind fake executors, answering with gluster output recorded in the lab.

``FakeCluster`` keeps the state a few commands change (peers, directories, volumes, mounts)
and answers ``gluster --xml`` queries from the recorded fixtures in tests/fixtures/gluster,
edited only where the state differs (peers not probed yet, a volume not started, an option
set). Every command each host received is in ``calls``.
"""

from __future__ import annotations

import json
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from brickyard.remote import preflight as _preflight
from brickyard.remote import provision as _provision
from brickyard.remote import teardown as _teardown
from brickyard.remote.executor import CommandFailed, CommandResult, Executor, RemoteProcess

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "gluster"
GLUSTERD_DOWN = b"Connection failed. Please check if gluster daemon is operational.\n"


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


@dataclass
class FakeCluster:
    peers: set[str] = field(default_factory=set)  # probed from node1
    dirs: set[tuple[str, str]] = field(default_factory=set)
    markers: dict[tuple[str, str], str] = field(default_factory=dict)  # (host, path) -> volume
    volumes: dict[str, dict] = field(default_factory=dict)
    mounts: dict[tuple[str, str], str] = field(default_factory=dict)  # (client, path) -> source
    fstab: dict[str, list[str]] = field(default_factory=dict)  # host -> lines
    glusterd_down: set[str] = field(default_factory=set)
    calls: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    brick_facts: dict[tuple[str, str], str] = field(default_factory=dict)  # preflight probe answers
    # log in as uid 1000 with passwordless sudo: only what a plain user can do works without
    # sudo (gluster is not even on a non-root PATH: it lives in /usr/sbin)
    non_root: bool = False
    sudo_answer: tuple[int, bytes] = (0, b"")  # what `sudo -n true` answers: status, stderr
    # what `getent hosts` knows (name -> address); clients connected to a volume beyond the
    # clients that mounted it through this fake (volume -> addresses)
    addresses: dict[str, str] = field(default_factory=lambda: {
        **{f"node{i}": f"10.77.0.{10 + i}" for i in range(1, 5)}, "client1": "10.77.0.101", "client2": "10.77.0.102"})
    volume_clients: dict[str, list[str]] = field(default_factory=dict)
    ta_facts: dict[str, str] = field(default_factory=dict)  # host -> the thin-arbiter probe's answer
    # mounts mount.glusterfs reports done (exit 0) that never appear (fuse-mountopts=bogus)
    mounts_that_fail: set[tuple[str, str]] = field(default_factory=set)
    # volumes whose `volume status VOL clients` fails as gluster 10.3's does with no client
    clients_unreadable: set[str] = field(default_factory=set)
    # free bytes under a brick path now, as the pre-flight's re-check reads them (default 8 GiB)
    free: dict[tuple[str, str], int] = field(default_factory=dict)

    def executor(self, host: str) -> "FakeExecutor":
        return FakeExecutor(host, self)

    def commands_on(self, host: str) -> list[tuple[str, ...]]:
        return [argv for h, argv in self.calls if h == host]

    # ---- gluster ---------------------------------------------------------------------
    def _peer_status(self) -> bytes:
        root = ET.fromstring(fixture("lab-peer-status.xml"))
        status = root.find("peerStatus")
        for peer in list(status.findall("peer")):
            if peer.findtext("hostname") not in self.peers:
                status.remove(peer)
        return ET.tostring(root)

    def _volume_info(self, name: str) -> bytes:
        vol = self.volumes.get(name)
        if vol is None:
            return fixture("lab-error-volume-info-missing.xml")
        root = ET.fromstring(fixture(f"lab-volume-info-{name}.xml"))
        v = root.find(".//volume")
        v.find("statusStr").text = vol["status"]
        options = v.find("options")
        for key, value in vol["options"].items():
            opt = ET.SubElement(options, "option")
            ET.SubElement(opt, "name").text = key
            ET.SubElement(opt, "value").text = value
        return ET.tostring(root)

    def _volume_clients(self, name: str) -> bytes:
        """``volume status NAME clients --xml``: the servers' self-heal daemons, each client this
        fake mounted the volume on, and ``volume_clients``."""
        if name in self.clients_unreadable:
            return fixture("lab-error-volume-status-clients-commit-failed.xml")
        vol = self.volumes.get(name)
        if vol is None or vol["status"] != "Started":
            why = "does not exist" if vol is None else "is not started"
            return (f"<?xml version='1.0'?><cliOutput><opRet>-1</opRet><opErrno>30800</opErrno>"
                    f"<opErrstr>Volume {name} {why}</opErrstr></cliOutput>").encode()
        seen = [a for n, a in self.addresses.items() if n.startswith("node")]
        seen += [self.addresses.get(c, c) for (c, _), src in self.mounts.items() if src.partition(":/")[2] == name]
        seen += self.volume_clients.get(name, [])
        clients = "".join(f"<client><hostname>{a}:49152</hostname></client>" for a in seen)
        return (f"<?xml version='1.0'?><cliOutput><opRet>0</opRet><opErrno>0</opErrno><opErrstr/><volStatus>"
                f"<volumes><volume><volName>{name}</volName><node><hostname>node1</hostname><path>/b</path>"
                f"<clientsStatus><clientCount>{len(seen)}</clientCount>{clients}</clientsStatus></node>"
                f"</volume></volumes></volStatus></cliOutput>").encode()

    def gluster(self, host: str, args: list[str]) -> tuple[int, bytes, bytes]:
        if args == ["--version"]:  # the CLI answers this without glusterd
            return 0, b"glusterfs 10.3\nRepository revision: git://git.gluster.org/glusterfs.git\n", b""
        if host in self.glusterd_down:
            return 1, GLUSTERD_DOWN, b""
        xml = "--xml" in args
        args = [a for a in args if a not in ("--mode=script", "--xml")]
        if args == ["peer", "status"]:
            return 0, self._peer_status(), b""
        if args[:2] == ["peer", "probe"]:
            self.peers.add(args[2])
            return 0, b"peer probe: success\n", b""
        if args[:2] == ["volume", "info"] and xml:
            if args[2] == "all" and len(self.volumes) == 1:  # one volume is all the fake can list
                return 0, self._volume_info(next(iter(self.volumes))), b""
            return 0, self._volume_info(args[2]), b""
        if args[:2] == ["volume", "status"] and args[3:] == ["clients"] and xml:
            return 0, self._volume_clients(args[2]), b""
        if args[:2] == ["volume", "create"]:
            name = args[2]
            if name in self.volumes:
                return 1, b"", f"volume create: {name}: failed: Volume {name} already exists\n".encode()
            self.volumes[name] = {"status": "Created", "options": {}, "argv": args}
            return 0, f"volume create: {name}: success: please start the volume to access data\n".encode(), b""
        if args[:2] == ["volume", "set"]:      # KEY VALUE [KEY VALUE]..., as gluster's CLI takes them
            pairs = args[3:]
            if not pairs or len(pairs) % 2 or ("group" in pairs[::2] and len(pairs) > 2):
                return 1, b"", b"Usage: volume set <VOLNAME> <KEY> <VALUE>\n"
            self.volumes[args[2]]["options"].update(zip(pairs[::2], pairs[1::2]))
            return 0, b"volume set: success\n", b""
        if args[:2] == ["volume", "start"]:
            self.volumes[args[2]]["status"] = "Started"
            return 0, f"volume start: {args[2]}: success\n".encode(), b""
        if args[:2] == ["volume", "stop"]:
            self.volumes[args[2]]["status"] = "Stopped"
            return 0, f"volume stop: {args[2]}: success\n".encode(), b""
        if args[:2] == ["volume", "delete"]:
            del self.volumes[args[2]]
            return 0, f"volume delete: {args[2]}: success\n".encode(), b""
        raise AssertionError(f"fake gluster does not know {args}")

    # ---- everything else --------------------------------------------------------------
    def answer(self, host: str, argv: Sequence[str]) -> tuple[int, bytes, bytes]:
        argv = list(argv)
        self.calls.append((host, tuple(argv)))
        if argv[0] == "gluster":
            return self.gluster(host, argv[1:])
        if argv[:2] == ["test", "-d"]:
            return (0 if (host, argv[2]) in self.dirs else 1), b"", b""
        if argv[:2] == ["sh", "-c"]:
            script, args = argv[2], argv[4:]
            if script == _provision.MKDIR_SCRIPT:
                if (host, args[0]) in self.dirs:
                    return 0, b"exists already\n", b""
                self.dirs.add((host, args[0]))
                self.markers[(host, args[0])] = args[1]
                return 0, b"", b""
            if script == _provision.MOUNT_SCRIPT:
                if (host, args[1]) not in self.mounts_that_fail:
                    self.mounts[(host, args[1])] = args[0]
                return 0, b"", b""
            if script == _provision.FSTAB_ADD_SCRIPT:
                lines = self.fstab.setdefault(host, [])
                if args[0] not in lines:
                    lines.append(args[0])
                return 0, b"", b""
            if script == _teardown.FSTAB_REMOVE_SCRIPT:
                lines = self.fstab.get(host, [])
                if args[0] not in lines:
                    return 0, b"not in /etc/fstab\n", b""
                lines.remove(args[0])
                return 0, b"removed\n", b""
            if script == _teardown.RMBRICK_SCRIPT:
                path, volume = args[:2]
                if (host, path) not in self.markers:
                    return 0, (b"kept: not created by Brickyard\n" if (host, path) in self.dirs else b"absent\n"), b""
                if self.markers[(host, path)] != volume:
                    return 0, b"kept: Brickyard created it for volume other\n", b""
                self.dirs.discard((host, path))
                del self.markers[(host, path)]
                return 0, b"removed\n", b""
            if script == _preflight.BRICK_PROBE_SCRIPT:
                return 0, self.brick_facts[(host, args[0])].encode(), b""
            if script == _preflight.FREE_SCRIPT:
                return 0, b"".join(b"%d\n" % self.free.get((host, p), 8 << 30) for p in args), b""
            if script == _preflight.THIN_ARBITER_PROBE_SCRIPT:
                return 0, self.ta_facts.get(host, "process=0\nglusterd=0\n").encode(), b""
            if script == _preflight.TOOLS_SCRIPT:
                return 0, b"".join(f"{t}={1 if t != 'fio' else 0}\n".encode() for t in args), b""
        if argv[:3] == ["grep", "-qxF", "--"] and argv[4] == "/etc/fstab":
            return (0 if argv[3] in self.fstab.get(host, []) else 1), b"", b""
        if argv[:5] == ["findmnt", "-J", "-o", "SOURCE,FSTYPE,TARGET", "--mountpoint"]:
            src = self.mounts.get((host, argv[-1]))
            if not src:
                return 1, b"", b""
            return 0, json.dumps({"filesystems": [{"source": src, "fstype": "fuse.glusterfs",
                                                   "target": argv[-1]}]}).encode(), b""
        if argv[:2] == ["tail", "-n"] and argv[3].startswith("/var/log/glusterfs/"):
            return 0, fixture("lab-client1-mnt-gvm-bogus.log"), b""
        if argv[0] == "umount":
            self.mounts.pop((host, argv[1]), None)
            return 0, b"", b""
        if argv[:2] == ["getent", "hosts"]:
            by_address = {a: n for n, a in self.addresses.items()}
            lines = []
            for key in argv[2:]:
                if key in self.addresses:
                    lines.append(f"{self.addresses[key]} {key}")
                elif key in by_address:
                    lines.append(f"{key} {by_address[key]}")
            return (0 if len(lines) == len(argv) - 2 else 2), "".join(f"{l}\n" for l in lines).encode(), b""
        if argv == ["hostname", "-I"]:
            return 0, f"{self.addresses.get(host, '')}\n".encode(), b""
        if argv == ["true"]:  # provisioning logs in to every host before it changes anything
            return 0, b"", b""
        if argv == ["id", "-u"]:
            return 0, (b"1000\n" if self.non_root else b"0\n"), b""
        if argv == ["sudo", "-n", "true"]:
            return self.sudo_answer[0], b"", self.sudo_answer[1]
        if argv == ["date", "+%s.%N"]:
            return 0, f"{time.time():.9f}\n".encode(), b""
        raise AssertionError(f"fake host {host} does not know {argv}")


def _plain_user_can(argv: Sequence[str]) -> bool:
    return list(argv) in (["true"], ["id", "-u"], ["sudo", "-n", "true"], ["date", "+%s.%N"]) or (
        list(argv[:2]) == ["sh", "-c"] and argv[2] == _preflight.TOOLS_SCRIPT)


class FakeExecutor(Executor):
    def __init__(self, host: str, cluster: FakeCluster):
        self.host = host
        self.cluster = cluster

    async def run(self, argv, *, timeout=60.0, input=None, sudo=False, check=False, on_output=None) -> CommandResult:
        now = time.time()
        if self.cluster.non_root and not sudo and not _plain_user_can(argv):
            self.cluster.calls.append((self.host, tuple(argv)))
            status, out, err = ((127, b"", f"sh: 1: {argv[0]}: not found\n".encode()) if argv[0] == "gluster"
                                else (1, b"", b"Permission denied\n"))
        else:
            status, out, err = self.cluster.answer(self.host, argv)
        result = CommandResult(self.host, tuple(argv), status, out, err, now, time.time())
        if check and not result.ok:
            raise CommandFailed(result)
        return result

    async def start(self, argv, *, sudo=False) -> RemoteProcess:
        raise NotImplementedError("the fake cluster runs commands to completion only")

    async def upload(self, data, remote_path, mode=0o644) -> None:
        raise NotImplementedError("the fake cluster takes no uploads")

    async def close(self) -> None:
        return None


def executors(cluster: FakeCluster) -> Callable[[str], FakeExecutor]:
    cache: dict[str, FakeExecutor] = {}

    def get(name: str) -> FakeExecutor:
        return cache.setdefault(name, cluster.executor(name))

    return get


class ReplayExecutor(FakeExecutor):
    """Answers each exact argument list with a recorded fixture file (stdout, exit 0)."""

    def __init__(self, host: str, answers: dict[tuple[str, ...], str]):
        super().__init__(host, FakeCluster())
        self.answers = answers
        self.seen: list[tuple[str, ...]] = []

    async def run(self, argv, *, timeout=60.0, input=None, sudo=False, check=False, on_output=None) -> CommandResult:
        self.seen.append(tuple(argv))
        name = self.answers.get(tuple(argv))
        if name is None:
            raise AssertionError(f"no recorded answer for {argv}")
        now = time.time()
        return CommandResult(self.host, tuple(argv), 0, fixture(name), b"", now, now)
