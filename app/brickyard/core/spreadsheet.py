"""CSV (and tab-separated text for the clipboard) that a spreadsheet opens as data, never as
formulas: a text cell starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return (a
run label ``=HYPERLINK(…)``, an option value ``@SUM(…)``) gets a leading apostrophe, which
spreadsheets show as text. A number (``-1.5``, ``+2e-3``) stays a number.

Every CSV Brickyard writes goes through ``csv_text``; the clipboard's through ``tsv_text``.
"""

from __future__ import annotations

import csv
import io
import re
from typing import Any, Iterable

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def safe_cell(value: Any) -> Any:
    """``value`` as a spreadsheet will read it as data: text that would start a formula is
    prefixed with an apostrophe; numbers and other text are unchanged."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


def csv_text(rows: Iterable[Iterable[Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerows([safe_cell(v) for v in row] for row in rows)
    return out.getvalue()


def tsv_text(rows: Iterable[Iterable[Any]]) -> str:
    """Tab-separated lines (no quoting: the clipboard's plain-text table)."""
    return "\n".join("\t".join(str(safe_cell(v)) for v in row) for row in rows)
