"""The welcome view: what a first start shows (and Help ▸ Welcome any time).

Someone who opens Brickyard with no cluster at hand should measure something real within a
minute. "Benchmark this machine" runs the dd sweep one file vs N concurrent files on a local
directory, then on tmpfs (RAM: the ceiling no disk or network reaches), through the Run tab
(the same ``RunView``, ``bench.request`` and engine as any run), stores both runs in the
history and opens them charted. The other ways in: an example topology, an import from a
running gluster pool, a new empty topology, a recent file.

The view only asks; the main window does (``sig_*``). ``local_sweep_problem`` checks the two
directories before anything starts, and says what to do about each problem.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QCommandLinkButton, QFileDialog, QFrame, QGridLayout, QHBoxLayout, QLabel, QLineEdit,
                               QListWidget, QListWidgetItem, QPushButton, QScrollArea, QVBoxLayout, QWidget)

from ...core import topofile
from ...core.paths import user_cache_dir
from ...core.units import format_bytes
from ..widgets.style import app_icon
from .files import example_files

#: the sweep "Benchmark this machine" runs (the rest at the dd plugin's defaults, repeats 3):
#: writes with conv=fdatasync — reads would need root to drop the page cache, and a read from
#: the cache is no measurement of the disk. No one file size suits every machine: 128 MiB
#: lasted under dd's 0.2 s minimum on a fast disk and on tmpfs (flagged short) and would take
#: minutes on an HDD, so each place's files (per block size) are sized from a timed write to
#: what it writes in about STEP_SECONDS (2.5 times the minimum, for a disk whose rate wanders;
#: at least FLOOR_MIB MiB): about half a minute a place.
STEP_SECONDS = 0.5
FLOOR_MIB = 64
LOCAL_SWEEP = {"block_sizes": "4K,64K,1M,16M", "concurrency": "1,4", "size": f"{FLOOR_MIB}M",
               "step_seconds": f"{STEP_SECONDS:g}", "direction": "write"}
SWEEP_WORDS = ("dd writes (conv=fdatasync) of 4 KiB, 64 KiB, 1 MiB and 16 MiB blocks, one file alone and then 4 "
               f"at once, each point 3 times; a timed write first sizes the files so a step lasts about "
               f"{STEP_SECONDS:g} s (at least {FLOOR_MIB} MiB each)")
ROLE = Qt.ItemDataRole.UserRole


def default_bench_dir() -> Path:
    """A directory on the disk the user's files live on, which Brickyard may create."""
    return user_cache_dir() / "baseline"


def sweep_bytes() -> int:
    """Disk space the sweep needs at once at least: its largest step, 4 files of FLOOR_MIB
    (larger files are sized to at most half the free space)."""
    return 4 * FLOOR_MIB * 1024 * 1024


def _room_problem(where: Path, label: str) -> str:
    if not where.is_dir():
        return f"{where} does not exist: create it first, or choose another {label}."
    if not os.access(where, os.W_OK | os.X_OK):
        return f"You cannot write to {where}: choose a {label} of your own (e.g. in your home folder)."
    free = shutil.disk_usage(where).free
    if free < 2 * sweep_bytes():
        return (f"{where} has {format_bytes(free)} free; the sweep needs {format_bytes(2 * sweep_bytes())} (it writes "
                f"4 files of at least {FLOOR_MIB} MiB at once, and keeps half the space free). "
                f"Free some space or choose another {label}.")
    return ""


def find_tmpfs(mounts: str = "/proc/mounts") -> tuple[str, str]:
    """(a tmpfs this user can write to with room for the sweep, '') — /dev/shm, else
    $XDG_RUNTIME_DIR — or ('', why there is none): the sweep then runs without its ceiling."""
    try:
        table = Path(mounts).read_text()
    except OSError as exc:
        return "", f"cannot read {mounts} ({exc.strerror or exc})"
    tmpfs = {line.split()[1].replace("\\040", " ") for line in table.splitlines()
             if len(line.split()) > 2 and line.split()[2] == "tmpfs"}
    why = "no tmpfs mounted at /dev/shm or $XDG_RUNTIME_DIR"
    for candidate in ("/dev/shm", os.environ.get("XDG_RUNTIME_DIR", "")):
        if candidate and candidate in tmpfs:
            problem = _room_problem(Path(candidate), "tmpfs")
            if not problem:
                return candidate, ""
            why = problem.split(". ")[0].split(": ")[0]
    return "", why


def local_sweep_problem(directory: str) -> str:
    """Why the local sweep cannot run in ``directory`` ('' when it can). The default
    directory is created; any other must exist already."""
    if not directory.strip():
        return "Choose a directory to measure (it should be on the disk you want to know about)."
    path = Path(directory).expanduser()
    if not path.is_absolute():
        return f"{directory}: give the full path of a directory (starting with /)."
    if not path.exists() and path == default_bench_dir():
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            return f"{path}: cannot create it ({exc.strerror or exc}). Choose another directory."
    return _room_problem(path, "directory")


def _example_line(path: Path) -> tuple[str, str]:
    try:
        topo = topofile.load(path)
    except topofile.TopologyFileError as exc:
        return path.name, f"cannot be read: {exc.report().splitlines()[0]}"
    bricks = sum(len(n.bricks) for n in topo.nodes)
    what = f"{len(topo.nodes)} servers, {bricks} bricks" + (f", {len(topo.sites)} sites" if len(topo.sites) > 1 else "")
    return topo.name or path.name, f"{what} — {topo.description}" if topo.description else what


class WelcomeView(QWidget):
    sig_benchmark = Signal(str, str)
    """(directory, tmpfs path or ''): measure this machine there."""
    sig_open_example = Signal(object)
    """Path: an example to open as an untitled copy."""
    sig_open_file = Signal(str)
    """str: a recent file to open."""
    sig_import = Signal()
    sig_new = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("welcome")
        title = QLabel("<h1>Welcome to Brickyard</h1>")
        intro = QLabel("Plan a GlusterFS volume on a canvas and see what gluster would accept, provision it over "
                       "SSH, benchmark it and keep every run in a history. No cluster at hand? Measure this "
                       "machine first: it becomes the baseline your cluster's figures are read against.")
        intro.setWordWrap(True)

        self.bench_button = QCommandLinkButton("Benchmark this machine")
        self.bench_button.setObjectName("welcome-benchmark")
        self.tmpfs, why_no_tmpfs = find_tmpfs()
        self.bench_button.setDescription(
            f"{SWEEP_WORDS}: in the directory below, then in tmpfs ({self.tmpfs}: RAM, the ceiling)"
            if self.tmpfs else f"{SWEEP_WORDS}, in the directory below (no ceiling: {why_no_tmpfs})")
        self.dir_edit = QLineEdit(str(default_bench_dir()))
        self.dir_edit.setObjectName("welcome-directory")
        self.dir_edit.setToolTip("A directory on the disk you want to measure. The run writes its files in a "
                                 "directory of its own inside it and removes them at the end.")
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        self.problem = QLabel()
        self.problem.setObjectName("welcome-problem")
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet("color: #b00020;")
        self.problem.hide()
        self.note = QLabel("About a minute. Both runs are stored in the history and open charted: one file vs "
                           "4 at once, per block size. Progress shows on the Run tab.")
        self.note.setWordWrap(True)
        self.note.setStyleSheet("color: #555;")

        self.import_button = QCommandLinkButton("Import from a cluster",
                                                "How to reach it (SSH config, key, user), a node, its clients: read "
                                                "the pool over SSH and draw it, volumes or none yet (then its "
                                                "servers and free brick filesystems). Nothing on the cluster changes.")
        self.import_button.setObjectName("welcome-import")
        self.new_button = QCommandLinkButton("New topology", "An empty canvas: add sites (S), servers (N) and their "
                                             "bricks (B), then choose a layout.")
        self.new_button.setObjectName("welcome-new")
        self.example_buttons: list[QCommandLinkButton] = []
        examples = QVBoxLayout()
        examples.setSpacing(0)
        for path in example_files():
            name, line = _example_line(path)
            button = QCommandLinkButton(name, line)
            button.setObjectName(f"welcome-example-{path.name}")
            button.clicked.connect(lambda _=False, p=path: self.sig_open_example.emit(p))
            self.example_buttons.append(button)
            examples.addWidget(button)

        self.recent = QListWidget()
        self.recent.setObjectName("welcome-recent")
        self.recent.itemActivated.connect(self._open_recent)
        self.no_recent = QLabel("No recent files yet: what you open or save is listed here.")
        self.no_recent.setWordWrap(True)
        self.no_recent.setStyleSheet("color: #555;")

        bench = QVBoxLayout()
        bench.addWidget(self.bench_button)
        row = QHBoxLayout()
        row.setContentsMargins(40, 0, 0, 0)
        row.addWidget(QLabel("Directory:"))
        row.addWidget(self.dir_edit, 1)
        row.addWidget(browse)
        bench.addLayout(row)
        for label in (self.problem, self.note):
            label.setContentsMargins(40, 0, 0, 0)
            bench.addWidget(label)

        left = QVBoxLayout()
        left.addLayout(bench)
        left.addWidget(_rule())
        left.addWidget(self.import_button)
        left.addWidget(self.new_button)
        left.addStretch(1)
        right = QVBoxLayout()
        right.addWidget(QLabel("<b>Open an example</b>"))
        right.addLayout(examples)
        right.addSpacing(12)
        right.addWidget(QLabel("<b>Recent files</b>"))
        right.addWidget(self.recent)
        right.addWidget(self.no_recent)

        logo = QLabel()
        logo.setPixmap(app_icon().pixmap(64, 64))
        heading = QHBoxLayout()
        heading.addWidget(logo)
        heading.addWidget(title, 1)
        grid = QGridLayout()
        grid.setHorizontalSpacing(32)
        grid.addLayout(heading, 0, 0, 1, 2)
        grid.addWidget(intro, 1, 0, 1, 2)
        grid.addLayout(left, 2, 0, Qt.AlignmentFlag.AlignTop)
        grid.addLayout(right, 2, 1, Qt.AlignmentFlag.AlignTop)
        grid.setColumnStretch(0, 1)
        grid.setColumnStretch(1, 1)
        grid.setRowStretch(3, 1)
        page = QWidget()
        page.setMaximumWidth(1280)
        page.setLayout(grid)
        holder = QWidget()
        outer = QHBoxLayout(holder)
        outer.addStretch(0)
        outer.addWidget(page, 1)
        outer.addStretch(0)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(holder)
        QVBoxLayout(self).addWidget(scroll)

        self.bench_button.clicked.connect(self.benchmark)
        self.dir_edit.returnPressed.connect(self.benchmark)
        self.dir_edit.textEdited.connect(lambda _t: self.say_problem(""))
        self.import_button.clicked.connect(self.sig_import)
        self.new_button.clicked.connect(self.sig_new)
        self.set_recent([])

    # ---- benchmark this machine -----------------------------------------------------
    def benchmark(self) -> bool:
        """Ask for the local sweep on the directory and tmpfs (False: a problem is shown instead)."""
        directory = str(Path(self.dir_edit.text().strip()).expanduser()) if self.dir_edit.text().strip() else ""
        problem = local_sweep_problem(directory)
        self.say_problem(problem)
        if problem:
            return False
        self.sig_benchmark.emit(directory, self.tmpfs)
        return True

    def say_problem(self, text: str) -> None:
        self.problem.setText(text)
        self.problem.setVisible(bool(text))

    def _browse(self) -> None:
        chosen = QFileDialog.getExistingDirectory(self, "Directory to measure", self.dir_edit.text())
        if chosen:
            self.dir_edit.setText(chosen)
            self.say_problem("")

    # ---- recent files ---------------------------------------------------------------
    def set_recent(self, paths: list[str]) -> None:
        self.recent.clear()
        for text in paths:
            missing = not Path(text).is_file()
            item = QListWidgetItem(f"{Path(text).name} — {Path(text).parent}" + ("  (missing)" if missing else ""))
            item.setData(ROLE, text)
            item.setToolTip(text if not missing else f"{text} is no longer there")
            if missing:
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEnabled)
            self.recent.addItem(item)
        self.recent.setVisible(bool(paths))
        self.no_recent.setVisible(not paths)

    def _open_recent(self, item: QListWidgetItem) -> None:
        self.sig_open_file.emit(item.data(ROLE))


def _rule() -> QFrame:
    line = QFrame()
    line.setFrameShape(QFrame.Shape.HLine)
    line.setFrameShadow(QFrame.Shadow.Sunken)
    return line
