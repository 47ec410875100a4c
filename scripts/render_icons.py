"""Render resources/icons/brickyard.svg to the PNG sizes desktops look for (16–256 px).

Run after changing the SVG: ``.venv/bin/python scripts/render_icons.py``. The PNGs are
committed (resources/icons/hicolor/NxN/apps/brickyard.png, the freedesktop icon theme
layout that packaging/install.sh copies into ~/.local/share/icons/hicolor).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtGui import QGuiApplication, QImage, QPainter  # noqa: E402
from PySide6.QtSvg import QSvgRenderer  # noqa: E402

SIZES = (16, 22, 24, 32, 48, 64, 128, 256)
ICONS = Path(__file__).resolve().parents[1] / "resources" / "icons"


def main() -> int:
    _app = QGuiApplication(sys.argv[:1])
    renderer = QSvgRenderer(str(ICONS / "brickyard.svg"))
    if not renderer.isValid():
        print(f"{ICONS / 'brickyard.svg'}: not a valid SVG", file=sys.stderr)
        return 1
    for size in SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter)
        painter.end()
        out = ICONS / "hicolor" / f"{size}x{size}" / "apps" / "brickyard.png"
        out.parent.mkdir(parents=True, exist_ok=True)
        image.save(str(out))
        print(out.relative_to(ICONS.parents[1]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
