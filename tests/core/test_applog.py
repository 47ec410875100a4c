"""The log file: rotated, in the user's log folder, and never a secret in it."""

import logging

from brickyard.core import applog


def test_secrets_are_masked_whatever_carries_them():
    line = applog.mask_secrets(
        "history postgresql://alice:s3cret@db.example/brickyard; PGPASSWORD=hunter2 pgbench; "
        '{"password": "pa ss"}; passphrase: topsecret; -----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn\n'
        "-----END OPENSSH PRIVATE KEY----- after")
    for secret in ("s3cret", "hunter2", "topsecret", "b3Blbn"):
        assert secret not in line
    assert "postgresql://alice:***@db.example/brickyard" in line
    assert "PGPASSWORD=***" in line and "[private key removed] after" in line


def test_the_log_goes_to_the_state_folder_rotates_and_masks(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setattr(applog, "_handler", None)
    monkeypatch.setattr(applog, "MAX_BYTES", 2000)
    root = logging.getLogger("brickyard")
    before = list(root.handlers)
    try:
        path = applog.setup("test")
        assert path == tmp_path / "state" / "brickyard" / "log" / "brickyard.log"
        log = logging.getLogger("brickyard.remote.ssh")
        log.info("ssh node1 (root@10.0.0.1:22): connected with password=%s", "hunter2")
        for i in range(60):
            log.info("line %d %s", i, "x" * 60)
        everything = "".join(p.read_text() for p in sorted(path.parent.glob("brickyard.log*")))
        assert "connected with password=***" in everything and "hunter2" not in everything
        assert (path.parent / "brickyard.log.1").exists()          # rotated
        assert len(list(path.parent.glob("brickyard.log*"))) <= 1 + applog.BACKUPS
        assert oct(path.stat().st_mode & 0o777) == "0o600"
    finally:
        for handler in root.handlers:
            if handler not in before:
                root.removeHandler(handler)
                handler.close()
        logging.getLogger("asyncssh").handlers.clear()
