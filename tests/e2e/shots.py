"""Screenshots from e2e tests: with ``BRICKYARD_SHOTS=DIR`` (and a real X display) a test grabs
its window at the moments worth seeing; without it nothing is written."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtWidgets import QApplication


def shot(window, name: str) -> None:
    folder = os.environ.get("BRICKYARD_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        QApplication.processEvents()
        window.grab().save(str(Path(folder) / f"{name}.png"))
