"""probe: what the hardware under a volume does before a volume exists, to calibrate the
throughput model (``brickyard.core.modelinputs.probe_inputs`` reads these steps).

Targets are of two kinds. A *brick filesystem* (``node1:/srv/brick1``: the mount a brick
directory will live on) is measured with dd in the run directory the engine creates there
and removes afterwards: alone, then every brick filesystem at once (bricks that share a disk
or a RAID controller move less together than the sum of what each moves alone). A *client*
(a target whose host is in ``clients``, e.g. ``client1:/tmp``) sends TCP to a receiver on
each server: one server at a time, then all at once (the client's own link).

The receiver never listens on every interface: the client first resolves each server's
address itself (``RESOLVE``: the IP it will connect to and the source address its route
gives), the receiver binds that IP only, and it closes any connection that does not come
from the client's address, waiting on for the real one. A server that does not hold the
address the client reaches it by (NAT) is reported, not measured: gluster clients reach
bricks directly, so that is no address a volume could use either.

Every program is an argument list: dd with the run directory's file, and two small fixed
Python programs (a receiver that accepts one connection on a port and counts what arrives;
a sender that pushes ``tcp_bytes`` of zeros and waits for the receiver to close). No text
from a parameter reaches a shell; server addresses must be plain host names or IPs.
"""

from __future__ import annotations

import random
import re
from typing import Any

from brickyard.bench.api import Measurement, Param, Requirement, WorkerTiming, Workload

_DD_LINE = re.compile(r"^(\d+) bytes .*copied, ([0-9.eE+-]+) s", re.MULTILINE)
_ADDRESS = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.:_-]{0,252}$")
KIB, MIB = 1024, 1024 * 1024

#: on the client: for each name in argv[1:], "NAME IP SOURCE" (the address it connects to and
#: the source address of its route there) or "NAME - -" when it cannot resolve or route
RESOLVE = """
import socket, sys
for name in sys.argv[1:]:
    try:
        family, _, _, _, sa = socket.getaddrinfo(name, 9, 0, socket.SOCK_STREAM)[0]
        u = socket.socket(family, socket.SOCK_DGRAM)
        u.connect(sa)
        print(name, sa[0], u.getsockname()[0])
        u.close()
    except (OSError, IndexError):
        print(name, '-', '-')
"""

#: listens on argv[3] (the server address the client connects to) port argv[1] and accepts
#: one connection from argv[4] (the client's address), waiting at most argv[2] seconds; closes
#: any other; counts the bytes. Exit 3: port in use (try another); 6: cannot listen there
RECEIVER = """
import errno, ipaddress, socket, sys, time
port, wait, here, client = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3], sys.argv[4]
srv = socket.socket(socket.AF_INET6 if ':' in here else socket.AF_INET, socket.SOCK_STREAM)
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
    srv.bind((here, port))
except OSError as exc:
    print('bind failed:', exc, file=sys.stderr)
    sys.exit(3 if exc.errno == errno.EADDRINUSE else 6)
srv.listen(1)
deadline = time.monotonic() + wait
while True:
    srv.settimeout(max(0.01, deadline - time.monotonic()))
    try:
        conn, peer = srv.accept()
    except OSError:
        print('no sender connected', file=sys.stderr)
        sys.exit(4)
    if ipaddress.ip_address(peer[0].split('%')[0]) == ipaddress.ip_address(client.split('%')[0]):
        break
    print('closed a connection from', peer[0], '(not the client)', file=sys.stderr)
    conn.close()
srv.close()
total, buf = 0, bytearray(1 << 20)
while True:
    n = conn.recv_into(buf)
    if not n:
        break
    total += n
conn.close()
try:
    boot = open('/proc/sys/kernel/random/boot_id').read().strip() or '-'
except OSError:
    boot = '-'
print(total, boot)
"""

#: connects to argv[1]:argv[2] (retrying for argv[4] seconds), sends argv[3] bytes, waits for
#: the receiver to close, prints bytes, the seconds from the first byte to that close and its
#: machine's boot id (the receiver prints its own: equal ids are one kernel, shared CPUs)
SENDER = """
import socket, sys, time
host, port, nbytes, wait = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
deadline = time.monotonic() + wait
while True:
    try:
        s = socket.create_connection((host, port), timeout=10)
        break
    except OSError as exc:
        if time.monotonic() > deadline:
            print('cannot connect:', exc, file=sys.stderr)
            sys.exit(5)
        time.sleep(0.05)
chunk, sent = bytes(1 << 20), 0
t0 = time.monotonic()
while sent < nbytes:
    sent += s.send(chunk[:min(len(chunk), nbytes - sent)])
s.shutdown(socket.SHUT_WR)
while s.recv(65536):
    pass
t1 = time.monotonic()
s.close()
try:
    boot = open('/proc/sys/kernel/random/boot_id').read().strip() or '-'
except OSError:
    boot = '-'
print(sent, t1 - t0, boot)
"""


def parse_dd(text: str) -> tuple[int, float] | None:
    found = _DD_LINE.findall(text)
    return (int(found[-1][0]), float(found[-1][1])) if found else None


def same_kernel(sender: list[str], receiver: list[str]) -> bool:
    """Both ends printed one boot id: one kernel (namespaces, containers), so one set of CPUs."""
    return bool(sender and receiver and sender[0] != "-" and sender[0] == receiver[0])


def parse_names(text: str) -> dict[str, str]:
    """'node1=10.0.0.11,node2=node2.lan' → {host: address}; ValueError naming a bad pair."""
    out: dict[str, str] = {}
    for pair in (p.strip() for p in text.split(",") if p.strip()):
        host, sep, address = pair.partition("=")
        if not sep or not _ADDRESS.match(host.strip()) or not _ADDRESS.match(address.strip()):
            raise ValueError(f"{pair!r}: write HOST=ADDRESS with plain host names or IP addresses")
        out[host.strip()] = address.strip()
    return out


class Probe(Workload):
    name = "probe"
    title = "hardware probe (brick filesystems, client→server TCP)"
    description = ("Before a volume exists: each brick filesystem's own sequential write (conv=fdatasync) and "
                   "read (after a cache drop) alone and all at once, and TCP from each client to each server "
                   "alone and all at once. Calibrates the throughput model (brickyard plan --calibrate RUN).")
    params = (
        Param("clients", "str", "", "targets that are clients (TCP senders): their hosts (or HOST:PATH), "
                                    "comma-separated; every other target is a brick filesystem"),
        Param("names", "str", "", "how clients reach each server: HOST=ADDRESS pairs, comma-separated (default: "
                                  "the target's host name)"),
        Param("disk_size", "size", "64M", "bytes dd writes and reads on each brick filesystem",
              minimum=MIB, maximum=1 << 40),
        Param("block_size", "size", "1M", "dd block size", minimum=4 * KIB, maximum=64 * MIB),
        Param("tcp_bytes", "size", "256M", "bytes each TCP sender pushes", minimum=MIB, maximum=1 << 40),
        Param("together", "bool", True, "also everything at once (shared storage, the client's link)"),
        Param("repeats", "int", 1, "how many times each step is measured", minimum=1, maximum=100),
    )
    requires = (Requirement("dd", "coreutils"), Requirement("python3", "python3"))
    phases = ("disk write", "drop caches", "disk read", "tcp", "cleanup")

    def check(self, values: dict[str, Any]) -> list[str]:
        problems = []
        try:
            parse_names(values["names"])
        except ValueError as exc:
            problems.append(f"names: {exc}")
        for item in (h.strip() for h in values["clients"].split(",") if h.strip()):
            host = item.partition(":")[0]
            if not _ADDRESS.match(host) or any(ord(c) < 32 for c in item):
                problems.append(f"clients: {item!r} is not a host name (or HOST:PATH)")
        return problems

    def step_count(self, values: dict[str, Any]) -> int:
        return 8     # depends on the targets; progress is counted in steps as they come

    async def run(self, ctx) -> None:
        v = ctx.values
        clients = {h.strip() for h in v["clients"].split(",") if h.strip()}
        names = parse_names(v["names"])

        def is_client(t) -> bool:
            return t.host in clients or t.spec in clients
        disks = [t for t in ctx.targets if not is_client(t)]
        senders = [t for t in ctx.targets if is_client(t)]
        servers: dict[str, Any] = {}
        for t in disks:
            servers.setdefault(t.host, t)
        block = v["block_size"]
        count = max(1, v["disk_size"] // block)
        routes: dict[str, tuple[str, str]] | None = None
        for repeat in range(ctx.repeats):
            for t in disks:
                await self._disk(ctx, [t], "alone", block, count, repeat)
            if v["together"] and len(disks) > 1:
                await self._disk(ctx, disks, "together", block, count, repeat)
            if senders and servers:
                sender = senders[0]
                if routes is None:
                    routes = await self._routes(ctx, sender, [names.get(h, h) for h in servers])
                for host, t in servers.items():
                    await self._tcp(ctx, sender, [(host, t)], names, routes, v["tcp_bytes"], "alone", repeat)
                if v["together"] and len(servers) > 1:
                    await self._tcp(ctx, sender, list(servers.items()), names, routes, v["tcp_bytes"], "together",
                                    repeat)

    # ---- brick filesystems ------------------------------------------------------------
    async def _disk(self, ctx, targets, scope: str, block: int, count: int, repeat: int) -> None:
        files = [(t, f"{t.rundir}/probe-{repeat}") for t in targets]
        where = targets[0].path if len(targets) == 1 else "every brick filesystem"
        host = targets[0].host if len(targets) == 1 else "all"
        for direction in ("write", "read"):
            if direction == "read":
                await ctx.drop_caches()
            argv = (lambda p: ["dd", "if=/dev/zero", f"of={p}", f"bs={block}", f"count={count}", "conv=fdatasync"]) \
                if direction == "write" else (lambda p: ["dd", f"if={p}", "of=/dev/null", f"bs={block}"])
            ctx.progress(f"disk {direction} {scope}: {host}:{where}")
            runs = await ctx.run_workers([(t, ctx.exec_worker(argv(p), progress="wchar" if direction == "write"
                                                              else "rchar", progress_step=block)) for t, p in files])
            workers, problems = [], []
            for r in runs:
                parsed = parse_dd(r.stderr)
                err = r.timing.error or ("" if parsed else "no dd status line")
                nbytes = parsed[0] if parsed else 0
                if parsed and nbytes != block * count:
                    problems.append(f"{r.timing.host} moved {nbytes} of {block * count} bytes")
                workers.append(WorkerTiming(r.timing.worker, r.timing.host, r.timing.start, r.timing.end,
                                            bytes=nbytes, ops=count, error=err))
            params = {"probe": "disk", "scope": scope, "direction": direction, "host": host,
                      "path": targets[0].path if len(targets) == 1 else "",
                      "targets": [t.spec for t in targets], "block_size": block, "concurrency": len(targets),
                      "repeat": repeat, "file_size": block * count}
            ctx.record(Measurement(params=params, workers=workers, problems=problems,
                                   cold_key=("disk", scope, host, targets[0].path) if direction == "read" else None,
                                   first_read=True if direction == "read" else None), direction=direction)
        for t, p in files:
            await ctx.remove(t, p)

    # ---- client → server TCP ------------------------------------------------------------
    async def _routes(self, ctx, sender, addresses: list[str]) -> dict[str, tuple[str, str]]:
        """address → (IP the client connects to, the client's source address), resolved on the
        client itself; an address it cannot resolve or route is left out."""
        res = await ctx.sh(sender, ["python3", "-c", RESOLVE, *dict.fromkeys(addresses)], timeout=60, check=False)
        out = {}
        for line in res.text.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] != "-" and _ADDRESS.match(parts[1]) and _ADDRESS.match(parts[2]):
                out[parts[0]] = (parts[1], parts[2])
        return out

    async def _tcp(self, ctx, sender, servers, names, routes, nbytes: int, scope: str, repeat: int) -> None:
        last_problem = ""
        unrouted = [names.get(h, h) for h, _t in servers if names.get(h, h) not in routes]
        if unrouted:
            self._tcp_failed(ctx, sender, servers, nbytes, scope, repeat,
                             f"{sender.host} cannot resolve or route to {', '.join(unrouted)} (give names=HOST=ADDRESS)")
            return
        for _attempt in range(3):      # a port someone else holds: try another
            port = random.randrange(40000, 60000)
            wait = 30.0
            workers = []
            for host, t in servers:
                ip, client_ip = routes[names.get(host, host)]
                workers.append((t, ctx.exec_worker(["python3", "-c", RECEIVER, str(port), str(wait), ip, client_ip])))
            for host, _t in servers:
                ip, _client_ip = routes[names.get(host, host)]
                workers.append((sender, ctx.exec_worker(["python3", "-c", SENDER, ip, str(port), str(nbytes),
                                                         str(wait)], progress="wchar", progress_step=MIB)))
            label = "every server" if len(servers) > 1 else servers[0][0]
            ctx.progress(f"tcp {scope}: {sender.host} → {label}")
            runs = await ctx.run_workers(workers)
            receivers, senders = runs[:len(servers)], runs[len(servers):]
            if any(r.exit == 3 for r in receivers):
                last_problem = "; ".join(r.stderr.strip() for r in receivers if r.exit == 3)
                continue
            timings, problems, shared = [], [], []
            for (host, _t), r, rec in zip(servers, senders, receivers):
                parts = r.stdout.split()
                if r.exit != 0 or len(parts) not in (2, 3):
                    why = (r.stderr.strip() or f"exit {r.exit}")[-300:]
                    problems.append(f"{sender.host} → {host}: {why}")
                    timings.append(WorkerTiming(r.timing.worker, r.timing.host, r.timing.start, r.timing.end,
                                                error=why))
                    continue
                sent, seconds = int(parts[0]), float(parts[1])
                if same_kernel(parts[2:], rec.stdout.split()[1:]):
                    shared.append(host)
                end = r.timing.end
                timings.append(WorkerTiming(r.timing.worker, r.timing.host, end - seconds, end, bytes=sent, ops=1))
            for (host, _t), r in zip(servers, receivers):
                if r.exit == 6:
                    ip = routes[names.get(host, host)][0]
                    problems.append(f"receiver on {host}: {sender.host} reaches {host} at {ip}, an address {host} "
                                    f"cannot listen on (NAT?): {r.stderr.strip()[-200:]}")
                elif r.exit != 0:
                    problems.append(f"receiver on {host}: {(r.stderr.strip() or f'exit {r.exit}')[-300:]}")
            params = {"probe": "tcp", "scope": scope, "direction": "write", "host": sender.host,
                      "to": servers[0][0] if len(servers) == 1 else "all", "servers": [h for h, _ in servers],
                      "concurrency": len(servers), "repeat": repeat, "bytes": nbytes, "same_kernel": shared}
            ctx.record(Measurement(params=params, workers=timings, problems=problems), direction="write")
            return
        self._tcp_failed(ctx, sender, servers, nbytes, scope, repeat, f"no free port after 3 tries: {last_problem}")

    @staticmethod
    def _tcp_failed(ctx, sender, servers, nbytes: int, scope: str, repeat: int, problem: str) -> None:
        params = {"probe": "tcp", "scope": scope, "direction": "write", "host": sender.host, "to": "?",
                  "concurrency": len(servers), "repeat": repeat, "bytes": nbytes}
        ctx.record(Measurement(params=params, workers=[WorkerTiming(0, sender.host, 0.0, 0.0, error=problem)],
                               problems=[problem]), direction="write")

    def validate(self, step) -> list[str]:
        problems = []
        if not step.workers:
            problems.append("no worker results")
        for w in step.workers:
            if w.error:
                problems.append(f"worker {w.worker} on {w.host} failed")
        expected = step.params.get("file_size") or step.params.get("bytes")
        for w in step.workers:
            if expected and not w.error and w.bytes != expected:
                problems.append(f"worker {w.worker} on {w.host} moved {w.bytes} of {expected} bytes")
        return problems
