"""The same report as one self-contained HTML file, for people who paste into a wiki: the same
blocks as the PDF (``document.build_document``), tables as HTML tables, every chart and
drawing as inline SVG painted by the very code that paints the PDF. No script, no external
file, nothing fetched."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Sequence

from ..core.atomicfile import write_atomic
from ..remote.loop import Progress
from .app import ensure_app
from .blocks import Block, Figure, esc
from .pdf import PageMeta
from .svg import svg_device
from .typeset import Typeset

TABLE_WIDTH = 940.0

CSS = """
body { font-family: 'DejaVu Sans', 'Segoe UI', Helvetica, Arial, sans-serif; color: #1a1a1a; max-width: 980px;
       margin: 2em auto; padding: 0 1em; font-size: 14px; line-height: 1.4; }
h1 { font-size: 1.8em; margin-bottom: .1em; } h2 { border-bottom: 1px solid #9aa0a6; margin-top: 1.6em; }
h3 { margin-top: 1.2em; } h4 { margin: 1em 0 .3em; }
table { border-collapse: collapse; margin: .5em 0 1em; font-size: 12px; }
th, td { border-bottom: 1px solid #dadce0; padding: 2px 6px; vertical-align: top; white-space: pre-line; }
th { background: #e3e6ea; text-align: left; } td.r, th.r { text-align: right; } td.c, th.c { text-align: center; }
td.g { font-style: italic; color: #5f6368; background: #eef1f4; }
tbody tr:nth-child(even) { background: #f6f7f8; }
caption { caption-side: bottom; color: #5f6368; font-size: 11px; text-align: left; }
pre { background: #f1f3f4; padding: .6em; overflow-x: auto; font-size: 12px; }
figure { margin: 1em 0; } figure svg { max-width: 100%; height: auto; }
figcaption { color: #5f6368; font-style: italic; font-size: 12px; }
.small { font-size: 12px; } .meta { color: #5f6368; } ul { margin: .2em 0; padding-left: 1.4em; }
"""


def write_html(build: Callable[[Typeset, float], Sequence[Block]], path: str | os.PathLike, meta: PageMeta,
               progress: Progress | None = None) -> int:
    """Write the HTML file (``core.atomicfile.write_atomic``: a temporary file, fsync, rename;
    an ``OSError`` leaves ``path`` as it was); returns its size. ``progress`` as for
    ``pdf.write_pdf``."""
    ensure_app()
    progress = progress or Progress()
    path = Path(path)
    ts = Typeset(svg_device(TABLE_WIDTH, 100))
    progress.set_progress(0.0, "laying out the report")
    blocks = build(ts, TABLE_WIDTH)
    parts = []
    for n, b in enumerate(blocks):
        progress.check()
        if isinstance(b, Figure) or n % 20 == 0:
            progress.set_progress(0.1 + 0.85 * n / len(blocks), f"writing part {n + 1} of {len(blocks)}")
        parts.append(b.html())
    body = "".join(parts)
    doc = (f"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
           f"<meta name=\"generator\" content=\"{esc(meta.creator)}\">\n<title>{esc(meta.title)}</title>\n"
           f"<style>{CSS}</style>\n</head>\n<body>\n{body}"
           f"<p class=\"meta small\">{esc(meta.footer_left)}</p>\n</body>\n</html>\n")
    data = doc.encode("utf-8")
    progress.check()
    progress.set_progress(0.95, f"saving {path.name}")
    write_atomic(path, data)
    progress.set_progress(1.0, f"saved {path.name}")
    return len(data)
