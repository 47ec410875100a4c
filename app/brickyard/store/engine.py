"""Opening a history database and bringing its schema up to date.

SQLite files get WAL (readers never block the writer), foreign keys, a busy timeout, and
``synchronous=FULL`` (a committed batch survives a power cut, not only a killed process).
Python's sqlite3 module is told to leave transactions to us, so every write transaction is
``BEGIN IMMEDIATE``: two app instances on one file queue for the write lock instead of
failing half-way through a batch.

Migrations (Alembic scripts shipped inside the package, no alembic.ini) run at start-up
inside one transaction that holds a lock (SQLite: the write lock; PostgreSQL: an advisory
lock), so two instances starting at once migrate once. Alembic (with Mako and Pygments, a
second of imports) loads only when a migration is due: a database already at the newest
revision is recognised by reading its ``alembic_version`` row against the revision ids the
shipped scripts declare.

A SQLite file Brickyard cannot write (its permissions, its folder's, a read-only filesystem)
is opened read-only for the commands that only read (``read_only=True``; ``read_only_reason``
says why in words), and text that is not valid UTF-8 reads back as ``BadText`` (a ``str``
with U+FFFD in place of the bad bytes) instead of failing the whole query, so the history's
readers can take the rows they can and name the others.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import time
import re
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from sqlalchemy import Engine, create_engine, event, inspect, text
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError
from sqlalchemy.pool import StaticPool

from brickyard.core.units import format_bytes

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS = Path(__file__).with_name("migrations")
BUSY_TIMEOUT_MS = 30_000
_PG_MIGRATION_LOCK = 0x62726B79  # "brky"
IMMEDIATE = "brickyard_immediate"  # execution option: take the SQLite write lock at BEGIN


class DatabaseError(RuntimeError):
    """A database Brickyard cannot use, with the reason in words."""


class BadText(str):
    """Text stored in SQLite that is not valid UTF-8, decoded with U+FFFD for the bad bytes."""


def _decode_text(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return BadText(raw.decode("utf-8", "replace"))


def sqlite_file(url: str) -> Path | None:
    """The file of a SQLite URL (None for another database or an in-memory one)."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        return None
    if parsed.get_backend_name() != "sqlite" or not parsed.database or parsed.database == ":memory:":
        return None
    if parsed.database.startswith("file:"):
        return None
    return Path(parsed.database).expanduser()


def read_only_reason(url: str) -> str:
    """Why this process cannot write the SQLite history at ``url``, in words ('' when it can,
    when the file does not exist yet, or for another database)."""
    path = sqlite_file(url)
    if path is None:
        return ""
    folder = path.parent
    if not path.exists():
        if folder.is_dir() and not os.access(folder, os.W_OK | os.X_OK):
            return f"the folder {folder} is read-only, so no history database can be made in it"
        return ""
    try:
        if os.statvfs(path).f_flag & os.ST_RDONLY:
            return f"{path} is on a read-only filesystem"
    except OSError:
        pass
    if not os.access(path, os.W_OK):
        return f"{path} is read-only (its permissions do not let you write it)"
    if not os.access(folder, os.W_OK | os.X_OK):
        return (f"the folder {folder} is read-only, and SQLite writes its journal files "
                f"({path.name}-wal, {path.name}-shm) beside the database")
    return ""


def create_history_engine(url: str, *, create_folder: bool = False, read_only: bool = False) -> Engine:
    """An engine for ``url``. A SQLite file's folder must exist, unless ``create_folder``
    (the default location in the user data directory, which Brickyard owns): a mistyped
    ``--db sqlite:////nonexistent/x/y.db`` must not make folders under /. A plain
    ``postgresql://`` URL uses psycopg 3, the driver Brickyard ships. ``read_only`` opens a
    SQLite file so that nothing is written, not even its journal (``mode=ro``; where SQLite
    could not make its shared-memory file either, ``immutable=1``)."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise DatabaseError(f"not a database URL: {url!r} (write e.g. sqlite:////path/history.sqlite3 "
                            "or postgresql://user@host/brickyard)") from None
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    kwargs: dict = {}
    is_sqlite = parsed.get_backend_name() == "sqlite"
    if is_sqlite:
        if parsed.database and parsed.database != ":memory:":
            folder = Path(parsed.database).expanduser().parent
            if create_folder:
                folder.mkdir(parents=True, exist_ok=True)
            elif not folder.is_dir():
                raise DatabaseError(f"{url}: the folder {folder} does not exist; create it first or choose "
                                    "another --db (Brickyard creates folders only for its default history)")
            kwargs["connect_args"] = {"timeout": BUSY_TIMEOUT_MS / 1000}
            if read_only:
                path = Path(parsed.database).expanduser().resolve()
                shm, wal = path.with_name(path.name + "-shm"), path.with_name(path.name + "-wal")
                # SQLite reads a WAL file read-only only where its -shm exists or can be made;
                # immutable is safe when there is no -wal with commits it would miss
                immutable = not shm.exists() and not os.access(path.parent, os.W_OK) and \
                    not (wal.exists() and wal.stat().st_size > 0)
                parsed = parsed.set(database=f"file:{quote(str(path))}",
                                    query={"mode": "ro", "uri": "true", **({"immutable": "1"} if immutable else {})})
        else:   # one in-memory database shared by every use of this engine (tests, demos)
            kwargs["connect_args"] = {"check_same_thread": False}
            kwargs["poolclass"] = StaticPool
    else:
        kwargs["pool_pre_ping"] = True
    try:
        engine = create_engine(parsed, **kwargs)
    except (NoSuchModuleError, ImportError) as exc:
        raise DatabaseError(f"no driver for {parsed.drivername!r}: {exc}") from None
    if is_sqlite:
        _configure_sqlite(engine, read_only=read_only)
    return engine


def free_space_note(url: str) -> str:
    """For a SQLite file on a (nearly) full file system: " (the file system holding FILE has
    N free)", so "disk I/O error" reads as what it is; "" otherwise."""
    try:
        parsed = make_url(url)
        if parsed.get_backend_name() != "sqlite" or not parsed.database or parsed.database == ":memory:":
            return ""
        path = Path(parsed.database).expanduser()
        free = shutil.disk_usage(path.parent).free
    except (ArgumentError, OSError, ValueError):
        return ""
    if free >= 4 << 20:
        return ""
    return f" (the file system holding {path} has {format_bytes(free)} free)"


def _configure_sqlite(engine: Engine, read_only: bool = False) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn, _record) -> None:  # noqa: ANN001
        dbapi_conn.isolation_level = None  # we emit BEGIN ourselves
        dbapi_conn.text_factory = _decode_text
        cur = dbapi_conn.cursor()
        cur.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if not read_only:
            _enter_wal(cur)
        cur.execute("PRAGMA foreign_keys = ON")
        cur.execute("PRAGMA synchronous = FULL")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        immediate = conn.get_execution_options().get(IMMEDIATE, False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def _enter_wal(cur: sqlite3.Cursor) -> None:
    """Switch the file to WAL (a persistent setting, so once per file), waiting out other
    instances. Two instances opening a new file at once both try the switch; SQLite then
    answers one of them "database is locked" at once instead of calling the busy handler
    (waiting could deadlock), so the wait is done here, up to the busy timeout."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    delay = 0.005
    while True:
        try:
            cur.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
        time.sleep(delay)
        delay = min(delay * 2, 0.1)


def _alembic_config(conn: Connection | None = None) -> Config:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["connection"] = conn
    return cfg


def head_revision() -> str:
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(_alembic_config()).get_current_head()
    assert head is not None, "no migration scripts shipped"
    return head


def current_revision(engine: Engine) -> str | None:
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


_DECLARED = re.compile(r"^(down_revision|revision)\s*(?::[^=\n]*)?=\s*(.*?)\s*(?:#.*)?$", re.M)


@lru_cache(maxsize=1)
def shipped_head() -> str | None:
    """The newest revision the shipped scripts declare (``revision = "…"`` and
    ``down_revision = …`` in migrations/versions), read without Alembic; None when the
    scripts do not make one plain line (a merge, a form this reader does not know): then
    Alembic decides."""
    revisions: dict[str, str | None] = {}
    for script in sorted((MIGRATIONS / "versions").glob("*.py")):
        declared = dict(m.groups() for m in _DECLARED.finditer(script.read_text(encoding="utf-8")))
        rev, down = declared.get("revision", ""), declared.get("down_revision", "")
        if not re.fullmatch(r"""(["'])[\w.-]+\1""", rev) or not re.fullmatch(r"""None|(["'])[\w.-]+\1""", down):
            return None
        revisions[rev[1:-1]] = None if down == "None" else down[1:-1]
    heads = set(revisions) - set(revisions.values())
    roots = [r for r, down in revisions.items() if down is None]
    if len(heads) != 1 or len(roots) != 1 or not set(revisions.values()) - {None} <= set(revisions):
        return None
    return heads.pop()


def at_newest_schema(engine: Engine) -> bool:
    """The database holds this Brickyard's newest schema (read only: a read-only history is
    read only when no migration is due)."""
    return _at_shipped_head(engine) or current_revision(engine) == head_revision()


def _at_shipped_head(engine: Engine) -> bool:
    """Whether the database's ``alembic_version`` holds exactly the shipped head (read
    without Alembic: the table and its one row as Alembic writes them)."""
    head = shipped_head()
    if head is None:
        return False
    with engine.connect() as conn:
        if not inspect(conn).has_table("alembic_version"):
            return False
        rows = conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
    return rows == [head]


def migrate(engine: Engine, target: str = "head") -> None:
    """Upgrade the schema to ``target`` (a revision id or "head"), under a migration lock.
    At the shipped head already: nothing to do, and Alembic is not loaded."""
    if target == "head" and _at_shipped_head(engine):
        return
    from alembic import command
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    known = {script.revision for script in ScriptDirectory.from_config(_alembic_config()).walk_revisions()}
    with engine.connect() as plain:
        conn = plain.execution_options(**{IMMEDIATE: True})
        with conn.begin():
            if conn.dialect.name == "postgresql":
                conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_MIGRATION_LOCK})
            current = MigrationContext.configure(conn).get_current_revision()
            if current is not None and current not in known:
                raise DatabaseError(
                    f"{engine.url.render_as_string(hide_password=True)}: the history schema is at revision "
                    f"{current!r}, which this Brickyard does not know; it was written by a newer version "
                    "(upgrade Brickyard, or use another --db)")
            command.upgrade(_alembic_config(conn), target)
