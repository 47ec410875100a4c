"""Help ▸ User guide (F1): the guide's chapters (``resources/guide``, shipped with this Brickyard
so it matches the version) with a table of contents, a search, and links between chapters.

- The contents list every chapter and its sections; clicking one opens it there.
- Typing in the search field lists every section that holds all the typed words (chapter ▸
  section, and the line where they first occur); Enter opens the next one, the words marked.
  Ctrl+F comes back to the field, Alt+Left goes back.
- F1 opens the chapter about the tab in front (the Run tab: the loop in the window, …).
- Links to another chapter (``05-window-loop.md#…``) open it in place; a web link or a file
  outside the guide opens outside.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QByteArray, Qt, QUrl
from PySide6.QtGui import (QColor, QDesktopServices, QGuiApplication, QImage, QKeySequence, QShortcut, QTextCharFormat,
                           QTextCursor, QTextDocument)
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QLineEdit, QPushButton, QTextBrowser, QTextEdit, QTreeWidget,
                               QTreeWidgetItem, QVBoxLayout, QWidget)

from ..widgets.make import STRETCH, hbox, splitter, vstack, wrapped_label
from . import guide_text
from .files import shipped

GUIDE_IMAGE_WIDTH = 760     # fits the text beside the contents in the 1200 px dialog
_ROLE = Qt.ItemDataRole.UserRole

#: the chapter (and section) F1 opens for the tab in front, by the tab's title
TAB_TOPICS = {
    "Welcome": ("02-first-start.md", "the-welcome-view"),
    "Planner": ("03-planner.md", ""),
    "Pre-flight": ("04-reaching-the-cluster.md", "from-the-window"),
    "Provision": ("04-reaching-the-cluster.md", "from-the-window"),
    "Run": ("05-window-loop.md", ""),
    "Campaign": ("09-campaigns.md", ""),
    "Decision": ("09-campaigns.md", "the-decision-table"),
    "History": ("08-history.md", "the-history-view"),
    "Change": ("16-day-two.md", "in-the-window-the-change-tab"),
    "Change history": ("16-day-two.md", "the-change-history-and-the-record"),
}


def guide_folder() -> Path:
    return shipped(*guide_text.GUIDE_PARTS)


class _GuideBrowser(QTextBrowser):
    """A text browser that shows the screenshots at a readable width, not at the 1600 px they
    were taken at (which made the whole guide scroll sideways)."""

    def loadResource(self, kind: int, url: QUrl):  # noqa: N802 - Qt's name
        resource = super().loadResource(kind, url)
        if kind != QTextDocument.ResourceType.ImageResource.value:
            return resource
        image = resource if isinstance(resource, QImage) else QImage.fromData(resource) \
            if isinstance(resource, (QByteArray, bytes)) else QImage()
        if not image.isNull() and image.width() > GUIDE_IMAGE_WIDTH:
            return image.scaledToWidth(GUIDE_IMAGE_WIDTH, Qt.TransformationMode.SmoothTransformation)
        return resource


class UserGuide(QDialog):
    """The guide: contents and search on the left, the open chapter on the right."""

    def __init__(self, parent: QWidget | None = None, folder: Path | None = None):
        super().__init__(parent)
        self.setWindowTitle("Brickyard user guide")
        self.setObjectName("user-guide")
        self.folder = folder or guide_folder()
        self.chapters = guide_text.load_chapters(self.folder) if self.folder.is_dir() else []
        self.chapter: guide_text.Chapter | None = None
        self.hits: list[guide_text.Hit] = []
        self._hit_index = -1
        self._history: list[tuple[str, str]] = []

        self.search_field = QLineEdit()
        self.search_field.setObjectName("guide-search")
        self.search_field.setPlaceholderText("Search the guide")
        self.search_field.setClearButtonEnabled(True)
        self.search_field.textChanged.connect(self._search)
        self.search_field.returnPressed.connect(self.next_hit)
        self.search_note = wrapped_label("", "guide-search-note")
        self.contents = QTreeWidget()
        self.contents.setObjectName("guide-contents")
        self.contents.setHeaderHidden(True)
        self.contents.itemActivated.connect(self._open_item)
        self.contents.itemClicked.connect(self._open_item)
        self.browser = _GuideBrowser()
        self.browser.setObjectName("guide-text")
        self.browser.setOpenLinks(False)
        self.browser.anchorClicked.connect(self.follow_link)

        left = vstack(self.search_field, self.search_note, self.contents)
        parts = splitter(Qt.Orientation.Horizontal, left, (self.browser, 1), sizes=(380, 820))
        self.back_button = QPushButton("Back")
        self.back_button.setToolTip("The place you were before (Alt+Left)")
        self.back_button.setEnabled(False)
        self.back_button.clicked.connect(self.back)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        # Enter belongs to the search field (the next hit), never to a button of the dialog
        for button in (self.back_button, buttons.button(QDialogButtonBox.StandardButton.Close)):
            button.setAutoDefault(False)
            button.setDefault(False)
        layout = QVBoxLayout(self)
        layout.addWidget(parts)
        layout.addLayout(hbox(self.back_button, STRETCH, buttons))
        QShortcut(QKeySequence.StandardKey.Find, self, activated=self.focus_search)
        QShortcut(QKeySequence.StandardKey.Back, self, activated=self.back)
        QShortcut(QKeySequence("F3"), self, activated=self.next_hit)

        self._fill_contents()
        if self.chapters:
            self.open(self.chapters[0].name)
        else:
            self.browser.setPlainText(f"The user guide is not part of this installation: {self.folder} holds no "
                                      "chapter (NN-name.md).")
        screen = (parent.screen() if parent is not None else QGuiApplication.primaryScreen()).availableGeometry()
        self.resize(min(1200, screen.width() - 80), min(900, screen.height() - 80))

    # ---- contents -------------------------------------------------------------------
    def _fill_contents(self) -> None:
        self.contents.clear()
        for chapter in self.chapters:
            top = QTreeWidgetItem([chapter.title])
            top.setData(0, _ROLE, (chapter.name, ""))
            top.setToolTip(0, chapter.title)
            for section in chapter.sections:
                if section.level == 2:
                    item = QTreeWidgetItem([section.title])
                    item.setData(0, _ROLE, (chapter.name, section.anchor))
                    item.setToolTip(0, section.title)
                    top.addChild(item)
            self.contents.addTopLevelItem(top)

    def _open_item(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        target = item.data(0, _ROLE)
        if target is None:
            return
        if isinstance(target, int):              # a search hit
            self._show_hit(target)
        else:
            self.open(*target)

    # ---- opening --------------------------------------------------------------------
    def chapter_named(self, name: str) -> guide_text.Chapter | None:
        return next((c for c in self.chapters if c.name == name), None)

    def open(self, name: str, anchor: str = "", remember: bool = True) -> bool:
        """Show chapter ``name`` (a file name), at the heading ``anchor`` when given."""
        chapter = self.chapter_named(name)
        if chapter is None:
            return False
        if remember and self.chapter is not None:
            self._history.append((self.chapter.name, self._anchor_in_view()))
            self.back_button.setEnabled(True)
        if chapter is not self.chapter:
            self.chapter = chapter
            self.browser.setSearchPaths([str(chapter.path.parent)])
            self.browser.setMarkdown(chapter.text)
        self._mark_words(self._words())
        self.go_to(anchor)
        return True

    def heading_position(self, anchor: str) -> int:
        """Where the heading with GitHub anchor ``anchor`` starts in the open chapter (-1: not there)."""
        block = self.browser.document().begin()
        while block.isValid():
            if block.blockFormat().headingLevel() and guide_text.slug(block.text()) == anchor:
                return block.position()
            block = block.next()
        return -1

    def go_to(self, anchor: str = "") -> bool:
        position = 0 if not anchor else self.heading_position(anchor)
        if position < 0:
            return False
        self._scroll_to(position)
        return True

    def _scroll_to(self, position: int) -> None:
        block = self.browser.document().findBlock(position)
        layout = self.browser.document().documentLayout()
        self.browser.verticalScrollBar().setValue(int(layout.blockBoundingRect(block).top()))

    def _anchor_in_view(self) -> str:
        top = self.browser.cursorForPosition(self.browser.viewport().rect().topLeft()).position()
        anchor = ""
        block = self.browser.document().begin()
        while block.isValid() and block.position() <= top:
            if block.blockFormat().headingLevel():
                anchor = guide_text.slug(block.text())
            block = block.next()
        return anchor

    def back(self) -> None:
        if self._history:
            self.open(*self._history.pop(), remember=False)
        self.back_button.setEnabled(bool(self._history))

    def follow_link(self, url: QUrl) -> None:
        """A link in the text: another chapter (or a heading of this one) opens here; anything
        else (a web page, a file of the source tree) opens outside."""
        if url.scheme() in ("", "file") and (url.path() == "" or url.path().endswith(".md")):
            name = Path(url.path()).name if url.path() else (self.chapter.name if self.chapter else "")
            if self.open(name, url.fragment()):
                return
        if url.isRelative():
            url = QUrl.fromLocalFile(str((self.folder / url.path()).resolve()))
        QDesktopServices.openUrl(url)

    # ---- search ---------------------------------------------------------------------
    def focus_search(self) -> None:
        self.search_field.setFocus()
        self.search_field.selectAll()

    def _words(self) -> list[str]:
        return guide_text.query_words(self.search_field.text())

    def _search(self, text: str) -> None:
        words = guide_text.query_words(text)
        self.hits = guide_text.search(self.chapters, text) if words else []
        self._hit_index = -1
        self._mark_words(words)
        if not words:
            self.search_note.clear()
            self._fill_contents()
            return
        self.contents.clear()
        chapters: dict[str, QTreeWidgetItem] = {}
        for n, hit in enumerate(self.hits):
            top = chapters.get(hit.chapter.name)
            if top is None:
                top = chapters[hit.chapter.name] = QTreeWidgetItem([hit.chapter.title])
                top.setData(0, _ROLE, (hit.chapter.name, ""))
                self.contents.addTopLevelItem(top)
            item = QTreeWidgetItem([f"{hit.section.title} — {hit.snippet}"])
            item.setToolTip(0, f"{hit.chapter.title} ▸ {hit.section.title}\n{hit.snippet}")
            item.setData(0, _ROLE, n)
            top.addChild(item)
        self.contents.expandAll()
        quoted = " ".join(words)
        self.search_note.setText(f"{len(self.hits)} section{'s' if len(self.hits) != 1 else ''} mention “{quoted}”"
                                 f"{' (Enter: the next one)' if self.hits else ''}" if self.hits
                                 else f"Nothing in the guide mentions “{quoted}”.")

    def next_hit(self) -> None:
        if self.hits:
            self._show_hit((self._hit_index + 1) % len(self.hits))

    def _show_hit(self, index: int) -> None:
        self._hit_index = index
        hit = self.hits[index]
        self.open(hit.chapter.name, remember=self.chapter is not hit.chapter)
        # the first place a word occurs at or after the section's heading
        heading = self.heading_position(hit.section.anchor) if hit.section.level > 1 else 0
        cursor = self._find_word(max(heading, 0))
        if cursor is not None:
            self._scroll_to(cursor.position())
            self.browser.setTextCursor(cursor)
            self.browser.ensureCursorVisible()
        for i in range(self.contents.topLevelItemCount()):
            top = self.contents.topLevelItem(i)
            for j in range(top.childCount()):
                if top.child(j).data(0, _ROLE) == index:
                    self.contents.setCurrentItem(top.child(j))

    def _find_word(self, position: int) -> QTextCursor | None:
        words = self._words()
        document = self.browser.document()
        found = [c for c in (document.find(word, position) for word in words) if not c.isNull()]
        return min(found, key=lambda c: c.position()) if found else None

    def _mark_words(self, words: list[str]) -> None:
        """Every place a searched word occurs in the open chapter, marked."""
        marks = []
        fmt = QTextCharFormat()
        fmt.setBackground(QColor("#fff59d"))
        document = self.browser.document()
        for word in words:
            cursor = document.find(word, 0)
            while not cursor.isNull() and len(marks) < 2000:
                selection = QTextEdit.ExtraSelection()
                selection.cursor = cursor
                selection.format = fmt
                marks.append(selection)
                cursor = document.find(word, cursor)
        self.browser.setExtraSelections(marks)

    @property
    def marked(self) -> int:
        """How many places are marked (the searched words in the open chapter)."""
        return len(self.browser.extraSelections())


def guide_problems(folder: Path | None = None) -> list[str]:
    """What keeps the guide in ``folder`` from being shown whole (the self-test's check): no
    chapter, a picture a chapter shows that is not there, an F1 topic with no chapter."""
    folder = folder or guide_folder()
    chapters = guide_text.load_chapters(folder) if folder.is_dir() else []
    if not chapters:
        return [f"no user guide for Help ▸ User guide ({folder} holds no chapter)"]
    problems = [f"the guide's {chapter.name} shows {image}, which is missing"
                for chapter in chapters for image in guide_text.images(chapter)
                if not (folder / image).is_file()]
    names = {chapter.name for chapter in chapters}
    problems += [f"F1 on the {tab} tab opens {name}, which is not in the guide"
                 for tab, (name, _anchor) in TAB_TOPICS.items() if name not in names]
    return problems


def topic_for(window: QWidget) -> tuple[str, str]:
    """The chapter and section about what ``window`` shows in front."""
    tabs = getattr(window, "tabs", None)
    title = tabs.tabText(tabs.currentIndex()) if tabs is not None and tabs.count() else ""
    return TAB_TOPICS.get(title, TAB_TOPICS["Welcome"])


def show_user_guide(window: QWidget) -> UserGuide:
    guide = getattr(window, "_user_guide", None)
    if guide is None:
        guide = UserGuide(window)
        window._user_guide = guide
    guide.show()
    guide.raise_()
    guide.activateWindow()
    guide.open(*topic_for(window))
    return guide
