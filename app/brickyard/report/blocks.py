"""The pieces a report is made of — headings, paragraphs, tables, code, figures — each able to
say how tall it is at a width, split itself across a page break, paint itself (PDF) and
write itself as HTML. ``document.py`` builds the list; ``pdf.py`` pages and paints it;
``html.py`` writes it. The blocks hold text and numbers the document made from the content
object, never widgets.

This module only names them; they live in ``blockbase.py`` (``Block``, ``PageBreak``,
``Spacer``, the HTML escaping), ``textblocks.py`` (``Heading``, ``Paragraph``, ``Code``,
``Figure``) and ``table.py`` (``Table``, ``Cell``, ``Col``: the table and its column sizing)."""

from __future__ import annotations

from .blockbase import Block, PageBreak, Spacer, esc
from .table import Cell, Col, Table
from .textblocks import Code, Figure, Heading, Paragraph

__all__ = ["Block", "Cell", "Code", "Col", "Figure", "Heading", "PageBreak", "Paragraph", "Spacer", "Table", "esc"]
