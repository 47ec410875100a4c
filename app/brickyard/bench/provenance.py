"""What Brickyard records about the hosts and the volume so two runs can be compared:
kernel, OS, gluster version, mount type and options, ``volume info --xml``."""

from __future__ import annotations

import re
from typing import Any

from defusedxml import ElementTree

from ..remote.executor import Executor


async def _out(ex: Executor, argv: list[str], timeout: float = 20) -> str:
    try:
        res = await ex.run(argv, timeout=timeout)
    except Exception:  # noqa: BLE001 - provenance is best effort, never fails a run
        return ""
    return res.text.strip() if res.ok else ""


async def host_facts(ex: Executor) -> dict[str, str]:
    """Kernel, hostname, OS and gluster client version of one host."""
    facts = {
        "kernel": await _out(ex, ["uname", "-r"]),
        "hostname": await _out(ex, ["uname", "-n"]),
        "os": "",
        "gluster": "",
        "cpus": await _out(ex, ["nproc"]),
    }
    release = await _out(ex, ["cat", "/etc/os-release"])
    for line in release.splitlines():
        if line.startswith("PRETTY_NAME="):
            facts["os"] = line.split("=", 1)[1].strip('"')
    # glusterfs lives in /usr/sbin, which a non-root login's PATH leaves out
    version = await _out(ex, ["sh", "-c", 'PATH="$PATH:/usr/sbin:/sbin"; exec glusterfs --version'])
    if version:
        facts["gluster"] = version.splitlines()[0]
    return facts


async def mount_of(ex: Executor, path: str) -> dict[str, str]:
    """``{"fstype", "source", "options", "target"}`` of the mount holding ``path``."""
    text = await _out(ex, ["findmnt", "-n", "-P", "-o", "FSTYPE,SOURCE,OPTIONS,TARGET", "--target", path])
    return parse_findmnt_pairs(text.splitlines()[0]) if text else {}


_PAIR = re.compile(r'([A-Za-z0-9_:%-]+)="([^"]*)"')
_HEX = re.compile(rb"\\x([0-9a-fA-F]{2})")


def parse_findmnt_pairs(line: str) -> dict[str, str]:
    """One line of ``findmnt -P`` (``KEY="value" …``, keys lower-cased). findmnt writes
    ``$``, a backquote, ``"``, ``\\``, control characters and non-ASCII bytes as ``\\xHH``;
    they are decoded here, so a mount point holding them reads back as it is."""
    out: dict[str, str] = {}
    for key, raw in _PAIR.findall(line):
        data = _HEX.sub(lambda m: bytes([int(m.group(1), 16)]), raw.encode("utf-8", "surrogateescape"))
        out[key.lower()] = data.decode("utf-8", "surrogateescape")
    return out


def target_kind(fstype: str) -> str:
    if fstype.startswith("fuse.glusterfs") or fstype == "glusterfs":
        return "gluster"
    if fstype == "tmpfs":
        return "tmpfs"
    if fstype.startswith("nfs"):
        return "nfs"
    return "local" if fstype else "unknown"


def parse_volume_info(xml_text: str) -> dict[str, Any]:
    """Layout facts from ``gluster volume info VOL --xml`` (first volume)."""
    root = ElementTree.fromstring(xml_text.encode() if isinstance(xml_text, str) else xml_text)
    vol = root.find("./volInfo/volumes/volume")
    if vol is None:
        raise ValueError("no <volume> in the volume info XML")

    def num(tag: str) -> int:
        text = vol.findtext(tag) or "0"
        return int(text) if text.strip().isdigit() else 0

    options = {o.findtext("name") or "": o.findtext("value") or "" for o in vol.findall("./options/option")}
    return {
        "name": vol.findtext("name") or "",
        "type": vol.findtext("typeStr") or "",
        "bricks": [b.findtext("name") or (b.text or "").strip() for b in vol.findall("./bricks/brick")],
        "replica": num("replicaCount"),
        "arbiter": num("arbiterCount"),
        "disperse": num("disperseCount"),
        "redundancy": num("redundancyCount"),
        "distribute": num("distCount"),
        "options": options,
    }


def parse_volume_get(xml_text: str) -> dict[str, str]:
    """Every option of ``gluster volume get VOL all --xml`` with its value as gluster prints
    it ("on (DEFAULT)" for a default, "off" for a value set)."""
    root = ElementTree.fromstring(xml_text.encode() if isinstance(xml_text, str) else xml_text)
    opts = root.find("./volGetopts")
    if opts is None:
        raise ValueError("no <volGetopts> in the volume get XML")
    return {(o.findtext("Option") or "").strip(): (o.findtext("Value") or "").strip()
            for o in opts.findall("./Opt") if (o.findtext("Option") or "").strip()}
