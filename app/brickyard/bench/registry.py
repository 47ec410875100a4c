"""Find workloads: the entry-point group ``brickyard.workloads`` and a user plugins folder.

Each plugin loads alone: one that fails to import or is not a ``Workload`` is listed with its
error and never stops the app (Spyder wraps each external plugin the same way).
User folder: ``$BRICKYARD_PLUGINS`` or ``~/.local/share/brickyard/plugins``; every ``*.py``
there (or package directory with ``__init__.py``) exposing ``WORKLOAD`` or Workload subclasses.
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import sys
import traceback
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path

from ..core.paths import user_data_dir
from .api import Workload

GROUP = "brickyard.workloads"


@dataclass(frozen=True)
class PluginEntry:
    """One discovered workload, or the reason it could not be loaded."""

    name: str
    source: str                      # "entry point brickyard-dd (module:Class)" or a file path
    workload: Workload | None = None
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.workload is not None


def user_plugin_dir() -> Path:
    env = os.environ.get("BRICKYARD_PLUGINS")
    if env:
        return Path(env)
    return user_data_dir() / "plugins"


def _short_error(exc: BaseException) -> str:
    last = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
    where = f" ({Path(last[0].filename).name}:{last[0].lineno})" if last else ""
    return f"{type(exc).__name__}: {exc}{where}"


def _instantiate(obj: object, source: str) -> Workload:
    if inspect.isclass(obj) and issubclass(obj, Workload):
        inst = obj()
    elif isinstance(obj, Workload):
        inst = obj
    else:
        raise TypeError(f"{source} is not a brickyard.bench.api.Workload")
    if not inst.name:
        raise TypeError(f"{source} has no name")
    return inst


def _from_entry_points() -> list[PluginEntry]:
    found = []
    for ep in entry_points(group=GROUP):
        source = f"entry point {ep.name} ({ep.value})"
        try:
            found.append(PluginEntry(ep.name, source, _instantiate(ep.load(), source)))
        except Exception as exc:  # noqa: BLE001 - a broken plugin fails alone
            found.append(PluginEntry(ep.name, source, error=_short_error(exc)))
    return found


def _from_folder(folder: Path) -> list[PluginEntry]:
    found: list[PluginEntry] = []
    if not folder.is_dir():
        return found
    for path in sorted(folder.iterdir()):
        if path.name.startswith((".", "_")):
            continue
        file = path / "__init__.py" if path.is_dir() else path
        if path.is_dir() and not file.exists() or (not path.is_dir() and path.suffix != ".py"):
            continue
        modname = f"brickyard_user_plugin_{path.stem}"
        try:
            spec = importlib.util.spec_from_file_location(modname, file,
                                                          submodule_search_locations=[str(path)] if path.is_dir() else None)
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot import {file}")
            module = importlib.util.module_from_spec(spec)
            sys.modules[modname] = module
            spec.loader.exec_module(module)
            objs = [getattr(module, "WORKLOAD")] if hasattr(module, "WORKLOAD") else [
                obj for obj in vars(module).values()
                if inspect.isclass(obj) and issubclass(obj, Workload) and obj is not Workload
                and obj.__module__ == modname and not inspect.isabstract(obj)]
            if not objs:
                raise TypeError("defines no Workload subclass (or WORKLOAD)")
            for obj in objs:
                inst = _instantiate(obj, str(file))
                found.append(PluginEntry(inst.name, str(file), inst))
        except Exception as exc:  # noqa: BLE001 - a broken plugin fails alone
            found.append(PluginEntry(path.stem, str(file), error=_short_error(exc)))
    return found


def discover(folder: Path | None = None) -> list[PluginEntry]:
    """Every workload found, entry points first; a later duplicate name is listed as an error."""
    entries = _from_entry_points() + _from_folder(folder if folder is not None else user_plugin_dir())
    seen: set[str] = set()
    out = []
    for e in entries:
        if e.ok and e.name in seen:
            out.append(PluginEntry(e.name, e.source, error=f"another workload is already called {e.name!r}"))
            continue
        if e.ok:
            seen.add(e.name)
        out.append(e)
    return out


def find(name: str, folder: Path | None = None) -> Workload:
    entries = discover(folder)
    for e in entries:
        if e.name == name and e.ok:
            return e.workload  # type: ignore[return-value]
    broken = [e for e in entries if e.name == name]
    if broken:
        raise LookupError(f"workload {name!r} could not be loaded: {broken[0].error}")
    names = ", ".join(sorted(e.name for e in entries if e.ok)) or "none installed"
    raise LookupError(f"no workload called {name!r} (available: {names})")
