"""Files for the planner window: New, Open, Save, Save As, recent files, examples,
a prompt before losing changes, and autosave with recovery after a crash.

Settings live in the one settings file (``store.settings.Settings``: recent files, the last
folder) and autosaves in Brickyard's data folder (``core.paths``), both overridable for tests. An autosave names the file it belongs to
and the process that wrote it; one left behind by a process that is gone is offered back.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Callable

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from ...core import strictjson, topofile
from ...core.atomicfile import write_atomic
from ...core.paths import user_config_dir, user_data_dir
from ...core.topology import UNTITLED, Site, Topology
from ...store.settings import Settings
from .session import Session

MAX_RECENT = 8
AUTOSAVE_MS = 20_000
FILE_FILTER = "Brickyard topology (*.brickyard.json *.json);;All files (*)"


def config_dir() -> Path:
    return user_config_dir()


def data_dir() -> Path:
    return user_data_dir()


def shipped(*parts: str) -> Path:
    """A file shipped with Brickyard (``shipped("resources", "examples")``, ``shipped("README.md")``):
    the source tree's in a checkout or editable install, ``brickyard/…`` inside the bundle."""
    here = Path(__file__).resolve()
    for candidate in (here.parents[4].joinpath(*parts), here.parents[2].joinpath(*parts)):
        if candidate.exists():
            return candidate
    return here.parents[4].joinpath(*parts)


def examples_dir() -> Path:
    """``resources/examples`` of the source tree (editable installs and the packaged app)."""
    return shipped("resources", "examples")


def example_files() -> list[Path]:
    return sorted(examples_dir().glob("*.brickyard.json"))


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _autosave_note(meta_path: Path) -> dict | None:
    """An autosave's note (which file, which process, when), read strictly (a regular file of
    at most 64 KiB holding the fields autosave writes), or None: a note that is not one is
    left alone, and its autosave is not offered."""
    try:
        note = strictjson.load_object(meta_path, limit=64 * 1024, what="autosave note")
    except strictjson.JsonFileError:
        return None
    pid, saved_at, path = note.get("pid"), note.get("saved_at", 0), note.get("path")
    if type(pid) is not int or not 0 < pid < 2**22 or type(saved_at) not in (int, float) \
            or not (path is None or isinstance(path, str)):
        return None
    return {"path": path, "pid": pid, "saved_at": float(saved_at)}


class FileController(QObject):
    sig_title_changed = Signal(str)
    """str: the window title, with ``[*]`` where the dirty marker goes."""
    sig_recent_changed = Signal(list)
    """list[str]: recent file paths, newest first."""
    sig_error = Signal(str)
    """str: a file problem to show the user (also shown in a message box when interactive)."""

    def __init__(self, session: Session, window: QWidget | None = None, settings_path: Path | None = None,
                 autosave_dir: Path | None = None):
        super().__init__(window)
        self.session = session
        self.window = window
        self.path: Path | None = None
        self.recovered = False  # content came from an autosave: dirty until saved
        self.settings = Settings(settings_path or config_dir() / "settings.json")
        self.autosave_dir = autosave_dir or data_dir() / "autosave"
        self.autosave_path = self.autosave_dir / f"session-{os.getpid()}.brickyard.json"
        self._autosaved_index = -1
        # Answers a yes/no/cancel question; replaced in tests. Returns "save", "discard" or "cancel".
        self.ask: Callable[[str], str] = self._ask_box
        self.ask_recover: Callable[[str], bool] = self._ask_recover_box
        self.choose_save_path: Callable[[], str] = self._save_dialog
        self.timer = QTimer(self)
        self.timer.setInterval(AUTOSAVE_MS)
        self.timer.timeout.connect(self.autosave)
        self.timer.start()
        session.stack.cleanChanged.connect(self._title)
        session.stack.indexChanged.connect(self._title)

    # ---- state ----------------------------------------------------------------------
    @property
    def dirty(self) -> bool:
        return self.recovered or not self.session.stack.isClean()

    def title(self) -> str:
        name = self.path.name if self.path else (self.session.topo.name or UNTITLED)
        return f"{name}[*] — Brickyard"

    def _title(self, *_: object) -> None:
        self.sig_title_changed.emit(self.title())

    def recent(self) -> list[str]:
        value = self.settings.value("recent", [])
        items = [value] if isinstance(value, str) else value if isinstance(value, list) else []
        return [p for p in items if p and isinstance(p, str)]   # a hand-edited file may hold anything

    def _remember(self, path: Path) -> None:
        items = [str(path)] + [p for p in self.recent() if p != str(path)]
        self.settings.update({"recent": items[:MAX_RECENT], "last_file": str(path), "last_dir": str(path.parent)})
        self.sig_recent_changed.emit(items[:MAX_RECENT])

    def start_dir(self) -> Path:
        """Where Open and Save As start: the open file's folder, else the folder last opened
        from or saved to, else home."""
        if self.path is not None:
            return self.path.parent
        value = self.settings.value("last_dir", "")
        if value and isinstance(value, str) and Path(value).is_dir():
            return Path(value)
        return Path.home()

    def last_file(self) -> Path | None:
        value = self.settings.value("last_file", "")
        return Path(value) if value and isinstance(value, str) and Path(value).is_file() else None

    # ---- commands -------------------------------------------------------------------
    def maybe_save(self) -> bool:
        """True when it is fine to drop the current topology (saved, discarded or clean)."""
        if not self.dirty:
            return True
        answer = self.ask(f"Save changes to {self.path.name if self.path else 'the untitled topology'}?")
        if answer == "save":
            return self.save()
        return answer == "discard"

    def new(self) -> bool:
        if not self.maybe_save():
            return False
        self._load(Topology(name=UNTITLED, sites=[Site("site1")]), None)
        return True

    def open(self, path: str | Path, check_unsaved: bool = True) -> bool:
        path = Path(path)
        if not self._open_file(path, path, check_unsaved):
            return False
        self._remember(path)
        return True

    def open_example(self, path: Path) -> bool:
        """An example opens as an untitled copy, so Save never overwrites the shipped file."""
        return self._open_file(Path(path), None)

    def _open_file(self, path: Path, saved_as: Path | None, check_unsaved: bool = True) -> bool:
        """Show the topology in ``path`` as the document saved at ``saved_as`` (None: untitled);
        False, with the file's problems said, when it cannot be read."""
        if check_unsaved and not self.maybe_save():
            return False
        try:
            topo = topofile.load(path)
        except topofile.TopologyFileError as exc:
            self._error(exc.report())
            return False
        self._load(topo, saved_as)
        return True

    def load_untitled(self, topo: Topology) -> None:
        """Show ``topo`` as a new untitled document (an imported cluster); the caller has
        already asked ``maybe_save``."""
        self._load(topo, None)

    def save(self) -> bool:
        if self.path is None:
            return self.save_as()
        return self._write(self.path)

    def save_as(self) -> bool:
        chosen = self.choose_save_path()
        if not chosen:
            return False
        path = Path(chosen)
        if not path.name.endswith(".json"):
            path = path.with_name(path.name + topofile.SUFFIX)
        return self._write(path)

    def _write(self, path: Path) -> bool:
        if self.session.topo.name in ("", UNTITLED):
            # a new topology takes its file's name (the title and `plan` show it)
            self.session.topo.name = path.name.removesuffix(topofile.SUFFIX).removesuffix(".json")
        try:
            topofile.save(self.session.topo, path)
        except OSError as exc:
            self._error(f"{path}: cannot save: {exc.strerror or exc}")
            return False
        except topofile.TopologySaveError as exc:
            self._error(exc.report())
            return False
        self.path = path
        self.recovered = False
        self.session.stack.setClean()
        self._remember(path)
        self.discard_autosave()
        self._title()
        return True

    def _load(self, topo: Topology, path: Path | None) -> None:
        self.path = path
        self.recovered = False
        self.session.replace(topo)
        self.session.stack.setClean()
        self.discard_autosave()
        self._title()

    def _error(self, text: str) -> None:
        self.sig_error.emit(text)
        if self.window is not None and self.window.isVisible():
            QMessageBox.warning(self.window, "Brickyard", text)

    # ---- autosave and recovery ------------------------------------------------------
    def autosave(self) -> bool:
        """Write the unsaved topology next to a note of where it belongs; True if written."""
        index = self.session.stack.index()
        if not self.dirty or index == self._autosaved_index:
            return False
        self.autosave_dir.mkdir(parents=True, exist_ok=True)
        try:
            topofile.save(self.session.topo, self.autosave_path)
        except topofile.TopologySaveError as exc:   # Save says what is wrong; keep the last good autosave
            self.sig_error.emit(exc.report())
            self._autosaved_index = index
            return False
        note = {"path": str(self.path) if self.path else None, "pid": os.getpid(), "saved_at": time.time()}
        write_atomic(self.autosave_path.with_suffix(".meta"), json.dumps(note).encode())
        self._autosaved_index = index
        return True

    def discard_autosave(self) -> None:
        for p in (self.autosave_path, self.autosave_path.with_suffix(".meta")):
            p.unlink(missing_ok=True)
        self._autosaved_index = -1

    def orphaned_autosaves(self) -> list[tuple[Path, dict]]:
        """Autosaves whose writer is gone (a crash), newest first."""
        found = []
        for meta_path in self.autosave_dir.glob("session-*.brickyard.meta"):
            note = _autosave_note(meta_path)
            if note is None:
                continue
            data = meta_path.with_suffix(".json")
            pid = note["pid"]
            if data.is_file() and pid != os.getpid() and not _pid_alive(pid):
                found.append((data, note))
        return sorted(found, key=lambda item: -float(item[1]["saved_at"]))

    def offer_recovery(self) -> bool:
        """Ask about the newest orphaned autosave; load it (dirty) if the user wants it."""
        for data, note in self.orphaned_autosaves():
            original = note.get("path")
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(float(note.get("saved_at", 0))))
            question = (f"Brickyard was not closed properly. Recover the unsaved changes to "
                        f"{original or 'an untitled topology'} from {when}?")
            keep = self.ask_recover(question)
            if keep:
                try:
                    topo = topofile.load(data)
                except topofile.TopologyFileError as exc:
                    self._error(exc.report())
                    keep = False
                else:
                    self._load(topo, Path(original) if original else None)
                    self.recovered = True
                    self._title()
            data.unlink(missing_ok=True)
            data.with_suffix(".meta").unlink(missing_ok=True)
            return keep
        return False

    # ---- default dialogs ------------------------------------------------------------
    def _ask_box(self, question: str) -> str:
        buttons = QMessageBox.StandardButton
        answer = QMessageBox.question(self.window, "Brickyard", question,
                                      buttons.Save | buttons.Discard | buttons.Cancel, buttons.Save)
        return {buttons.Save: "save", buttons.Discard: "discard"}.get(answer, "cancel")

    def _ask_recover_box(self, question: str) -> bool:
        buttons = QMessageBox.StandardButton
        return QMessageBox.question(self.window, "Brickyard", question, buttons.Yes | buttons.No) == buttons.Yes

    def _save_dialog(self) -> str:
        start = str(self.path) if self.path else str(self.start_dir() / f"{self.session.topo.name or 'topology'}{topofile.SUFFIX}")
        path, _ = QFileDialog.getSaveFileName(self.window, "Save topology", start, FILE_FILTER)
        return path
