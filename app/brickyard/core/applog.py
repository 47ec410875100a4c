"""The log file: SSH and run events of the app and the CLI, rotated, never a secret.

``setup()`` (called once by ``brickyard`` and ``brickyard-gui``) writes the ``brickyard``
loggers to ``user_log_dir()/brickyard.log``, rotated at 1 MiB with five old files kept
(``brickyard.log.1`` … ``.5``). What goes there: each SSH login (where, as whom, how it
ended), host keys accepted or refused, every line a run, provisioning, teardown or campaign
shows in its log (``remote.loop.Progress.log``), run starts and ends, and unexpected errors
with their traceback. ``BRICKYARD_LOG_LEVEL=debug`` adds each remote command line.

Secrets never reach the file: passwords and passphrases are never passed to a logger, and a
filter on the handler masks what could carry one anyway (``password=…``, the password in a
``scheme://user:password@host`` URL, a private key block).
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import re
import sys
from pathlib import Path

from .paths import user_log_dir

LOG_NAME = "brickyard.log"
MAX_BYTES = 1 << 20
BACKUPS = 5
LEVEL_ENV = "BRICKYARD_LOG_LEVEL"
FORMAT = "%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"

_MASKS = (
    # user:password@ in URLs (a PostgreSQL history URL, an NFS or HTTP address)
    (re.compile(r"(?P<keep>[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]+:)[^@\s/]+(?=@)"), r"\g<keep>***"),
    # password=..., passphrase: ..., PGPASSWORD=..., "password": "..."
    (re.compile(r"(?i)(?P<keep>\b[\w-]*(?:password|passphrase|passwd|secret|token)[\w-]*[\"']?\s*[=:]\s*[\"']?)"
                r"[^\s\"',;&]+"), r"\g<keep>***"),
    (re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(-----END [A-Z ]*PRIVATE KEY-----|$)", re.S),
     "[private key removed]"),
)


def mask_secrets(text: str) -> str:
    for pattern, replacement in _MASKS:
        text = pattern.sub(replacement, text)
    return text


class SecretFilter(logging.Filter):
    """Masks secrets in the formatted message (and any traceback) before it is written."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a bad format string must not lose the record
            message = str(record.msg)
        record.msg, record.args = mask_secrets(message), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = mask_secrets(record.exc_text)
        return True


class _PrivateRotatingFile(logging.handlers.RotatingFileHandler):
    """Every log file (the first and each one after a rotation) readable by its user only."""

    def _open(self):
        fd = os.open(self.baseFilename, os.O_CREAT | os.O_APPEND | os.O_WRONLY, 0o600)
        return os.fdopen(fd, self.mode.replace("w", "a"), encoding=self.encoding, errors=self.errors)


def log_path() -> Path:
    return user_log_dir() / LOG_NAME


_handler: logging.Handler | None = None


def setup(component: str = "") -> Path | None:
    """Log to the rotating file (once per process); the file's path, or None when the folder
    cannot be made (the app runs on; ``problem()`` says why)."""
    global _handler, _problem
    path = log_path()
    if _handler is not None:
        return path
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        handler: logging.Handler = _PrivateRotatingFile(path, maxBytes=MAX_BYTES, backupCount=BACKUPS,
                                                        encoding="utf-8", delay=True)
    except OSError as exc:
        _problem = f"cannot write the log in {path.parent}: {exc.strerror or exc}"
        return None
    handler.setFormatter(logging.Formatter(FORMAT))
    handler.addFilter(SecretFilter())
    level = getattr(logging, os.environ.get(LEVEL_ENV, "info").upper(), logging.INFO)
    handler.setLevel(level)
    root = logging.getLogger("brickyard")
    root.addHandler(handler)
    root.setLevel(min(level, logging.INFO))
    # asyncssh logs every channel at INFO: only its warnings are worth keeping
    logging.getLogger("asyncssh").setLevel(logging.WARNING)
    logging.getLogger("asyncssh").addHandler(handler)
    _handler = handler
    logging.getLogger("brickyard").info("%s started: Brickyard %s, Python %s, pid %d, %s",
                                        component or Path(sys.argv[0]).name, _version(),
                                        sys.version.split()[0], os.getpid(),
                                        "frozen bundle" if getattr(sys, "frozen", False) else sys.prefix)
    return path


_problem = ""


def problem() -> str:
    return _problem


def _version() -> str:
    from .. import __version__

    return __version__
