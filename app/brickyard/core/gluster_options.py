"""Gluster's volume options: names to complete, defaults and descriptions to show, and the
value checks glusterd runs when staging ``gluster volume set``.

The catalog (``data/gluster-options-10.3.json``) lists every option gluster 10.3 reports in
``volume get VOL all``; ``scripts/gluster_option_catalog.py`` builds it from that output,
``volume set help-xml`` and the translators' option tables in the 10.3 source. The checks
below follow ``xlator_option_validate`` (``libglusterfs/src/options.c``) and the string
parsers it calls (``libglusterfs/src/common-utils.c``) type by type, and their messages are
gluster's own (checked against the lab in ``tests/e2e/test_volume_options_lab.py``).

Besides the catalog, gluster takes any option in the ``user.`` namespace (``fnmatch("user.*")``,
case-sensitive: ``GD_HOOKS_SPECIFIC_KEY`` in glusterd-hooks.h). glusterd skips every check for
them (``glusterd_op_stage_set_volume``), keeps them with the volume for hook scripts, and its
CLI passes their value verbatim (``cli_cmd_volume_set_parse`` drops the whitespace of every
other option's value). No other namespace is generic in 10.3. What gluster takes but cannot
keep is refused here, each seen on the lab: a ``key=value`` pair longer than glusterd's
4093-byte store buffer (``_storeopts`` in glusterd-store.c: 5,000 characters crashed glusterd),
a new line in a value (the next glusterd start cannot restore the volume, so glusterd exits),
``=`` in a ``user.`` name (read back after a restart as a different option).

Two limits of a check made before the volume exists: glusterd validates a value only against
the translators in the volume's graph (``performance.io-cache-size`` is not checked while
io-cache is off), and some options also run a custom ``validate_fn`` that needs the live
volume; those that matter for planning (replica-only, disperse-only, quorum-count) are
checked here from the layout.
"""

from __future__ import annotations

import fnmatch
import json
import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from .topology import Layout

CATALOG_FILE = Path(__file__).with_name("data") / "gluster-options-10.3.json"
GLUSTER_VERSION = "10.3"

_UNITS = {"kb": 1024, "mb": 1024**2, "gb": 1024**3, "tb": 1024**4, "pb": 1024**5}
_BOOL_WORDS = {"1", "on", "yes", "true", "enable", "0", "off", "no", "false", "disable"}
_TIME_UNITS = {"": 1, "s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "hr": 3600, "d": 86400,
               "days": 86400, "w": 604800, "wk": 604800}
_LONG_MAX = 2**63 - 1
# the only namespace gluster 10.3 takes without a catalog entry (GD_HOOKS_SPECIFIC_KEY "user.*")
USER_PREFIX = "user."
# glusterd-store.c _storeopts: "key=value\n" and its NUL go into a VOLINFO_BUFFER_SIZE (4093)
# byte buffer, so key and value together may hold 4090 bytes
STORE_PAIR_MAX = 4093 - 3
# isspace() in the C locale: what the CLI drops from a value (gf_strip_whitespace)
_C_SPACE = " \t\n\v\f\r"
# options glusterd refuses on a volume whose layout does not use them (validate_replica,
# validate_disperse in glusterd-volume-set.c)
_REPLICA_ONLY = "validate_replica"
_DISPERSE_ONLY = "validate_disperse"


@dataclass(frozen=True)
class OptionSpec:
    """One gluster volume option as the catalog describes it."""

    name: str
    type: str = "any"
    default: str | None = None
    description: str = ""
    documented: bool = False
    key: str = ""  # the translator's own name for it, as gluster's messages print it
    values: tuple[str, ...] = ()
    min: float = 0.0
    max: float = 0.0
    validate: str = "both"  # "min": only a lower bound; "max": only an upper one
    global_only: bool = False
    validate_fn: str = ""
    source: str = ""

    @property
    def kind_text(self) -> str:
        """What kind of value it takes, for a tooltip: 'on/off', 'one of none, auto, fixed', …"""
        if self.type == "user":
            return "any text, kept exactly as typed"
        if self.values:
            return "one of " + ", ".join(self.values)
        text = {"bool": "on/off", "int": "a whole number", "size": "a size (e.g. 64MB)",
                "percent": "a percentage (e.g. 10%)", "percent-or-size": "a percentage or a size (10% or 5GB)",
                "time": "a time in seconds (or 10m, 2h, 1d)", "double": "a number", "path": "an absolute path",
                "address-list": "addresses or host names, comma-separated"}.get(self.type, "text")
        if self.min or self.max:
            hi = "∞" if math.isinf(self.max) else f"{self.max:g}"
            text += f" from {self.min:g} to {hi}" if self.validate == "both" else (
                f", at least {self.min:g}" if self.validate == "min" else f", at most {hi}")
        return text


@dataclass
class OptionCheck:
    """What gluster would say to ``volume set VOL NAME VALUE``: ``problem`` is its refusal
    (None: accepted); ``notes`` are things worth knowing that are not refusals."""

    name: str
    value: str
    problem: str | None = None
    notes: list[str] = field(default_factory=list)
    spec: OptionSpec | None = None

    @property
    def ok(self) -> bool:
        return self.problem is None


@lru_cache(maxsize=1)
def catalog() -> dict[str, OptionSpec]:
    """Every option gluster 10.3 knows, by name, in gluster's own order."""
    data = json.loads(CATALOG_FILE.read_text(encoding="utf-8"))
    out: dict[str, OptionSpec] = {}
    for row in data["options"]:
        hi = row.get("max", 0)
        out[row["name"]] = OptionSpec(
            name=row["name"], type=row.get("type", "any"), default=row.get("default"),
            description=row.get("description", ""), documented=bool(row.get("documented")),
            key=row.get("key", row["name"].rsplit(".", 1)[-1]), values=tuple(row.get("values", ())),
            min=float(row.get("min", 0)), max=math.inf if hi == "infinity" else float(hi),
            validate=row.get("validate", "both"), global_only=bool(row.get("global")),
            validate_fn=row.get("validate_fn", ""), source=row.get("source", ""))
    return out


def option_names() -> list[str]:
    """The names a user may set on one volume (cluster-wide ones are left out)."""
    return [name for name, spec in catalog().items() if not spec.global_only]


def is_user_option(name: str) -> bool:
    """A name in gluster's ``user.`` namespace (exactly as typed: gluster neither strips nor
    folds the case of a name)."""
    return name.startswith(USER_PREFIX)


def user_option_spec(name: str) -> OptionSpec:
    return OptionSpec(
        name=name, type="user", key=name, source="glusterd-hooks.h (GD_HOOKS_SPECIFIC_KEY user.*)",
        description="A custom option in gluster's user.* namespace: glusterd stores it with the volume "
                    "(volume info lists it, volume get VOL NAME reads it) and hands it to hook scripts "
                    "(gluster's Samba hooks read user.smb and user.cifs); no translator reads it. glusterd "
                    "checks nothing about it. gluster 10.3 cannot reset one alone: volume reset VOL (every "
                    "option) removes it.")


def lookup(name: str) -> OptionSpec | None:
    if is_user_option(name):
        return user_option_spec(name)
    return catalog().get(name.strip())


def complete(text: str, limit: int = 50) -> list[str]:
    """Option names for what the user has typed: names starting with it first, then names
    with a part starting with it ('cache-s' finds performance.cache-size), then names holding it."""
    text = text.strip().lower()
    names = option_names()
    if not text:
        return names[:limit]
    starts = [n for n in names if n.lower().startswith(text)]
    parts = [n for n in names if n not in starts and any(p.startswith(text) for p in re.split(r"[.\-]", n.lower()))]
    inside = [n for n in names if n not in starts and n not in parts and text in n.lower()]
    return (starts + parts + inside)[:limit]


def resolve_name(name: str) -> str | None:
    """The full option name for ``name``: itself, or the one option whose last part it is
    (gluster takes ``cache-size`` for ``performance.cache-size`` when that is unambiguous)."""
    if is_user_option(name):
        return name
    name = name.strip()
    if name in catalog():
        return name
    if "." not in name:
        tails = [n for n in catalog() if n.rsplit(".", 1)[-1] == name]
        if len(tails) == 1:
            return tails[0]
    return None


# ---- gluster's string parsers (common-utils.c) ------------------------------------------

_INT_RE = re.compile(r"^\s*([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)$")
_FLOAT_RE = re.compile(r"^\s*[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan)", re.I)


def _c_int(digits: str) -> int:
    """Digits as C's base-0 conversion reads them: 0x… hex, 0… octal, else decimal."""
    if digits[:2].lower() == "0x":
        return int(digits, 16)
    if len(digits) > 1 and digits[0] == "0":
        return int(digits, 8)
    return int(digits)


def _strtoll(text: str) -> int | None:
    """``strtoll(text, &tail, 0)`` with an empty tail required (leading blanks allowed)."""
    m = _INT_RE.match(text)
    if not m:
        return None
    value = _c_int(m.group(2))
    value = -value if m.group(1) == "-" else value
    return value if -_LONG_MAX - 1 <= value <= _LONG_MAX else None


def _strtod(text: str) -> tuple[float, str] | None:
    m = _FLOAT_RE.match(text)
    if not m:
        return None
    return float(m.group(0)), text[m.end():]


def _negative(text: str) -> bool:
    return text.lstrip().startswith("-")


def parse_bytesize(text: str) -> int | None:
    """``gf_string2bytesize_uint64``: '64MB', '1.5GB', '4096' (binary units, case-insensitive)."""
    if _negative(text):
        return None
    if "." in text:
        parsed = _strtod(text)
        if parsed is None:
            return None
        value, tail = parsed
    else:
        m = re.match(r"^\s*[+]?\d+", text)
        if not m:
            return None
        value, tail = float(int(m.group(0))), text[m.end():]
    if tail:
        unit = tail.lower()
        if unit in _UNITS:
            value *= _UNITS[unit]
        elif unit != "b":
            return None
    if math.isnan(value) or value > _LONG_MAX:
        return None
    return int(value)


def parse_percent(text: str) -> float | None:
    """``gf_string2percent``: '10' or '10%'."""
    if _negative(text):
        return None
    parsed = _strtod(text)
    if parsed is None or parsed[1] not in ("", "%"):
        return None
    return parsed[0]


def parse_time(text: str) -> int | None:
    """``gf_string2time``: seconds, or a number with s/sec, m/min, h/hr, d/days, w/wk."""
    if _negative(text):
        return None
    m = re.match(r"^\s*[+]?(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)", text)
    if not m:
        return None
    value = _c_int(m.group(1))
    tail = text[m.end():]
    if tail not in _TIME_UNITS:
        return None
    return value * _TIME_UNITS[tail]


def is_boolean(text: str) -> bool:
    """``gf_string2boolean``: 1/0, on/off, yes/no, true/false, enable/disable (any case)."""
    return text.lower() in _BOOL_WORDS


# ---- the checks (options.c, xlator_option_validate_*) ---------------------------------

def _range_problem(spec: OptionSpec, number: float, shown: str, value: str,
                   validate: str | None = None) -> str | None:
    """Gluster's range check and words; ``validate`` overrides the option's mode (sizes,
    times and percent-or-size are always checked on both ends, when limits are set)."""
    lo, hi = spec.min, spec.max
    hi_text = "inf" if math.isinf(hi) else f"{hi:.0f}"
    mode = validate or spec.validate
    if mode == "min":
        if number < lo:
            return f"'{shown}' in 'option {spec.key} {value}' is smaller than minimum value '{lo:.0f}'"
    elif mode == "max":
        if number > hi:
            return f"'{shown}' in 'option {spec.key} {value}' is greater than maximum value '{hi_text}'"
    elif (lo or hi) and (number < lo or number > hi):
        return f"'{shown}' in 'option {spec.key} {value}' is out of range [{lo:.0f} - {hi_text}]"
    return None


# a kind read by a parser (None: not of that kind), then checked against the option's range
_PARSED_IN_RANGE = {
    "size": (parse_bytesize, 'invalid number format "{value}" in option "{key}"'),
    "time": (parse_time, 'invalid time format "{value}" in "option {key}"'),
}


def value_problem(spec: OptionSpec, value: str) -> str | None:
    """Gluster's refusal of ``value`` for this option's type and limits, or None."""
    key = spec.key
    kind = spec.type
    if kind == "bool":
        if not is_boolean(value):
            return f"option {key} {value}: '{value}' is not a valid boolean value"
    elif kind == "int":
        number = _strtoll(value)
        if number is None or (number == 0 and _negative(value)):
            return f'invalid number format "{value}" in option "{key}"'
        return _range_problem(spec, number, str(number), value)
    elif kind in _PARSED_IN_RANGE:
        parse, refusal = _PARSED_IN_RANGE[kind]
        number = parse(value)
        if number is None:
            return refusal.format(value=value, key=key)
        return _range_problem(spec, number, str(number), value, validate="both")
    elif kind == "percent":
        percent = parse_percent(value)
        if percent is None:
            return f'invalid percent format "{value}" in "option {key}"'
        if not 0.0 <= percent <= 100.0:
            return f"'{percent:f}' in 'option {key} {value}' is out of range [0 - 100]"
    elif kind == "percent-or-size":
        return _percent_or_size_problem(spec, value)
    elif kind == "double":
        parsed = _strtod(value)
        if parsed is None or parsed[1]:
            return f'invalid number format "{value}" in option "{key}"'
        return _range_problem(spec, parsed[0], f"{parsed[0]:f}", value)
    elif kind == "path":
        if "../" in value:
            return f"invalid path given '{value}'"
        if not value.startswith("/"):
            return f"option {key} {value}: '{value}' is not an absolute path name"
    elif kind == "str" and spec.values:
        if value.strip(" ") == "" or not any(fnmatch.fnmatchcase(value, pattern) for pattern in spec.values):
            return (f"option {key} {value}: '{value}' is not valid (possible options are "
                    f"{', '.join(spec.values)}.)")
    return None


def _percent_or_size_problem(spec: OptionSpec, value: str) -> str | None:
    key = spec.key
    bad = f'invalid number format "{value}" in "option {key}"'
    if _negative(value):
        return bad
    parsed = _strtod(value)
    if parsed is None:
        return bad
    number, tail = parsed
    if tail == "%":
        if not 0.0 <= number <= 100.0:
            return f"'{number:f}' in 'option {key} {value}' is out of range [0 - 100]"
        return None
    if tail:
        if tail.lower() not in _UNITS:
            return bad
        number *= _UNITS[tail.lower()]
    if "." in value and value.split(".", 1)[1].rstrip("0").strip() and not tail:
        return (f"'{number:f}' in 'option {key} {value}' should not be fractional value. "
                "Use valid unsigned integer value.")
    return _range_problem(spec, number, f"{number:f}", value, validate="both")


_CHECKED_HERE = {_REPLICA_ONLY, _DISPERSE_ONLY, "validate_quorum_count", "validate_boolean",
                 "validate_replica_heal_enable_disable", "validate_disperse_heal_enable_disable"}


def check_option(name: str, value: str, layout: Layout | None = None, replica_count: int | None = None,
                 volume_name: str = "VOL") -> OptionCheck:
    """What gluster 10.3 would answer to ``volume set VOL name value`` for a volume with this
    ``layout`` (``replica_count``: bricks per replica set, when known).

    In gluster's order: its CLI (the value's whitespace, words it takes for its own options),
    glusterd's stage (the name, the layout, the value's type and range), then what glusterd's
    store can keep."""
    check = OptionCheck(name, value)
    check.problem = _cli_problem(name, value)
    if check.problem is not None:
        return check
    if is_user_option(name):
        check.spec = user_option_spec(name)
        check.problem = _user_option_problem(name, value) or _store_problem(name, value)
        return check
    typed = value
    value = "".join(c for c in value if c not in _C_SPACE)
    if value != typed and value:
        check.notes.append(f"gluster's CLI drops the whitespace: it sets {value!r}")
    full = resolve_name(name)
    if full is None:
        import difflib   # when a name is unknown: 2 ms of every start otherwise

        close = difflib.get_close_matches(name.strip(), option_names(), n=2, cutoff=0.6)
        hint = f" (did you mean {' or '.join(close)}?)" if close else ""
        check.problem = f"option : {name.strip()} does not exist{hint}"
        return check
    spec = catalog()[full]
    check.spec = spec
    if full != name.strip():
        check.notes.append(f"gluster reads {name.strip()!r} as {full}")
    if spec.global_only:
        check.problem = (f"Not a valid option for single volume: {full} is cluster-wide "
                         f"(gluster volume set all {full} VALUE)")
        return check
    if value == "":
        check.problem = f"{full} needs a value (gluster volume reset {full} goes back to the default)"
        return check
    if layout is not None:
        replicated = layout.type.is_replicated
        if spec.validate_fn == _REPLICA_ONLY and not replicated:
            check.problem = f"Cannot set {full} for a non-replicate volume."
            return check
        if spec.validate_fn == _DISPERSE_ONLY and not layout.type.is_dispersed:
            check.problem = f"Cannot set {full} for a non-disperse volume."
            return check
        if spec.validate_fn == "validate_replica_heal_enable_disable" and not replicated:
            check.problem = f"Volume {volume_name} is not of replicate type"
            return check
        if spec.validate_fn == "validate_disperse_heal_enable_disable" and not layout.type.is_dispersed:
            check.problem = f"Volume {volume_name} is not of disperse type"
            return check
        if spec.validate_fn == "validate_quorum_count" and replicated:
            count = _strtoll(value)
            if count is None:
                check.problem = f"{value} is not an integer. {full} expects a valid integer value."
                return check
            top = replica_count or layout.replica
            if top and not 1 <= count <= top:
                check.problem = f"{count} in {full} {count} is out of range [1 - {top}]"
                return check
    check.problem = value_problem(spec, value) or _store_problem(full, value)
    if check.problem is None and spec.validate_fn and spec.validate_fn not in _CHECKED_HERE:
        check.notes.append(f"glusterd also checks this against the live volume ({spec.validate_fn})")
    if check.problem is None and spec.description.lower().startswith("deprecated"):
        check.notes.append(spec.description)
    return check


def check_volume_options(options: dict[str, str], layout: Layout | None = None,
                         replica_count: int | None = None, volume_name: str = "VOL") -> list[OptionCheck]:
    return [check_option(k, v, layout, replica_count, volume_name) for k, v in options.items()]


def _cli_problem(name: str, value: str) -> str | None:
    """What gluster's CLI refuses before glusterd sees the option (cli.c, cli-cmd-parser.c)."""
    for word in (name, value):
        if "\0" in word:
            return "a NUL character cannot be passed on a command line"
        if word.startswith("--"):   # parse_cmdline: every word starting with -- is a CLI option
            return (f"gluster's CLI takes {word!r} for an option of its own (a word starting with --), "
                    "so volume set never gets it")
    return None


def _user_option_problem(name: str, value: str) -> str | None:
    """What gluster 10.3 accepts in a ``user.`` option but cannot keep (each seen on the lab)."""
    if value == "":
        return f"{name} needs a value (gluster refuses an empty one; volume reset VOL, of every option, removes it)"
    if "=" in name:
        return (f"{name!r}: gluster stores options as name=value lines and reads the name back up to "
                f"the first '=': after glusterd restarts this is {name.split('=', 1)[0]!r} = "
                f"{name.split('=', 1)[1] + '=' + value!r}")
    for what, word in (("name", name), ("value", value)):
        if "\n" in word:
            return (f"a new line in a user.* option's {what}: gluster accepts it, but then cannot restore "
                    "the volume at glusterd's next start (its store holds one name=value per line) and "
                    "glusterd exits")
    return None


def _store_problem(name: str, value: str) -> str | None:
    """glusterd's store keeps ``name=value`` in a 4093-byte buffer (``_storeopts``)."""
    size = len(name.encode("utf-8", "surrogatepass")) + len(value.encode("utf-8", "surrogatepass"))
    if size > STORE_PAIR_MAX:
        return (f"{name} and its value hold {size} bytes; glusterd 10.3 keeps at most {STORE_PAIR_MAX} "
                "(name=value goes into a 4093-byte buffer in glusterd-store.c, and a longer one overruns "
                "it: 5,000 characters crashed glusterd on the lab)")
    return None
