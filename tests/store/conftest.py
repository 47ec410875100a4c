"""Real databases for the store tests: a SQLite file per test, and a throwaway PostgreSQL
server for the session (initdb + pg_ctl on a free loopback port, data and socket in a temp
dir, run as the ``postgres`` user when we are root), one fresh database per test.

Without PostgreSQL binaries the PostgreSQL cases skip, except under CI=true, where they fail.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import pytest

CI = os.environ.get("CI", "").lower() == "true"


def _pg_bin() -> Path | None:
    found = shutil.which("initdb")
    if found:
        return Path(os.path.realpath(found)).parent
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                        key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0)
    return Path(candidates[-1]).parent if candidates else None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _unavailable(reason: str) -> None:
    if CI:
        pytest.fail(f"PostgreSQL is required under CI=true: {reason}")
    pytest.skip(f"PostgreSQL not available: {reason}")


class PostgresServer:
    """initdb + the postmaster as our own child process. ``setpriv --pdeathsig`` makes the
    kernel stop the server if the test process dies (killed, timed out), so no run leaves a
    server behind; a normal end stops it by PID."""

    def __init__(self, bindir: Path):
        self.bindir = bindir
        self.root = Path(tempfile.mkdtemp(prefix="brickyard-pg-"))
        self.data = self.root / "data"
        self.port = _free_port()
        self.proc: subprocess.Popen | None = None
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            try:
                user = pwd.getpwnam("postgres")
            except KeyError:
                raise RuntimeError("running as root and there is no 'postgres' user to run the server as") from None
            os.chown(self.root, user.pw_uid, user.pw_gid)
            self.as_user = ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--init-groups"]
        elif shutil.which("setpriv"):
            self.as_user = ["setpriv"]

    def start(self) -> None:
        prefix = [*self.as_user, "--"] if self.as_user else []
        init = subprocess.run([*prefix, str(self.bindir / "initdb"), "-D", str(self.data), "-U", "brickyard",
                               "--auth=trust", "-E", "UTF8", "--no-sync", "--locale=C"],
                              capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
        if init.returncode != 0:
            raise RuntimeError(f"initdb failed ({init.returncode}): {init.stderr.strip()[-2000:]}")
        for _ in range(5):
            if self._run_postmaster():
                return
            self.port = _free_port()     # taken between picking and binding: another one
        raise RuntimeError(f"postgres found no free port in 5 tries: "
                           f"{(self.root / 'log').read_text(errors='replace')[-2000:]}")

    def _run_postmaster(self) -> bool:
        """Start the postmaster and wait until it accepts connections; False if its port
        was taken meanwhile."""
        die_with_us = [*self.as_user, "--pdeathsig", "SIGINT", "--"] if self.as_user else []
        log = open(self.root / "log", "wb")
        self.proc = subprocess.Popen(
            [*die_with_us, str(self.bindir / "postgres"), "-D", str(self.data), "-c", "listen_addresses=127.0.0.1",
             "-p", str(self.port), "-k", str(self.root), "-c", "fsync=off", "-c", "full_page_writes=off",
             "-c", "max_connections=60"], stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        import psycopg

        deadline = time.monotonic() + 60
        while True:
            if self.proc.poll() is not None:
                text = (self.root / "log").read_text(errors="replace")
                if "could not bind" in text or "Address already in use" in text:
                    return False
                raise RuntimeError(f"postgres exited ({self.proc.returncode}): {text[-2000:]}")
            try:
                psycopg.connect(host="127.0.0.1", port=self.port, user="brickyard", dbname="postgres",
                                connect_timeout=2).close()
                return True
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise RuntimeError("postgres did not accept connections within 60 s") from None
                time.sleep(0.2)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)     # "fast" shutdown of the postmaster we started
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=30)
        shutil.rmtree(self.root, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        # the plain form a user writes: Brickyard picks the driver it ships (psycopg 3)
        return f"postgresql://brickyard@127.0.0.1:{self.port}/{database}"

    def create_database(self) -> str:
        import sqlalchemy as sa

        name = f"t_{uuid.uuid4().hex[:12]}"
        engine = sa.create_engine(self.url().replace("postgresql://", "postgresql+psycopg://"),
                                  isolation_level="AUTOCOMMIT")
        with engine.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
        engine.dispose()
        return self.url(name)


def _sweep_stale_servers(max_age_s: float = 3600) -> None:
    """Remove data dirs this fixture left in the temp dir more than an hour ago whose server
    is gone (a test run killed before its teardown). A live server's dir is never touched."""
    for d in Path(tempfile.gettempdir()).glob("brickyard-pg-*"):
        try:
            if time.time() - d.stat().st_mtime < max_age_s or not (d / "data").is_dir():
                continue
            pidfile = d / "data" / "postmaster.pid"
            if pidfile.exists():
                pid = int(pidfile.read_text().split()[0])
                if Path(f"/proc/{pid}").exists():
                    continue
            shutil.rmtree(d, ignore_errors=True)
        except (OSError, ValueError, IndexError):
            continue


@pytest.fixture(scope="session")
def postgres_server():
    _sweep_stale_servers()
    bindir = _pg_bin()
    if bindir is None:
        _unavailable("no initdb found (apt-get install postgresql)")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        _unavailable("psycopg (3) is not installed: it is a dependency of Brickyard")
    server = PostgresServer(bindir)
    try:
        server.start()
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
        server.stop()
        _unavailable(str(exc))
    yield server
    server.stop()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'history.sqlite3'}"


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Each test runs against a real SQLite file and a real PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'history.sqlite3'}"
    return request.getfixturevalue("postgres_server").create_database()
