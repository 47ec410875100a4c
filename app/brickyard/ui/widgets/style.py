"""Colours and words the planner views share, so a set or a state looks the same everywhere."""

from __future__ import annotations

from PySide6.QtGui import QColor, QIcon

# Distinct, print-friendly hues for replica/disperse sets (cycled past twelve).
SET_COLOURS = [
    "#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948",
    "#ff9da7", "#9c755f", "#e15759", "#8cd17d", "#a0cbe8", "#d4a6c8",
]
STATE_COLOURS = {"UP": "#2e7d32", "DEGRADED": "#ef6c00", "DOWN": "#c62828"}
STATE_WORDS = {
    "UP": "UP: every brick answers",
    "DEGRADED": "DEGRADED: still serving, with less redundancy",
    "DOWN": "DOWN: some data cannot be read or written",
}
SEVERITY_COLOURS = {"error": "#c62828", "needs-force": "#ad1457", "warning": "#ef6c00"}
SEVERITY_WORDS = {"error": "Error", "needs-force": "Needs force", "warning": "Question"}
FAILED = "#c62828"
UNUSED = "#9e9e9e"
SITE_FILL = "#f3f5f8"
SITE_BORDER = "#b0b8c4"
NODE_FILL = "#ffffff"
NODE_BORDER = "#6b7785"
SELECTED = "#1e88e5"


def set_colour(index: int) -> QColor:
    return QColor(SET_COLOURS[index % len(SET_COLOURS)])


def state_colour(state: str) -> QColor:
    return QColor(STATE_COLOURS.get(state, "#607d8b"))


def app_icon() -> QIcon:
    """Brickyard's icon: the PNGs of resources/icons (16–256 px) and the SVG for any other size."""
    from ..frame.files import shipped

    icon = QIcon()
    folder = shipped("resources", "icons")
    for png in sorted(folder.glob("hicolor/*/apps/brickyard.png")):
        icon.addFile(str(png))
    if (folder / "brickyard.svg").is_file():
        icon.addFile(str(folder / "brickyard.svg"))
    return icon
