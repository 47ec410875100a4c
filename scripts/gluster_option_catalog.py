"""Build ``app/brickyard/core/data/gluster-options-10.3.json``: every volume option gluster 10.3
lets ``volume set`` change, with its default, description, type and the limits gluster checks.

    python scripts/gluster_option_catalog.py GLUSTERFS_GIT_DIR TAG VOLUME_GET_ALL.xml SET_HELP.xml OUT.json

Where the facts come from:
- the option names: ``gluster volume get VOL all --xml`` on a real gluster (the names it lists),
  then those ``volume set help-xml`` documents besides,
- descriptions and defaults: ``gluster volume set help-xml`` on the same gluster, else the source,
- types, limits and allowed values: the source at TAG — glusterd's option map
  (``xlators/mgmt/glusterd/src/glusterd-volume-set.c``, ``glusterd_volopt_map``) names the
  translator and its option; that translator's ``struct volume_options`` table has ``.type``,
  ``.min``/``.max``, ``.validate`` and ``.value`` (the allowed words), which glusterd's stage of
  ``volume set`` checks through ``xlator_option_validate`` (``libglusterfs/src/options.c``).
  Options that glusterd also runs a custom ``validate_fn`` on are marked with its name.

Only the generated JSON ships; this script is for regenerating it against another release.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

UNITS = {"GF_UNIT_KB": 1024, "GF_UNIT_MB": 1024**2, "GF_UNIT_GB": 1024**3, "GF_UNIT_TB": 1024**4,
         "GF_UNIT_PB": 1024**5, "INFINITY": math.inf, "UINT32_MAX": 2**32 - 1, "INT_MAX": 2**31 - 1,
         "UINT_MAX": 2**32 - 1, "INT32_MAX": 2**31 - 1, "LLONG_MAX": 2**63 - 1, "ULLONG_MAX": 2**64 - 1,
         "UINT64_MAX": 2**64 - 1, "INT64_MAX": 2**63 - 1, "SHRT_MAX": 2**15 - 1}
# voltype "a/b" -> the source directory under xlators/ holding that translator's option table
DIRS = {"cluster/distribute": ["cluster/dht"], "cluster/nufa": ["cluster/dht"], "cluster/switch": ["cluster/dht"],
        "cluster/replicate": ["cluster/afr"], "cluster/disperse": ["cluster/ec"],
        "rpc-transport/socket": ["../rpc/rpc-transport/socket"], "nfs/server": ["nfs/server"],
        "protocol/client": ["protocol/client", "../rpc/rpc-transport/socket"],
        "protocol/server": ["protocol/server", "../rpc/rpc-transport/socket"],
        "features/bit-rot": ["features/bit-rot"], "features/cdc": ["features/compress"],
        "features/marker": ["features/marker"], "features/quota": ["features/quota"],
        "features/worm": ["features/read-only"]}
# glusterd's "!NAME" options that switch a translator on or off (volgen reads them with
# gf_string2boolean); other "!" options are special-cased but keep their translator's type
SWITCHES = {"perf", "nfsperf", "features", "feat", "debug", "nufa", "switch", "shard", "utime", "xtime",
            "nfs-disable", "self-heal-daemon", "config"}
TYPES = {"GF_OPTION_TYPE_ANY": "any", "GF_OPTION_TYPE_STR": "str", "GF_OPTION_TYPE_INT": "int",
         "GF_OPTION_TYPE_SIZET": "size", "GF_OPTION_TYPE_PERCENT": "percent",
         "GF_OPTION_TYPE_PERCENT_OR_SIZET": "percent-or-size", "GF_OPTION_TYPE_BOOL": "bool",
         "GF_OPTION_TYPE_XLATOR": "xlator", "GF_OPTION_TYPE_PATH": "path", "GF_OPTION_TYPE_TIME": "time",
         "GF_OPTION_TYPE_DOUBLE": "double", "GF_OPTION_TYPE_INTERNET_ADDRESS": "address",
         "GF_OPTION_TYPE_INTERNET_ADDRESS_LIST": "address-list",
         "GF_OPTION_TYPE_PRIORITY_LIST": "priority-list", "GF_OPTION_TYPE_SIZE_LIST": "size-list",
         "GF_OPTION_TYPE_CLIENT_AUTH_ADDR": "client-auth-address"}


def git_show(repo: Path, tag: str, path: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "show", f"{tag}:{path}"], check=True,
                          capture_output=True, text=True, errors="replace").stdout


def git_files(repo: Path, tag: str, under: str) -> list[str]:
    out = subprocess.run(["git", "-C", str(repo), "ls-tree", "-r", "--name-only", tag, under],
                         check=True, capture_output=True, text=True).stdout
    return [p for p in out.splitlines() if p.endswith(".c")]


def strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"(?m)//[^\n]*$", " ", text)


def c_strings(text: str) -> str:
    """Adjacent C string literals in ``text`` joined ("a " "b" -> 'a b')."""
    return "".join(bytes(s, "utf-8").decode("unicode_escape") for s in re.findall(r'"((?:[^"\\]|\\.)*)"', text))


def code_chars(text: str, start: int = 0):
    """(index, character, nesting depth after it) of ``text`` outside C string literals;
    ``{``/``(`` open a level, ``}``/``)`` close one."""
    depth, in_str, i = 0, False, start
    while i < len(text):
        c = text[i]
        if in_str:
            if c == "\\":
                i += 1
            elif c == '"':
                in_str = False
        elif c == '"':
            in_str = True
        else:
            depth += (c in "{(") - (c in "})")
            yield i, c, depth
        i += 1


def braced(text: str, at: int) -> str:
    """What lies between the brace at ``at`` and its partner."""
    for i, c, depth in code_chars(text, at):
        if c == "}" and depth == 0:
            return text[at + 1:i]
    raise ValueError("unbalanced braces")


def entries(table: str) -> list[str]:
    """The top-level ``{...}`` initialisers inside one array's body."""
    out, start = [], None
    for i, c, depth in code_chars(table):
        if c == "{" and depth == 1:
            start = i
        elif c == "}" and depth == 0 and start is not None:
            out.append(table[start + 1:i])
            start = None
    return out


def fields(entry: str) -> dict[str, str]:
    """``.name = value`` pairs of one initialiser (values may hold braces and strings)."""
    out: dict[str, str] = {}
    for m in re.finditer(r"\.(\w+)\s*=", entry):
        end = next((i for i, c, depth in code_chars(entry, m.end()) if c == "," and depth == 0), len(entry))
        out.setdefault(m.group(1), entry[m.end():end].strip())
    return out


_STRING_MACROS: dict[str, str] = {}


_MACRO_RE = re.compile(r'(?m)^#define\s+(\w+)\s+((?:"(?:[^"\\]|\\.)*"\s*)+)$')


def load_string_macros(repo: Path, tag: str) -> None:
    """``#define NAME "text"`` from gluster's headers: option keys are often spelt as macros.
    (A name defined twice keeps the header's text; ``use_file_macros`` prefers a file's own.)"""
    out = subprocess.run(["git", "-C", str(repo), "ls-tree", "-r", "--name-only", tag],
                         capture_output=True, text=True, check=True).stdout.split()
    for path in out:
        if path.endswith(".h") and path.startswith(("libglusterfs/", "rpc/", "xlators/")):
            text = strip_comments(git_show(repo, tag, path))
            for name, value in _MACRO_RE.findall(text):
                _STRING_MACROS.setdefault(name, c_strings(value))


def use_file_macros(text: str) -> None:
    for name, value in _MACRO_RE.findall(text):
        _STRING_MACROS[name] = c_strings(value)


def strings(expr: str) -> list[str]:
    """The strings of an initialiser: literals and macros naming one (``{"a", KEY_B}``)."""
    out = []
    for literal, macro in re.findall(r'"((?:[^"\\]|\\.)*)"|\b([A-Z][A-Z0-9_]+)\b', expr):
        if macro:
            if macro in _STRING_MACROS:
                out.append(_STRING_MACROS[macro])
        else:
            out.append(literal)
    return out


def number(expr: str, macros: dict[str, float]) -> float | None:
    expr = expr.strip()
    if not expr:
        return None
    names = {**UNITS, **macros}
    py = re.sub(r"\b(\d+)[uUlL]+\b", r"\1", expr)
    try:
        value = eval(py, {"__builtins__": {}}, names)  # noqa: S307 - a C constant expression from gluster's source
    except Exception:
        return None
    return float(value)


def macros_of(text: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for name, value in re.findall(r"(?m)^#define\s+(\w+)\s+\(?([-\w\s*+/()]+?)\)?\s*$", text):
        v = number(value, out)
        if v is not None:
            out[name] = v
    return out


def option_tables(repo: Path, tag: str, directory: str) -> list[dict]:
    base = "xlators/" + directory if not directory.startswith("../") else directory[3:]
    found = []
    for path in git_files(repo, tag, base):
        text = strip_comments(git_show(repo, tag, path))
        saved = dict(_STRING_MACROS)
        use_file_macros(text)
        macros: dict[str, float] = {}
        for hpath in subprocess.run(["git", "-C", str(repo), "ls-tree", "-r", "--name-only", tag,
                                     str(Path(path).parent)], capture_output=True, text=True).stdout.split():
            if hpath.endswith(".h"):
                macros.update(macros_of(strip_comments(git_show(repo, tag, hpath))))
        macros.update(macros_of(text))
        for m in re.finditer(r"struct volume_options\s+\w+\[\]\s*=\s*\{", text):
            for entry in entries(braced(text, m.end() - 1)):
                f = fields(entry)
                keys = strings(f.get("key", ""))
                if not keys:
                    continue
                found.append({"keys": keys, "type": TYPES.get(f.get("type", "").strip(), "any"),
                              "min": number(f.get("min", ""), macros), "max": number(f.get("max", ""), macros),
                              "validate": f.get("validate", "").strip().removeprefix("GF_OPT_VALIDATE_").lower() or "both",
                              "values": strings(f.get("value", "")),
                              "default": c_strings(f.get("default_value", "")) if '"' in f.get("default_value", "") else None,
                              "description": c_strings(f.get("description", "")), "source": path})
        _STRING_MACROS.clear()
        _STRING_MACROS.update(saved)
    return found


def volopt_map(repo: Path, tag: str) -> list[dict]:
    text = strip_comments(git_show(repo, tag, "xlators/mgmt/glusterd/src/glusterd-volume-set.c"))
    start = text.index("struct volopt_map_entry glusterd_volopt_map[] = {")
    out = []
    for entry in entries(braced(text, text.index("{", start))):
        f = fields(entry)
        key = "".join(strings(f.get("key", "")))
        if not key:
            continue
        out.append({"key": key, "voltype": c_strings(f.get("voltype", "")),
                    "option": c_strings(f.get("option", "")) if '"' in f.get("option", "") else "",
                    "value": c_strings(f.get("value", "")) if '"' in f.get("value", "") else None,
                    "doc": f.get("type", "DOC").strip(), "validate_fn": f.get("validate_fn", "").strip(),
                    "xlator_switch": "VOLOPT_FLAG_XLATOR_OPT" in f.get("flags", ""),
                    "description": c_strings(f.get("description", ""))})
    return out


def tidy(x: float) -> float | int:
    return int(x) if float(x).is_integer() else x


def main(repo: Path, tag: str, get_all: Path, set_help: Path, out: Path) -> int:
    load_string_macros(repo, tag)
    got = ET.parse(get_all).getroot()
    names = list(dict.fromkeys(o.findtext("Option") for o in got.iter("Opt")))
    defaults_now = {o.findtext("Option"): (o.findtext("Value") or "") for o in got.iter("Opt")}
    help_xml = {o.findtext("name"): (o.findtext("defaultValue"), o.findtext("description") or "")
                for o in ET.parse(set_help).getroot().iter("option")}
    names += [n for n in help_xml if n not in names]  # documented ones `volume get` leaves out (nfs.*)
    vmap: dict[str, list[dict]] = {}
    for e in volopt_map(repo, tag):
        vmap.setdefault(e["key"], []).append(e)
    tables: dict[str, list[dict]] = {}

    def table_for(voltype: str) -> list[dict]:
        if voltype not in tables:
            dirs = DIRS.get(voltype, [voltype])
            tables[voltype] = [o for d in dirs for o in option_tables(repo, tag, d)]
        return tables[voltype]

    def spec_of(entry: dict, name: str) -> dict | None:
        option = entry["option"] or name.rsplit(".", 1)[-1]
        switch = option.startswith("!") and option[1:] in SWITCHES
        option = option.lstrip("!")
        spec = None
        if entry["voltype"] and "/" in entry["voltype"]:
            spec = next((o for o in table_for(entry["voltype"]) if option in o["keys"]), None)
        if spec is not None:
            return {**spec, "key": option}
        if switch or entry.get("xlator_switch") or entry["validate_fn"] == "validate_boolean":
            return {"type": "bool", "values": [], "min": None, "max": None, "validate": "both", "key": option,
                    "default": None, "description": "", "source": "xlators/mgmt/glusterd/src/glusterd-volume-set.c"}
        return None

    catalog, unresolved = [], []
    for name in names:
        entries_ = vmap.get(name) or [{"voltype": "", "option": "", "value": None, "doc": "", "validate_fn": "",
                                       "description": "", "xlator_switch": False}]
        entry = entries_[0]
        specs = [sp for sp in (spec_of(e, name) for e in entries_) if sp is not None]
        spec = specs[0] if specs else None
        if len(specs) > 1:
            # one key for several translators (performance.cache-size: io-cache and quick-read):
            # glusterd checks it only against those in the graph, so keep the laxest limits
            los = [sp["min"] or 0 for sp in specs]
            his = [math.inf if sp["max"] in (None, 0) and sp["min"] else (sp["max"] or 0) for sp in specs]
            spec = {**spec, "min": min(los), "max": max(his) if all(his) else None,
                    "values": spec["values"] if all(sp["values"] == spec["values"] for sp in specs) else [],
                    "source": ", ".join(dict.fromkeys(sp["source"] for sp in specs))}
            if len({sp["type"] for sp in specs}) > 1:
                spec["type"] = "any"
        help_default, help_text = help_xml.get(name, (None, ""))
        now = defaults_now.get(name, "").removesuffix(" (DEFAULT)").strip()
        row = {"name": name, "type": spec["type"] if spec else "any",
               "default": help_default if help_default not in (None, "(null)") else (
                   entry["value"] or (spec["default"] if spec else None) or (now if now != "(null)" else None)),
               "description": help_text or (spec["description"] if spec else "") or entry["description"],
               "documented": name in help_xml}
        if entry["doc"].startswith("GLOBAL"):
            row["global"] = True  # glusterd takes it only as `volume set all KEY VALUE`
        if spec:
            row["key"] = spec["key"]
            if spec["values"]:
                row["values"] = spec["values"]
            lo, hi = spec["min"], spec["max"]
            if lo or hi:
                row["min"] = tidy(lo or 0)
                row["max"] = "infinity" if hi is not None and math.isinf(hi) else tidy(hi or 0)
                if spec["validate"] != "both":
                    row["validate"] = spec["validate"]
            row["source"] = spec["source"]
        else:
            unresolved.append(f"{name} ({entry['voltype'] or 'not in the map'})")
        if entry["validate_fn"]:
            row["validate_fn"] = entry["validate_fn"]
        catalog.append(row)
    out.write_text(json.dumps({"gluster": tag.lstrip("v"), "generated_by": "scripts/gluster_option_catalog.py",
                               "options": catalog}, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(catalog)} options, {len(catalog) - len(unresolved)} typed from the source; untyped:",
          *unresolved, sep="\n  ", file=sys.stderr)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 6:
        print(__doc__, file=sys.stderr)
        raise SystemExit(2)
    raise SystemExit(main(Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4]), Path(sys.argv[5])))
