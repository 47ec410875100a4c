"""``brickyard-gui --self-test`` (and the bundle's ``brickyard --self-test``): is this
installation whole? Everything runs offscreen in a temporary profile, so the user's settings,
history and logs are never touched, and the temporary files are removed at the end.

Steps, each printed as ``ok`` or ``FAIL`` with what it found:

1. **window**: Qt starts offscreen and the main window is built with its menus and the
   welcome view (icons, the user guide's chapters and their pictures for F1).
2. **examples**: every shipped example topology loads and plans; the JSON Schema is there.
3. **plugins**: every workload plugin loads (entry points — built-ins and third-party
   ones installed beside Brickyard — and the user's plugins folder); a probe plugin dropped
   into a temporary plugins folder is found too.
4. **history**: a temporary SQLite history is created and migrated to the newest schema
   (the Alembic scripts are inside).
5. **benchmark**: a tiny local dd sweep through the real engine and agent, stored in that
   history and read back.
6. **report**: that run exported as a PDF through ``brickyard.report`` (``content_from_runs``
   and ``export_report``, as File ▸ Export PDF… does). A bundle without the report module fails
   here, named.

Exit 0 when nothing failed, else 1; the last line names what failed.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Callable

PROBE_PLUGIN = '''"""A throwaway workload the self-test drops into a plugins folder to see it is found."""
from brickyard.bench.api import Workload


class SelfTestProbe(Workload):
    name = "selftest-probe"
    title = "self-test probe"

    def step_count(self, values):
        return 0

    async def run(self, ctx):
        return None
'''


class Failed(Exception):
    """A step failed for the reason given."""


class SelfTest:
    def __init__(self, out: Callable[[str], None] = print):
        self.out = out
        self.failed: list[str] = []
        self.results: dict[str, tuple[str, str]] = {}
        self.tmp = Path(tempfile.mkdtemp(prefix="brickyard-self-test-"))
        self.store = None
        self.run_id = ""

    # ---- driver ---------------------------------------------------------------------
    def step(self, name: str, fn: Callable[[], str]) -> None:
        started = time.monotonic()
        try:
            detail = fn()
            status = "ok"
        except Failed as exc:
            status, detail = "FAIL", str(exc)
        except Exception as exc:  # noqa: BLE001 - every failure is named, with where it happened
            where = traceback.extract_tb(exc.__traceback__)[-1]
            status, detail = "FAIL", f"{type(exc).__name__}: {exc} ({Path(where.filename).name}:{where.lineno})"
        if status == "FAIL":
            self.failed.append(name)
        self.results[name] = (status, detail)
        self.out(f"{status:<4} {name}: {detail} [{time.monotonic() - started:.1f} s]")

    def run(self) -> int:
        real_plugins = self._isolate()
        self.out(f"Brickyard self-test ({'frozen bundle ' + sys.executable if getattr(sys, 'frozen', False) else sys.executable})")
        self.step("window", self.window)
        self.step("examples", self.examples)
        self.step("plugins", lambda: self.plugins(real_plugins))
        self.step("history", self.history)
        self.step("benchmark", self.benchmark)
        self.step("report", self.report)
        if self.store is not None:
            self.store.close()
        shutil.rmtree(self.tmp, ignore_errors=True)
        if self.failed:
            self.out(f"self-test FAILED: {', '.join(self.failed)}")
            return 1
        self.out("self-test passed")
        return 0

    def _isolate(self) -> Path:
        """Point every user folder at the temporary profile; return the real plugins folder."""
        from ...bench.registry import user_plugin_dir

        real_plugins = user_plugin_dir()
        for env, name in (("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data"), ("XDG_STATE_HOME", "state"),
                          ("XDG_CACHE_HOME", "cache")):
            os.environ[env] = str(self.tmp / name)
        for env in ("BRICKYARD_DB", "BRICKYARD_PLUGINS", "BRICKYARD_LOCK_DIR", "BRICKYARD_KNOWN_HOSTS"):
            os.environ.pop(env, None)
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        return real_plugins

    # ---- steps ----------------------------------------------------------------------
    def window(self) -> str:
        from PySide6.QtWidgets import QApplication

        app = QApplication.instance() or QApplication([sys.argv[0], "-platform", "offscreen"])
        from ..widgets.style import app_icon
        from .guide import guide_problems
        from .mainwindow import MainWindow

        window = MainWindow()
        window.open_welcome()
        window.show()
        app.processEvents()
        menus = [a.text().replace("&", "") for a in window.menuBar().actions()]
        for wanted in ("File", "Cluster", "View", "Help"):
            if wanted not in menus:
                raise Failed(f"the {wanted} menu is missing (menus: {', '.join(menus)})")
        problems = []
        if app_icon().isNull():
            problems.append("no icon (resources/icons)")
        problems += guide_problems()
        if not window.welcome.example_buttons:
            problems.append("the welcome view offers no example")
        tabs = window.tabs.count()
        window.files.discard_autosave()
        window.close()
        window.deleteLater()
        app.processEvents()
        if problems:
            raise Failed("; ".join(problems))
        return f"main window built offscreen ({', '.join(menus)}; {tabs} tabs; platform {app.platformName()})"

    def examples(self) -> str:
        from importlib import resources

        from ...core import topofile
        from ...core.plan import plan_volume
        from .files import example_files

        if not resources.files("brickyard.core").joinpath("schema", "topology-v1.schema.json").is_file():
            raise Failed("the topology JSON Schema (brickyard/core/schema/topology-v1.schema.json) is missing")
        files = example_files()
        if not files:
            raise Failed("no example topology is shipped (resources/examples)")
        planned = 0
        for path in files:
            topo = topofile.load(path)
            for volume in topo.volumes:
                plan_volume(topo, volume)
                planned += 1
        return f"{len(files)} examples loaded, {planned} volumes planned; JSON Schema present"

    def plugins(self, real_folder: Path) -> str:
        from ...bench import registry

        entries = registry.discover(real_folder)
        broken = [f"{e.name} ({e.source}): {e.error}" for e in entries if not e.ok]
        names = [e.name for e in entries if e.ok]
        for builtin in ("dd", "fio", "smallfile", "metadata", "randread", "pgbench"):
            if builtin not in names:
                broken.append(f"built-in workload {builtin} not found (entry-point metadata missing?)")
        probe_dir = self.tmp / "plugins"
        probe_dir.mkdir()
        (probe_dir / "selftest_probe.py").write_text(PROBE_PLUGIN)
        found = [e for e in registry.discover(probe_dir) if e.name == "selftest-probe"]
        if not found or not found[0].ok:
            broken.append("a plugin in the user plugins folder is not found" +
                          (f": {found[0].error}" if found else ""))
        if broken:
            raise Failed("; ".join(broken))
        return f"{len(names)} workloads ({', '.join(names)}); the user plugins folder works ({real_folder})"

    def history(self) -> str:
        from ...store.engine import current_revision, head_revision
        from ...store.history import HistoryStore

        self.store = HistoryStore.open()
        revision, head = current_revision(self.store.engine), head_revision()
        if revision != head:
            raise Failed(f"migrated to {revision}, but the newest revision is {head}")
        return f"temporary SQLite history created and migrated to {head} ({self.store.url})"

    def benchmark(self) -> str:
        if self.store is None:
            raise Failed("no history to store the run in (see the history step)")
        from ...bench import registry
        from ...bench.engine import TargetSpec
        from ...bench.request import BenchRequest, run_request
        from ...core.results import RunStatus
        from ...remote.local import LocalExecutor
        from ...store.sink import HistorySink

        target = self.tmp / "bench"
        target.mkdir()
        params = {"block_sizes": "64K", "concurrency": "1,2", "size": "1M", "direction": "write", "repeats": "1"}
        request = BenchRequest("dd", params, (TargetSpec("local", str(target)),), label="self-test")
        sink = HistorySink(self.store, None)
        local = LocalExecutor("local")
        run = asyncio.run(run_request(request, registry.find("dd"), lambda _host: local, sink=sink))
        if run.status is not RunStatus.COMPLETE:
            raise Failed(f"the local dd run ended {run.status.value}: {run.error or 'no reason given'}")
        stored = self.store.load_runs([run.run_id])
        if not stored or len(stored[0].steps) != len(run.steps):
            raise Failed(f"the run was not stored whole ({sink.problem or 'steps missing'})")
        left = list(target.iterdir())
        if left:
            raise Failed(f"the run left files behind: {', '.join(p.name for p in left)}")
        self.run_id = run.run_id
        best = max(s.metric("throughput").value for s in run.steps if s.metric("throughput") is not None)
        from ...core.units import format_rate

        return f"local dd sweep: {len(run.steps)} steps, best {format_rate(best)}, stored in history as {run.run_id[:12]}"

    def report(self) -> str:
        import importlib

        try:
            module = importlib.import_module("brickyard.report")
        except ModuleNotFoundError as exc:
            raise Failed(f"the report cannot be imported: {exc}") from None
        content_from_runs = getattr(module, "content_from_runs", None)
        export_report = getattr(module, "export_report", None)
        if content_from_runs is None or export_report is None:
            raise Failed("brickyard.report is there but has no content_from_runs/export_report: "
                         "the self-test does not know how to export a PDF with it")
        if not self.run_id or self.store is None:
            raise Failed("no stored run to report on (see the benchmark step)")
        pdf = self.tmp / "self-test.pdf"
        result = export_report(content_from_runs(self.store, [self.run_id]), pdf)
        data = pdf.read_bytes() if pdf.is_file() else b""
        if not data.startswith(b"%PDF") or b"%%EOF" not in data[-1024:]:
            raise Failed(f"{pdf} is not a whole PDF ({len(data)} bytes)")
        pages = getattr(result, "pages", None)
        return f"PDF of the run exported ({pages} page{'s' if pages != 1 else ''}, {len(data):,} bytes)"


def main(argv: list[str] | None = None) -> int:
    argv = list(argv or [])
    if argv:
        print(f"brickyard --self-test: takes no arguments (got {' '.join(argv)})", file=sys.stderr)
        return 2
    return SelfTest(lambda line: print(line, flush=True)).run()
