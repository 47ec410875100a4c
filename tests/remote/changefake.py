"""A live volume behind fake executors that changes as a change's gluster commands ask.

``ChangeCluster`` answers every command ``remote.changeread`` and ``remote.changesteps`` run —
``volume info / status detail / status tasks``, ``peer status / pool list / peer probe``,
``add-brick``, ``rebalance start|status|stop``, ``remove-brick start|status|commit|stop``,
``replace-brick … commit force``, ``heal info summary``, ``heal-count``, ``heal``, ``volume set``,
``volume reset`` and ``volume get`` (``options``, shown by ``volume info`` too), each brick's
heal index count — in the XML
gluster 10.3 prints (the shapes of tests/fixtures/gluster/lab-change-*), and the change
pre-flight's host probes through ``fakes.FakeCluster``. A rebalance, a remove-brick and a heal
each take ``polls`` status reads to finish (``hold()`` keeps them running until ``release()``),
so a test can watch one run, cancel it, or resume it. Every command is in ``calls``.
"""

from __future__ import annotations

import threading
import uuid as _uuid
from typing import Sequence

from brickyard.core import gluster_cli as cli
from brickyard.remote import changeread as rd
from brickyard.remote import preflight as _preflight

from .fakes import FakeCluster, fixture

FS = 1006632960
LAB_UUIDS = {"node1": "6a28bf6d-a869-4bf7-9261-039e54846580", "node2": "49c6f3e2-04a0-4164-9198-36f90ecb6b58",
             "node3": "02900fad-0d1c-4cbe-b837-2255b7ff39a7", "node4": "e8b59f43-a678-468a-ae96-2faa4e163775"}
FRESH = ("existing=/srv/brick2\nisdir=0\nexists=0\nwritable=1\nmountpoint=0\nmount=/srv/brick2\n"
         "fstype=xfs\nsource=/dev/loop5\nrootsource=/dev/vda\navail=1000000000\nsize=1006632960\nxattr=1\n")
HEAD = "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<cliOutput><opRet>0</opRet><opErrno>0</opErrno>"


def _ok(body: str = "", errstr: str = "") -> bytes:
    return f"{HEAD}<opErrstr>{errstr}</opErrstr>{body}</cliOutput>".encode()


def _refused(errstr: str) -> bytes:
    return (f"<?xml version=\"1.0\"?>\n<cliOutput><opRet>-1</opRet><opErrno>0</opErrno><opErrstr>{errstr}"
            "</opErrstr></cliOutput>").encode()


class ChangeCluster(FakeCluster):
    def __init__(self, name: str, bricks: Sequence[str], replica: int = 1, arbiter: int = 0,
                 pool: Sequence[str] = ("node1", "node2", "node3", "node4"), used: int = 240_000_000,
                 polls: int = 3, files: int = 900):
        super().__init__()
        self.name, self.replica, self.arbiter = name, replica, arbiter
        self.bricks = list(bricks)
        self.pool = set(pool)
        self.volume_status = "Started"
        self.free = {b: FS - used for b in self.bricks}
        self.offline: set[str] = set()
        self.polls, self.files = polls, files
        self.rebalance: dict | None = None
        self.remove: dict | None = None
        self.heal_pending = 0
        self.heal_reads = 0
        self.options: dict[str, str] = {"nfs.disable": "on"}
        self._hold = threading.Event()
        self._hold.set()
        self.lock = threading.Lock()

    # ---- test controls ---------------------------------------------------------------------
    def uuid(self, host: str) -> str:
        return LAB_UUIDS.get(host) or str(_uuid.uuid5(_uuid.NAMESPACE_DNS, host))

    def hold(self) -> None:
        """Migrations and heals stay in progress until ``release``."""
        self._hold.clear()

    def release(self) -> None:
        self._hold.set()

    def commands(self, *words: str) -> list[tuple[str, ...]]:
        """The gluster commands run whose words include all of ``words``, in order."""
        return [argv for _, argv in self.calls if argv[0] == "gluster" and all(w in argv for w in words)]

    # ---- XML ------------------------------------------------------------------------------------
    def _set_size(self) -> int:
        return max(self.replica, 1)

    def volume_info(self) -> bytes:
        k = self._set_size()
        n = len(self.bricks)
        if k == 1:
            kind, words = 0, "Distribute"
        else:
            kind, words = (7, "Distributed-Replicate") if n > k else (2, "Replicate")
        bricks = "".join(
            f"<brick uuid=\"{self.uuid(b.split(':')[0])}\">{b}<name>{b}</name><hostUuid>{self.uuid(b.split(':')[0])}"
            f"</hostUuid><isArbiter>{1 if self.arbiter and i % k == k - 1 else 0}</isArbiter></brick>"
            for i, b in enumerate(self.bricks))
        return _ok(
            f"<volInfo><volumes><volume><name>{self.name}</name><id>2e70a4c4-6938-480e-9351-02d24d5d6f12</id>"
            f"<status>1</status><statusStr>{self.volume_status}</statusStr><snapshotCount>0</snapshotCount>"
            f"<brickCount>{n}</brickCount><distCount>{k}</distCount><replicaCount>{k}</replicaCount>"
            f"<arbiterCount>{self.arbiter}</arbiterCount><disperseCount>0</disperseCount>"
            f"<redundancyCount>0</redundancyCount><type>{kind}</type><typeStr>{words}</typeStr>"
            f"<transport>0</transport><bricks>{bricks}</bricks><optCount>{len(self.options)}</optCount><options>"
            + "".join(f"<option><name>{k}</name><value>{v}</value></option>" for k, v in self.options.items())
            + "</options></volume><count>1</count></volumes></volInfo>")

    def status_detail(self) -> bytes:
        nodes = "".join(
            f"<node><hostname>{b.split(':')[0]}</hostname><path>{b.split(':', 1)[1]}</path>"
            f"<peerid>{self.uuid(b.split(':')[0])}</peerid><status>{0 if b in self.offline else 1}</status>"
            f"<port>49152</port><pid>100</pid>"
            + ("" if b in self.offline else
               f"<sizeTotal>{FS}</sizeTotal><sizeFree>{self.free.get(b, FS - 3_000_000)}</sizeFree>"
               "<device>/dev/loop5</device><blockSize>4096</blockSize><fsName>xfs</fsName>"
               "<inodesTotal>524288</inodesTotal><inodesFree>518936</inodesFree>") + "</node>"
            for b in self.bricks)
        return _ok(f"<volStatus><volumes><volume><volName>{self.name}</volName><nodeCount>{len(self.bricks)}"
                   f"</nodeCount>{nodes}</volume></volumes></volStatus>")

    def tasks(self) -> bytes:
        out = ""
        if self.rebalance is not None:
            r = self.rebalance
            out += (f"<task><type>Rebalance</type><id>{r['task']}</id><status>{r['status']}</status>"
                    f"<statusStr>{'in progress' if r['status'] == 1 else 'completed'}</statusStr></task>")
        if self.remove is not None:
            r = self.remove
            bricks = "".join(f"<brick>{b}</brick>" for b in r["bricks"])
            out += (f"<task><type>Remove brick</type><id>{r['task']}</id><params>{bricks}</params>"
                    f"<status>{r['status']}</status><statusStr>"
                    f"{'in progress' if r['status'] == 1 else 'completed'}</statusStr></task>")
        return _ok(f"<volStatus><volumes><volume><volName>{self.name}</volName>"
                   f"<tasks>{out}</tasks></volume></volumes></volStatus>")

    def peer_status_xml(self, host: str) -> bytes:
        peers = "".join(
            f"<peer><uuid>{self.uuid(h)}</uuid><hostname>{h}</hostname><hostnames><hostname>{h}</hostname>"
            "</hostnames><connected>1</connected><state>3</state><stateStr>Peer in Cluster</stateStr></peer>"
            for h in sorted(self.pool) if h != host)
        return _ok(f"<peerStatus>{peers}</peerStatus>")

    def pool_list(self, host: str) -> bytes:
        peers = "".join(
            f"<peer><uuid>{self.uuid(h)}</uuid><hostname>{'localhost' if h == host else h}</hostname><hostnames>"
            f"<hostname>{'localhost' if h == host else h}</hostname></hostnames><connected>1</connected><state>3"
            "</state><stateStr>Peer in Cluster</stateStr></peer>" for h in sorted(self.pool))
        return _ok(f"<peerStatus>{peers}</peerStatus>")

    def _migration(self, kind: str, state: dict, host: str) -> bytes:
        root = "volRebalance" if kind == "rebalance" else "volRemoveBrick"
        nodes = sorted({b.split(":")[0] for b in (self.bricks if kind == "rebalance" else state["bricks"])})
        done = state["status"] == 3
        per = self.files // max(len(nodes), 1)
        share = min(state["reads"], self.polls) / max(self.polls, 1)
        body = "".join(
            f"<node><nodeName>{'localhost' if n == host else n}</nodeName><id>{self.uuid(n)}</id>"
            f"<files>{int(per * share)}</files><size>{int(per * share) * 40000}</size>"
            f"<lookups>{int(per * 2 * share)}</lookups><failures>0</failures><skipped>0</skipped>"
            f"<status>{state['status']}</status><statusStr>{'completed' if done else 'in progress' if state['status'] == 1 else 'stopped'}"
            f"</statusStr><runtime>{state['reads'] * 2.0:.2f}</runtime></node>" for n in nodes)
        return _ok(f"<{root}><task-id>{state['task']}</task-id><op>3</op><nodeCount>{len(nodes)}</nodeCount>{body}"
                   f"</{root}>")

    def _advance(self, state: dict) -> None:
        state["reads"] += 1
        if state["status"] == 1 and state["reads"] >= self.polls and self._hold.is_set():
            state["status"] = 3

    def heal_summary(self) -> bytes:
        self.heal_reads += 1
        if self._hold.is_set() and self.heal_pending:
            self.heal_pending = max(self.heal_pending - 40, 0)
        bricks = ""
        for i, b in enumerate(self.bricks):
            pending = self.heal_pending if i % self._set_size() == 0 else 0
            connected = b not in self.offline
            bricks += (f"<brick hostUuid=\"{self.uuid(b.split(':')[0])}\"><name>{b}</name><status>"
                       f"{'Connected' if connected else 'Transport endpoint is not connected'}</status>"
                       + (f"<totalNumberOfEntries>{pending}</totalNumberOfEntries><numberOfEntriesInHealPending>"
                          f"{pending}</numberOfEntriesInHealPending><numberOfEntriesInSplitBrain>0"
                          "</numberOfEntriesInSplitBrain><numberOfEntriesPossiblyHealing>0"
                          "</numberOfEntriesPossiblyHealing>" if connected else
                          "<totalNumberOfEntries>-</totalNumberOfEntries>") + "</brick>")
        return (f"<?xml version=\"1.0\"?>\n<cliOutput><healInfo><bricks>{bricks}</bricks></healInfo><opRet>0</opRet>"
                "<opErrno>0</opErrno><opErrstr/></cliOutput>").encode()

    def heal_count(self) -> bytes:
        if self._hold.is_set() and self.heal_pending:
            self.heal_pending = max(self.heal_pending - 40, 0)
        lines = [f"Gathering count of entries to be healed on volume {self.name} has been successful", ""]
        for i, b in enumerate(self.bricks):
            lines += [f"Brick {b}", f"Number of entries: {self.heal_pending if i % self._set_size() == 0 else 0}", ""]
        return "\n".join(lines).encode()

    # ---- gluster -------------------------------------------------------------------------------
    def gluster(self, host: str, args: list[str]) -> tuple[int, bytes, bytes]:
        with self.lock:
            return self._gluster(host, args)

    def _gluster(self, host: str, args: list[str]) -> tuple[int, bytes, bytes]:
        if args == ["--version"]:
            return 0, b"glusterfs 10.3\n", b""
        words = [a for a in args if a not in ("--mode=script", "--xml")]
        if words == ["peer", "status"]:
            return 0, self.peer_status_xml(host), b""
        if words == ["pool", "list"]:
            return 0, self.pool_list(host), b""
        if words[:2] == ["peer", "probe"]:
            self.pool.add(words[2])
            return 0, _ok("<output>peer probe: success</output>"), b""
        if words[:2] == ["volume", "info"]:
            return 0, self.volume_info(), b""
        if words[:2] == ["volume", "status"] and words[3:] == ["detail"]:
            return 0, self.status_detail(), b""
        if words[:2] == ["volume", "status"] and words[3:] == ["tasks"]:
            return 0, self.tasks(), b""
        if words[:2] == ["volume", "add-brick"]:
            rest = words[3:]
            if rest[:1] == ["replica"]:
                self.replica = int(rest[1])
                rest = rest[2:]
                if rest[:1] == ["arbiter"]:
                    self.arbiter = int(rest[1])
                    rest = rest[2:]
                k = self._set_size()
                old = [self.bricks[i:i + k - 1] for i in range(0, len(self.bricks), k - 1)]
                self.bricks = [b for s, new in zip(old, rest) for b in (*s, new)]
                self.heal_pending = 120
            else:
                self.bricks += rest
            for b in rest:
                self.free[b] = FS - 3_000_000
            return 0, fixture("lab-change-add-brick.xml"), b""
        if words[:2] == ["volume", "rebalance"]:
            action = words[-1]
            if action == "start":
                self.rebalance = {"task": str(_uuid.uuid4()), "status": 1, "reads": 0}
                return 0, _ok(f"<volRebalance><task-id>{self.rebalance['task']}</task-id><op>1</op></volRebalance>"), b""
            if action == "status":
                if self.rebalance is None or self.rebalance["status"] == 2:
                    return 0, _refused(f"Rebalance not started for volume {self.name}."), b""
                self._advance(self.rebalance)
                return 0, self._migration("rebalance", self.rebalance, host), b""
            if action == "stop":
                if self.rebalance is None or self.rebalance["status"] != 1:
                    return 0, _refused(f"Rebalance not started for volume {self.name}."), b""
                self.rebalance["status"] = 2
                return 0, _ok("<volRebalance><task-id>x</task-id></volRebalance>"), b""
        if words[:2] == ["volume", "remove-brick"]:
            action, bricks = words[-1], words[3:-1]
            if action == "start":
                self.remove = {"task": str(_uuid.uuid4()), "status": 1, "reads": 0, "bricks": bricks}
                return 0, _ok(f"<volRemoveBrick><task-id>{self.remove['task']}</task-id></volRemoveBrick>"), b""
            if action == "status":
                if self.remove is None or self.remove["status"] == 2:
                    return 0, _refused(f"remove-brick not started for volume {self.name}."), b""
                self._advance(self.remove)
                return 0, self._migration("remove-brick", self.remove, host), b""
            if action == "stop":
                self.remove = None
                return 0, _ok("<volRemoveBrick><task-id>x</task-id></volRemoveBrick>"), b""
            if action == "commit":
                if self.remove is None or self.remove["status"] != 3:
                    return 0, _refused("Removing brick from a volume with a migration in progress is not allowed"), b""
                self.bricks = [b for b in self.bricks if b not in bricks]
                self.remove = None
                return 0, _ok("<volRemoveBrick><task-id>x</task-id></volRemoveBrick>"), b""
        if words[:2] == ["volume", "replace-brick"]:
            old, new = words[3], words[4]
            self.bricks = [new if b == old else b for b in self.bricks]
            self.offline.discard(old)
            self.free[new] = FS - 3_000_000
            self.heal_pending = 80
            return 0, _ok(errstr="replace-brick commit force operation successful"), b""
        if words[:2] == ["volume", "set"]:
            pairs = words[3:]
            self.options.update(zip(pairs[::2], pairs[1::2]))
            return 0, fixture("lab-change-volume-set-threads.xml"), b""
        if words[:2] == ["volume", "reset"]:
            self.options.pop(words[3], None)
            return 0, fixture("lab-change-volume-reset.xml"), b""
        if words[:2] == ["volume", "get"]:
            value = self.options.get(words[3], "1 (DEFAULT)")
            return 0, (fixture("lab-change-volume-get-least-prio-8.xml").decode()
                       .replace("performance.least-prio-threads", words[3])
                       .replace("<Value>8</Value>", f"<Value>{value}</Value>").encode()), b""
        if words[:2] == ["volume", "heal"]:
            if words[3:] == ["info", "summary"]:
                return 0, self.heal_summary(), b""
            if words[3:] == ["statistics", "heal-count"]:
                return 0, self.heal_count(), b""
            if len(words) == 3:
                return 0, f"Launching heal operation to perform index self heal on volume {self.name} has been " \
                          "successful\n".encode(), b""
        raise AssertionError(f"the change fake does not know gluster {args}")

    def answer(self, host: str, argv: Sequence[str]) -> tuple[int, bytes, bytes]:
        argv = list(argv)
        if argv[:2] == ["sh", "-c"] and argv[2] == cli.BRICK_MKDIR_SCRIPT:
            self.calls.append((host, tuple(argv)))
            self.dirs.add((host, argv[4]))
            return 0, b"", b""
        if argv[:2] == ["sh", "-c"] and argv[2] == _preflight.BRICK_PROBE_SCRIPT:
            self.brick_facts.setdefault((host, argv[4]), FRESH)
        if argv[:2] == ["sh", "-c"] and argv[2] == rd.INDEX_COUNT_SCRIPT:     # a brick's heal index
            self.calls.append((host, tuple(argv)))
            with self.lock:
                brick = f"{host}:{argv[4]}"
                if brick not in self.bricks:
                    return 3, b"", f"no brick directory {argv[4]}\n".encode()
                at = self.bricks.index(brick)
                if at == 0 and self._hold.is_set() and self.heal_pending:
                    self.heal_pending = max(self.heal_pending - 40, 0)
                return 0, f"{self.heal_pending if at % self._set_size() == 0 else 0}\n".encode(), b""
        if argv[:2] == ["sh", "-c"] and "-size 0 -perm 1000" in argv[2]:      # files left on a retiring brick
            self.calls.append((host, tuple(argv)))
            return 0, b"", b""
        return super().answer(host, argv)
