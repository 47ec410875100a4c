"""What this Brickyard is made of: versions for Help ▸ About, the crash report and --self-test."""

from __future__ import annotations

import platform
import sys

# importlib.metadata (and the email parser under it) only when versions are asked for: this
# module is imported on the way to the first window (Help menu), and those imports were a
# tenth of start-up's CPU


def _dist_version(name: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


def component_versions() -> list[tuple[str, str]]:
    """(component, version) of Brickyard, Python, Qt and the libraries it runs on."""
    from PySide6 import __version__ as pyside_version
    from PySide6.QtCore import qVersion

    from ... import __version__

    def module_version(name: str) -> str:
        try:
            module = __import__(name)
        except ImportError:
            return "not installed"
        return str(getattr(module, "__version__", "") or _dist_version(name))

    build = "frozen bundle" if getattr(sys, "frozen", False) else "Python package"
    return [
        ("Brickyard", f"{__version__} ({build})"),
        ("Python", f"{platform.python_version()} ({platform.python_implementation()})"),
        ("Qt", f"{qVersion()} (PySide6 {pyside_version})"),
        ("asyncssh", module_version("asyncssh")),
        ("SQLAlchemy", module_version("sqlalchemy")),
        ("Alembic", module_version("alembic")),
        ("pyqtgraph", module_version("pyqtgraph")),
        ("NumPy", module_version("numpy")),
        ("System", f"{platform.system()} {platform.release()} {platform.machine()}"),
    ]


def plugin_versions() -> list[tuple[str, str, str]]:
    """(workload, version, where it comes from) for each workload plugin, a broken one with its error."""
    from importlib.metadata import entry_points

    from ...bench import registry

    dists: dict[str, str] = {}
    for ep in entry_points(group=registry.GROUP):
        dist = getattr(ep, "dist", None)
        if dist is not None:
            dists[ep.name] = f"{dist.metadata['Name']} {dist.version}"
    out = []
    for entry in registry.discover():
        where = dists.get(entry.name, "") if entry.source.startswith("entry point") else f"user plugin {entry.source}"
        if entry.ok:
            out.append((entry.name, dists.get(entry.name, "").rpartition(" ")[2] or "—", where or entry.source))
        else:
            out.append((entry.name, "broken", f"{entry.source}: {entry.error}"))
    return out


def report_text() -> str:
    """Every version as plain text (the About dialog's Copy, the crash report)."""
    lines = [f"{name}: {ver}" for name, ver in component_versions()]
    lines.append("Workload plugins:")
    lines += [f"  {name} {ver} ({where})" for name, ver, where in plugin_versions()]
    return "\n".join(lines)
