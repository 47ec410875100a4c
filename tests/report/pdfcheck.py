"""Reading an exported PDF back with poppler's tools, as a reader's PDF viewer would:
``pdftotext`` for the words, ``pdffonts`` for the fonts, ``pdfimages -list`` for bitmaps,
``pdfinfo`` for the paper, ``pdftoppm`` for pictures of the pages."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path


def run(*argv: str) -> str:
    return subprocess.run(list(argv), capture_output=True, text=True, check=True, timeout=120).stdout


def text(pdf: Path, first: int | None = None, last: int | None = None, layout: bool = True,
         raw: bool = False) -> str:
    """The PDF's words: ``layout`` keeps columns where they are on the page; ``raw`` in the
    order they were drawn (a table cell's lines together)."""
    argv = ["pdftotext"]
    if raw:
        argv.append("-raw")
    elif layout:
        argv.append("-layout")
    if first:
        argv += ["-f", str(first)]
    if last:
        argv += ["-l", str(last)]
    return run(*argv, str(pdf), "-")


def fonts(pdf: Path) -> list[dict]:
    """One dict per font: name, type, emb ('yes'/'no')."""
    lines = run("pdffonts", str(pdf)).splitlines()[2:]
    out = []
    for line in lines:
        parts = line.split()
        # name type… encoding emb sub uni id gen: emb is the 5th field from the end
        out.append({"name": parts[0], "emb": parts[-5], "line": line})
    return out


def images(pdf: Path) -> list[str]:
    return run("pdfimages", "-list", str(pdf)).splitlines()[2:]


def page_size(pdf: Path) -> tuple[float, float]:
    info = run("pdfinfo", str(pdf))
    m = re.search(r"Page size:\s+([\d.]+) x ([\d.]+) pts", info)
    assert m, info
    return float(m.group(1)), float(m.group(2))


def title(pdf: Path) -> str:
    """The PDF's own Title (its metadata)."""
    m = re.search(r"^Title:\s+(.*)$", run("pdfinfo", str(pdf)), re.M)
    return m.group(1) if m else ""


def pages(pdf: Path) -> int:
    return int(re.search(r"Pages:\s+(\d+)", run("pdfinfo", str(pdf))).group(1))


def table_rows(layout_text: str, titles: list[str]) -> dict[str, list[list[str]]]:
    """Each line of ``pdftotext -layout`` output that starts with one of ``titles`` (longest
    match first) followed by a column gap, split into its cells at gaps of two or more
    spaces; a title found on several lines (a table in chunks) lists each line's cells."""
    ordered = sorted(titles, key=len, reverse=True)
    out: dict[str, list[list[str]]] = {t: [] for t in titles}
    for line in layout_text.splitlines():
        stripped = line.strip()
        for t in ordered:
            if stripped.startswith(t) and re.match(r"\s{2,}\S", stripped[len(t):]):
                out[t].append(re.split(r"\s{2,}", stripped[len(t):].strip()))
                break
    return out


def png_pages(pdf: Path, out_prefix: Path, dpi: int = 60, first: int = 1, last: int | None = None) -> list[Path]:
    argv = ["pdftoppm", "-png", "-r", str(dpi), "-f", str(first)]
    if last:
        argv += ["-l", str(last)]
    run(*argv, str(pdf), str(out_prefix))
    return sorted(out_prefix.parent.glob(out_prefix.name + "-*.png"))
