"""What every block of a report is (``Block``: how tall at a width, how it splits across a page
break, how it paints and how it writes itself as HTML), the blocks with nothing in them
(``PageBreak``, ``Spacer``), and the HTML escaping the text blocks and tables share. The blocks
themselves are in ``textblocks.py`` and ``table.py``; ``blocks.py`` names them all."""

from __future__ import annotations

import html
from dataclasses import dataclass

from PySide6.QtGui import QPainter

from .typeset import Typeset


def esc(text: str) -> str:
    return html.escape(text, quote=True)


class Block:
    """Something on a page. ``space_before`` is dropped at the top of a page; a block with
    ``keep_with_next`` never ends a page (a heading stays with what it introduces)."""

    space_before: float = 4.0
    keep_with_next: bool = False
    splittable: bool = False

    def height(self, ts: Typeset, width: float) -> float:
        raise NotImplementedError

    def split(self, ts: Typeset, width: float, avail: float) -> tuple["Block | None", "Block | None"]:
        """(part that fits in ``avail``, the rest); (None, self) when nothing sensible fits."""
        return None, self

    def lead_height(self, ts: Typeset, width: float) -> float:
        """The least of it that must follow a heading on the same page: all of a block that
        cannot split; the first lines or rows of one that can."""
        h = self.height(ts, width)
        return min(h, 48.0) if self.splittable else h

    def paint(self, ts: Typeset, painter: QPainter, x: float, y: float, width: float) -> None:
        raise NotImplementedError

    def html(self) -> str:
        raise NotImplementedError


class PageBreak(Block):
    space_before = 0.0

    def height(self, ts: Typeset, width: float) -> float:
        return 0.0

    def paint(self, ts: Typeset, painter: QPainter, x: float, y: float, width: float) -> None:
        pass

    def html(self) -> str:
        return ""


@dataclass
class Spacer(Block):
    amount: float = 6.0
    space_before: float = 0.0

    def height(self, ts: Typeset, width: float) -> float:
        return self.amount

    def paint(self, ts: Typeset, painter: QPainter, x: float, y: float, width: float) -> None:
        pass

    def html(self) -> str:
        return ""



def span_html(text: str, style: str) -> str:
    out = esc(text).replace("\n", "<br>")
    if "bold" in style or style in ("h1", "h2", "h3"):
        out = f"<b>{out}</b>"
    if "italic" in style:
        out = f"<i>{out}</i>"
    if style.startswith(("small", "tiny")):
        out = f'<span class="small">{out}</span>'
    if style.startswith("mono"):
        out = f"<code>{out}</code>"
    return out
