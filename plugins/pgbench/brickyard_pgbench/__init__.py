"""pgbench (the gluster 3.12 vs 6 write-up): a throwaway PostgreSQL cluster whose data
directory is on the target, ``pgbench -i -s S`` timed, then ``pgbench -c C -t T`` for each T,
repeated; tps and latency parsed, the PostgreSQL version recorded.

The server runs as a non-root user (``postgres`` when Brickyard logs in as root), listens only
on a Unix socket in a private temp directory, and is stopped and removed afterwards."""

from __future__ import annotations

import re
import shlex
from typing import Any

from brickyard.bench.api import Measurement, Metric, Param, ParamError, Requirement, WorkerTiming, Workload

_TPS = re.compile(r"^tps = ([0-9.]+) \((?:without|excluding) initial connection time\)", re.MULTILINE)
_TPS_ANY = re.compile(r"^tps = ([0-9.]+)", re.MULTILINE)
_LAT = re.compile(r"^latency average = ([0-9.]+) ms", re.MULTILINE)
_INIT_DONE = re.compile(r"done in ([0-9.]+) s")


def parse_pgbench(text: str) -> dict[str, float]:
    """tps (without connection time), average latency (ms), transactions done/asked."""
    out: dict[str, float] = {}
    m = _TPS.search(text) or _TPS_ANY.search(text)
    if m:
        out["tps"] = float(m.group(1))
    m = _LAT.search(text)
    if m:
        out["latency_ms"] = float(m.group(1))
    m = re.search(r"number of transactions actually processed: (\d+)/(\d+)", text)
    if m:
        out["done"], out["asked"] = float(m.group(1)), float(m.group(2))
    return out


def parse_init_seconds(text: str) -> float | None:
    m = _INIT_DONE.search(text)
    return float(m.group(1)) if m else None


# pg_ctl and initdb start the server through ``sh -c`` with its path inside double quotes
PLAIN_BIN_RULE = ("is not a plain absolute path: pg_ctl runs the server through a shell, so only letters, "
                  "digits and . _ + - / are allowed")


def plain_bin_dir(path: str) -> bool:
    return re.fullmatch(r"/[A-Za-z0-9._+/-]*", path) is not None


class PgBench(Workload):
    name = "pgbench"
    title = "PostgreSQL pgbench"
    description = "pgbench -i -s S (timed) and pgbench -c C -t T (tps) with the data directory on the target."
    params = (
        Param("scale", "int", 10, "pgbench -i -s (1 ≈ 16 MB of data)", minimum=1, maximum=100_000),
        Param("clients", "int", 10, "pgbench -c", minimum=1, maximum=1000),
        Param("transactions", "ints", "500", "pgbench -t per client; one step per value (e.g. 500,1000,2000,4000)",
              minimum=1, maximum=10_000_000),
        Param("pg_bin", "str", "", "PostgreSQL bin directory (default: pg_config --bindir, else newest /usr/lib/postgresql/*/bin)"),
        Param("pg_user", "str", "postgres", "user that runs the server when Brickyard logs in as root"),
        Param("port", "int", 54329, "port number (the server listens on a private Unix socket only)",
              minimum=1024, maximum=65000),
    )
    requires = (Requirement("python3"),)
    phases = ("initdb", "start server", "pgbench -i", "pgbench", "stop server", "cleanup")

    def check(self, values: dict[str, Any]) -> list[str]:
        problems = []
        if not re.fullmatch(r"[a-z_][a-z0-9_-]{0,31}", values["pg_user"]):
            problems.append(f"pg_user: {values['pg_user']!r} is not a user name")
        if values["pg_bin"] and not plain_bin_dir(values["pg_bin"]):
            problems.append(f"pg_bin: {values['pg_bin']!r} {PLAIN_BIN_RULE}")
        return problems

    def step_count(self, values: dict[str, Any]) -> int:
        return 1 + len(values["transactions"])

    async def _bin(self, ctx, t) -> str:
        if ctx.values["pg_bin"]:
            return ctx.values["pg_bin"].rstrip("/")
        res = await ctx.sh(t, ["pg_config", "--bindir"], check=False)
        if res.ok and res.text.strip():
            cand = res.text.strip()
            if (await ctx.sh(t, ["test", "-x", f"{cand}/initdb"], check=False)).ok:
                return cand
        res = await ctx.sh(t, ["sh", "-c", "ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1"], check=False)
        cand = res.text.strip()
        if cand and (await ctx.sh(t, ["test", "-x", f"{cand}/pgbench"], check=False)).ok:
            return cand
        raise ParamError(f"{t.host}: PostgreSQL not found (apt-get install postgresql, or set pg_bin)")

    async def _plain_bin(self, ctx, t) -> str:
        pgbin = await self._bin(ctx, t)
        if not plain_bin_dir(pgbin):     # also what pg_config found on the host
            raise ParamError(f"{t.host}: PostgreSQL bin directory {pgbin!r} {PLAIN_BIN_RULE}")
        return pgbin

    async def run(self, ctx) -> None:
        v = ctx.values
        servers = []
        try:
            for i, t in enumerate(ctx.targets):
                server = {"t": t, "port": v["port"] + i, "sock": "", "started": False}
                servers.append(server)     # stopped and removed below even if its start fails
                await self._start(ctx, server)
            for repeat in range(ctx.repeats):
                await self._init(ctx, servers, repeat)
                for tx in v["transactions"]:
                    await self._bench(ctx, servers, tx, repeat)
        finally:
            for s in servers:
                await self._stop(ctx, s)

    def _as_user(self, t, argv: list[str]) -> list[str]:
        if t.agent.is_root:
            return ["runuser", "-u", self._user, "--", *argv]
        return argv

    async def _start(self, ctx, server: dict[str, Any]) -> None:
        t, port = server["t"], server["port"]
        self._user = ctx.values["pg_user"]
        pgbin = await self._plain_bin(ctx, t)
        version = (await ctx.sh(t, [f"{pgbin}/postgres", "--version"])).text.strip()
        sock = await ctx.host_tempdir(t, "pg")     # marked: a killed run's is removed by the next
        server["sock"] = sock
        real = f"{t.rundir}/pgdata"
        await ctx.sh(t, ["mkdir", "-m", "0700", real])
        if t.agent.is_root:
            await ctx.sh(t, ["chown", self._user, real, sock])
            reach = await ctx.sh(t, self._as_user(t, ["test", "-w", real]), check=False)
            if not reach.ok:
                raise ParamError(f"{t.host}: user {self._user} cannot reach {real} (a parent directory of "
                                 f"{t.path} is not searchable for it); use a path it can reach")
        # pg_ctl starts the server through `sh -c` with -D and -l in double quotes: the tools
        # get a plain alias of the data directory, whatever the target path holds
        data = await ctx.alias(t, real, "pgdata", inside=sock)
        server.update(bin=pgbin, data=data, version=version)
        ctx.progress(f"initdb on {t.spec}")
        await ctx.sh(t, self._as_user(t, [f"{pgbin}/initdb", "-D", data, "-A", "trust", "-U", "brickyard", "-N"]), timeout=600)
        opts = f"-k {shlex.quote(sock)} -p {port} -c listen_addresses= -c max_connections={max(100, ctx.values['clients'] + 10)}"
        server["started"] = True     # from here on, a failed start may still leave a server to stop
        await ctx.sh(t, self._as_user(t, [f"{pgbin}/pg_ctl", "-D", data, "-l", f"{sock}/postgres.log", "-w", "-t", "300",
                                          "-o", opts, "start"]), timeout=400)

    def _client(self, s, argv: list[str]) -> list[str]:
        return self._as_user(s["t"], [f"{s['bin']}/pgbench", "-h", s["sock"], "-p", str(s["port"]), "-U", "brickyard",
                                      *argv, "postgres"])

    async def _init(self, ctx, servers, repeat: int) -> None:
        scale = ctx.values["scale"]
        ctx.progress(f"pgbench -i -s {scale}, repeat {repeat + 1}/{ctx.repeats}")
        # pgbench -i waits silently while the server vacuums and builds keys: a longer stall limit
        runs = await ctx.run_workers([(s["t"], ctx.exec_worker(self._client(s, ["-i", "-s", str(scale)]))) for s in servers],
                                     stall_seconds=max(ctx.stall_seconds, 600))
        workers = [r.timing for r in runs]
        tool = [parse_init_seconds(r.stderr + r.stdout) for r in runs]
        metrics = [Metric("init_seconds", max(w.seconds for w in workers), "s", "slowest host's pgbench -i wall time")]
        if all(x is not None for x in tool):
            metrics.append(Metric("pgbench_init_done_s", max(tool), "s", "pgbench's own 'done in' figure"))
        ctx.record(Measurement(params={"phase": "init", "scale": scale, "repeat": repeat,
                                       "pg_version": servers[0]["version"]},
                               workers=workers, metrics=metrics, throughput_metrics=False))

    async def _bench(self, ctx, servers, tx: int, repeat: int) -> None:
        clients = ctx.values["clients"]
        ctx.progress(f"pgbench -c {clients} -t {tx}, repeat {repeat + 1}/{ctx.repeats}")
        runs = await ctx.run_workers([(s["t"], ctx.exec_worker(self._client(s, ["-c", str(clients), "-j", str(min(clients, 4)),
                                                                                  "-t", str(tx)]))) for s in servers])
        workers, problems, tps, lat = [], [], [], []
        for r in runs:
            parsed = parse_pgbench(r.stdout)
            if "tps" not in parsed:
                problems.append(f"{r.target.host}: no tps in pgbench output {r.stderr.strip()[-200:]}")
            else:
                tps.append(parsed["tps"])
                lat.append(parsed.get("latency_ms", 0.0))
                if parsed.get("done") != parsed.get("asked"):
                    problems.append(f"{r.target.host}: {parsed.get('done'):.0f} of {parsed.get('asked'):.0f} transactions done")
            workers.append(WorkerTiming(r.timing.worker, r.timing.host, r.timing.start, r.timing.end,
                                        ops=clients * tx, error=r.timing.error))
        metrics = [Metric("tps", sum(tps), "tps", "pgbench tps without initial connection time, summed over hosts "
                                                  "(each host its own server)")]
        if lat:
            metrics.append(Metric("latency_ms", max(lat), "ms", "pgbench average latency (worst host)"))
        ctx.record(Measurement(params={"phase": "run", "clients": clients, "transactions": tx, "repeat": repeat,
                                       "scale": ctx.values["scale"], "pg_version": servers[0]["version"]},
                               workers=workers, metrics=metrics, problems=problems, throughput_metrics=False))

    async def _stop(self, ctx, s) -> None:
        """Stop the server and remove its directory. Never raises: it runs while another error
        may be on its way out; what it cannot do, the agent does (it stops a server left in
        its temp directory and removes the directory at exit or cancel, or a later run does)."""
        t = s["t"]
        try:
            if s["started"]:   # a clean stop frees the server's shared memory; immediate if that hangs
                stop = [f"{s['bin']}/pg_ctl", "-D", s["data"], "-w", "-t", "60", "stop"]
                res = await t.executor.run(self._as_user(t, [*stop, "-m", "fast"]), timeout=90)
                if not res.ok and "Is server running?" not in res.stderr.decode(errors="replace"):
                    await t.executor.run(self._as_user(t, [*stop, "-m", "immediate"]), timeout=90)
            if s["sock"]:
                await ctx.remove(t, s["sock"])
        except Exception:  # noqa: BLE001 - see above
            pass

    def validate(self, step) -> list[str]:
        return [f"worker {w.worker} on {w.host} failed: {w.error}" for w in step.workers if w.error]
