"""SSH passwords live only in the OS keyring (service ``brickyard``), keyed ``user@host:port``.

Nothing else in Brickyard stores, logs or reports a password: topology files carry user
names only, and the executor hands the password straight from the keyring to asyncssh.
"""

from __future__ import annotations

import keyring
import keyring.errors

SERVICE = "brickyard"


class KeyringUnavailable(RuntimeError):
    """No usable OS keyring: Brickyard then refuses to keep a password at all."""


def label(user: str, host: str, port: int) -> str:
    return f"{user}@{host}:{port}"


# Backends do not all wrap their failures in KeyringError (a D-Bus or Secret Service error can
# come through as is); any failure means "no usable keyring", never a lost login.

def get_password(key: str) -> str | None:
    try:
        return keyring.get_password(SERVICE, key)
    except Exception:
        return None


def set_password(key: str, password: str) -> None:
    try:
        keyring.set_password(SERVICE, key, password)
    except Exception as exc:
        raise KeyringUnavailable(
            f"cannot store the password for {key}: no usable OS keyring ({exc}). "
            "Use ssh-agent or a key file instead; Brickyard never writes passwords to files."
        ) from exc


def forget_password(key: str) -> bool:
    try:
        keyring.delete_password(SERVICE, key)
        return True
    except keyring.errors.PasswordDeleteError:
        return False
    except keyring.errors.KeyringError as exc:
        raise KeyringUnavailable(f"cannot reach the OS keyring: {exc}") from exc
