"""What a host name, an SSH address and an SSH user may look like: one rule for the fields that
take them and for the SSH layer that reads them (``remote.ssh.check_host_name``).

The SSH layer refuses anything but letters, digits and ``. - _ % :`` (no leading ``-``: it
would read as an option), so a field must not accept "-5" or "10.71.0.1 01" only for a run to
fail later. The fields are a little stricter than the SSH layer, where a text cannot be what
it looks like: a dotted quad that is not an IPv4 address ("10.71.0.256"), a colon that is not
an IPv6 address ("node1:2222", the port belongs in its own field).
"""

from __future__ import annotations

import ipaddress
import re

# what an SSH host alias, DNS name or IP address can look like; anything else is refused
# before it reaches a resolver, a config lookup or a log line
HOST_RE = re.compile(r"^(?!-)[A-Za-z0-9_.%:\-]{1,253}$")
USER_RE = re.compile(r"^(?!-)[A-Za-z0-9_.@\-]{1,64}$")
HOST_CHARS = "letters, digits, '.', '-', '_', ':' only"
_DOTTED = re.compile(r"^[0-9.]+$")


def host_problem(text: str, what: str = "an SSH address") -> str | None:
    """Why ``text`` cannot be a host name or address (None when it can)."""
    if not text:
        return f"{what} cannot be empty"
    if any(ch.isspace() for ch in text):
        return f"{text!r}: {what} holds no spaces (one host name or address)"
    if text.startswith("-"):
        return f"{text!r}: {what} cannot start with '-'"
    if not HOST_RE.match(text):
        return f"{text!r} is not a host name or address ({HOST_CHARS})"
    if _DOTTED.match(text) and "." in text:
        try:
            ipaddress.IPv4Address(text)
        except ValueError:
            return f"{text!r} is not an IPv4 address (four numbers from 0 to 255, as 10.0.0.1)"
    if ":" in text:
        try:
            ipaddress.IPv6Address(text.split("%", 1)[0])
        except ValueError:
            return (f"{text!r} is not an IPv6 address; a port goes in the SSH port field, "
                    "not after the host")
    return None


def user_problem(text: str) -> str | None:
    """Why ``text`` cannot be an SSH user name (None when it can)."""
    if not text:
        return "an SSH user cannot be empty"
    if not USER_RE.match(text):
        return f"{text!r} is not a user name (letters, digits, '.', '_', '-', '@'; not starting with '-')"
    return None
