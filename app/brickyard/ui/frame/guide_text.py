"""The user guide's text: its chapters (``resources/guide/NN-name.md``), their sections, and
a search over them. Plain Python, no Qt: the Help ▸ User guide window (``ui/frame/guide.py``) shows
what this reads, and the tests that check the guide's command lines and paths read the same.

A chapter is one Markdown file; its ``#`` heading is its title and its ``##`` headings are its
sections (headings inside fenced code are not headings). Section anchors are GitHub's, so a
link ``03-planner.md#docks-size-and-layout`` works on GitHub and in the window alike.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

GUIDE_PARTS = ("resources", "guide")
CHAPTER_GLOB = "[0-9][0-9]-*.md"
_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_MARKUP = re.compile(r"\*\*|__|`|!\[[^\]]*\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")


def slug(title: str) -> str:
    """GitHub's anchor for a heading: lower case, markup and punctuation dropped (letters, digits,
    ``-`` and ``_`` kept), spaces as ``-``."""
    text = _LINK.sub(r"\1", title).lower()
    text = "".join(ch for ch in text if ch.isalnum() or ch in " -_")
    return text.replace(" ", "-")


def plain(markdown: str) -> str:
    """A line of Markdown as a reader sees it: no emphasis marks, backquotes or image links;
    a link as its text."""
    return _LINK.sub(r"\1", _MARKUP.sub("", markdown))


@dataclass(frozen=True)
class Section:
    title: str          # as the reader sees it (markup dropped)
    anchor: str         # GitHub's slug of the heading
    level: int          # 1 for the chapter's title, 2 for a section, …
    first_line: int     # index of the heading line in the chapter's lines
    last_line: int      # index one past the section's last line


@dataclass(frozen=True)
class Chapter:
    path: Path
    title: str
    text: str
    sections: tuple[Section, ...]   # the title (level 1) first, then every heading in order

    @property
    def name(self) -> str:
        return self.path.name

    def section(self, anchor: str) -> Section | None:
        return next((s for s in self.sections if s.anchor == anchor), None)

    def section_at(self, line: int) -> Section:
        """The innermost section holding line ``line``."""
        found = self.sections[0]
        for section in self.sections:
            if section.first_line <= line < section.last_line and section.level >= found.level:
                found = section
        return found


def parse_chapter(path: Path, text: str | None = None) -> Chapter:
    text = path.read_text(encoding="utf-8") if text is None else text
    lines = text.split("\n")
    heads: list[tuple[int, int, str]] = []        # (line, level, title)
    in_fence = False
    for i, line in enumerate(lines):
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        match = None if in_fence else _HEADING.match(line)
        if match:
            heads.append((i, len(match.group(1)), match.group(2)))
    sections = []
    for n, (line, level, title) in enumerate(heads):
        end = next((other for other, other_level, _ in heads[n + 1:] if other_level <= level), len(lines))
        sections.append(Section(plain(title), slug(title), level, line, end))
    if not sections or sections[0].level != 1:
        sections.insert(0, Section(path.stem, slug(path.stem), 1, 0, len(lines)))
    return Chapter(path, sections[0].title, text, tuple(sections))


def guide_dir(root: Path) -> Path:
    """The guide's folder under a source tree (or the bundle's ``brickyard/``) ``root``."""
    return root.joinpath(*GUIDE_PARTS)


def load_chapters(folder: Path) -> list[Chapter]:
    """Every chapter of the guide in ``folder``, in the order of their file names."""
    return [parse_chapter(path) for path in sorted(folder.glob(CHAPTER_GLOB)) if path.is_file()]


_IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")


def images(chapter: Chapter) -> list[str]:
    """The pictures ``chapter`` shows, as written (relative to the guide's folder)."""
    return _IMAGE.findall(chapter.text)


@dataclass(frozen=True)
class Hit:
    chapter: Chapter
    section: Section
    snippet: str      # the first line of the section that holds a word of the query, plain
    count: int        # how often the query's words occur in the section


def query_words(query: str) -> list[str]:
    return [word for word in query.casefold().split() if word]


def search(chapters: list[Chapter], query: str, snippet_width: int = 90) -> list[Hit]:
    """Every section (the deepest heading holding the text) whose text holds every word of
    ``query`` (case-insensitive), in the guide's order; a chapter's text before its first
    ``##`` counts as the chapter's title section."""
    words = query_words(query)
    if not words:
        return []
    hits: list[Hit] = []
    for chapter in chapters:
        lines = chapter.text.split("\n")
        # each line belongs to the deepest heading above it
        leaves = sorted(chapter.sections, key=lambda s: s.first_line)
        for n, section in enumerate(leaves):
            end = leaves[n + 1].first_line if n + 1 < len(leaves) else len(lines)
            body = [plain(line) for line in lines[section.first_line:end]]
            folded = "\n".join(body).casefold()
            if not all(word in folded for word in words):
                continue
            count = sum(folded.count(word) for word in words)
            # the body's lines first (the heading is the section's name, listed anyway), then the heading
            text = [line.strip(" |").replace(" | ", " · ") for line in body[1:] if line.strip()] + [body[0].lstrip("# ")]
            line = next((line for line in text if all(word in line.casefold() for word in words)), None) \
                or next((line for line in text if any(word in line.casefold() for word in words)), text[-1])
            word = next((word for word in words if word in line.casefold()), words[0])
            hits.append(Hit(chapter, section, _clip(line, word, snippet_width), count))
    return hits


def _clip(line: str, word: str, width: int) -> str:
    if len(line) <= width:
        return line
    at = max(0, line.casefold().find(word) - width // 3)
    if at:                                   # start at a word
        space = line.find(" ", at)
        at = space + 1 if 0 <= space < line.casefold().find(word) else at
    piece = line[at:at + width]
    return ("…" if at else "") + piece + ("…" if at + width < len(line) else "")
