"""Help ▸ User guide (F1): the chapters of resources/guide with contents and search, opened at
the chapter about the tab in front; links between chapters; every picture shown; a bundle
without the guide says so (issue 21, "The user guide")."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPoint, Qt, QUrl
from PySide6.QtGui import QImage, QTextCursor, QTextDocument
from PySide6.QtWidgets import QApplication

from brickyard.ui.frame import guide_text
from brickyard.ui.frame.guide import GUIDE_IMAGE_WIDTH, UserGuide, guide_folder, guide_problems
from brickyard.ui.frame.mainwindow import MainWindow

from .helpers import show_active, small_topology

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = sorted((ROOT / "resources" / "guide").glob("[0-9][0-9]-*.md"))


def _heading_in_view(guide: UserGuide, anchor: str) -> bool:
    """The heading is on screen: at the top of the view, or in it when the chapter ends first."""
    document = guide.browser.document()
    block = document.findBlock(guide.heading_position(anchor))
    top = document.documentLayout().blockBoundingRect(block).top() - guide.browser.verticalScrollBar().value()
    at_end = guide.browser.verticalScrollBar().value() == guide.browser.verticalScrollBar().maximum()
    return abs(top) < 5 or at_end and 0 <= top < guide.browser.viewport().height()


def _press_f1(qtbot, window) -> UserGuide:
    qtbot.keyClick(window, Qt.Key.Key_F1)
    guide = window._user_guide
    qtbot.waitUntil(guide.isVisible)
    return guide


def test_f1_opens_the_guide_at_the_chapter_about_the_tab_in_front_with_every_chapter_listed(qtbot):
    window = MainWindow(small_topology())
    show_active(qtbot, window)
    guide = _press_f1(qtbot, window)
    assert guide_folder() == ROOT / "resources" / "guide"
    assert guide.chapter.name == "03-planner.md"
    assert guide.browser.toPlainText().startswith("The planner window")
    # the contents: every chapter file, by its title, with its sections under it
    tops = [guide.contents.topLevelItem(i) for i in range(guide.contents.topLevelItemCount())]
    assert [t.text(0) for t in tops] == [guide_text.parse_chapter(p).title for p in CHAPTERS]
    assert len(tops) == len(CHAPTERS) >= 10
    planner = tops[[p.name for p in CHAPTERS].index("03-planner.md")]
    assert "Clients, mounts and volume options" in [planner.child(i).text(0) for i in range(planner.childCount())]
    guide.close()
    # on the welcome view F1 opens the first start, at the welcome view's section
    window.open_welcome()
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    guide = _press_f1(qtbot, window)
    assert guide.chapter.name == "02-first-start.md"
    assert _heading_in_view(guide, "the-welcome-view")
    assert "Benchmark this machine" in guide.browser.toPlainText()


def test_clicking_a_section_in_the_contents_opens_its_chapter_there(qtbot):
    guide = UserGuide()
    show_active(qtbot, guide)
    top = next(guide.contents.topLevelItem(i) for i in range(guide.contents.topLevelItemCount())
               if guide.contents.topLevelItem(i).text(0) == "History")
    top.setExpanded(True)
    child = next(top.child(i) for i in range(top.childCount()) if top.child(i).text(0) == "Units")
    guide.contents.scrollToItem(child)
    rect = guide.contents.visualItemRect(child)
    qtbot.mouseClick(guide.contents.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert guide.chapter.name == "08-history.md"
    assert _heading_in_view(guide, "units")


def test_typing_in_the_search_lists_each_section_that_mentions_it_and_enter_opens_the_next(qtbot):
    guide = UserGuide()
    show_active(qtbot, guide)
    qtbot.keyClick(guide, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert guide.search_field.hasFocus()
    qtbot.keyClicks(guide.search_field, "fstab")
    expected = guide_text.search(guide.chapters, "fstab")
    assert len(expected) >= 2 and len(guide.hits) == len(expected)
    assert {hit.chapter.name for hit in guide.hits} >= {"03-planner.md", "04-reaching-the-cluster.md"}
    listed = [guide.contents.topLevelItem(i).child(j).text(0) for i in range(guide.contents.topLevelItemCount())
              for j in range(guide.contents.topLevelItem(i).childCount())]
    assert len(listed) == len(expected) and all("fstab" in text.casefold() for text in listed)
    assert guide.search_note.text().startswith(f"{len(expected)} sections mention")
    seen = []
    for _ in expected:
        qtbot.keyClick(guide.search_field, Qt.Key.Key_Return)
        cursor = guide.browser.textCursor()
        assert cursor.selectedText().casefold() == "fstab"
        assert guide.browser.viewport().rect().intersects(guide.browser.cursorRect(cursor))   # in view
        assert guide.marked >= 1
        seen.append((guide.chapter.name, guide.contents.currentItem().text(0)))
    assert len(set(seen)) == len(expected)                 # each hit once, in turn
    # nothing found says so; clearing the field brings the contents back
    guide.search_field.clear()
    qtbot.keyClicks(guide.search_field, "zqxjv")
    assert guide.hits == [] and guide.search_note.text() == "Nothing in the guide mentions “zqxjv”."
    guide.search_field.clear()
    assert guide.contents.topLevelItemCount() == len(CHAPTERS) and guide.marked == 0


def test_a_link_to_another_chapter_opens_it_at_its_heading_and_back_returns(qtbot):
    guide = UserGuide()
    show_active(qtbot, guide)
    guide.resize(1200, 800)
    assert guide.open("05-window-loop.md")
    # the first link in the chapter ("Reaching the cluster" or "The gluster sandbox"), clicked
    document = guide.browser.document()
    block = document.begin()
    cursor = None
    while block.isValid() and cursor is None:
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            if fragment.charFormat().isAnchor() and fragment.charFormat().anchorHref().endswith(".md"):
                cursor = QTextCursor(document)
                cursor.setPosition(fragment.position() + 1)
                href = fragment.charFormat().anchorHref()
                break
            it += 1
        block = block.next()
    assert cursor is not None
    guide.browser.setTextCursor(cursor)
    guide.browser.ensureCursorVisible()
    point = guide.browser.cursorRect(cursor).center() + QPoint(2, 0)
    qtbot.mouseClick(guide.browser.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert guide.chapter.name == Path(QUrl(href).path()).name != "05-window-loop.md"
    qtbot.keyClick(guide, Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)
    assert guide.chapter.name == "05-window-loop.md"
    # a link with a heading: 02-first-start.md#where-brickyard-keeps-things
    guide.follow_link(QUrl("02-first-start.md#where-brickyard-keeps-things"))
    assert guide.chapter.name == "02-first-start.md" and _heading_in_view(guide, "where-brickyard-keeps-things")


def test_every_chapter_shows_its_pictures_at_a_readable_width(qtbot):
    guide = UserGuide()
    qtbot.addWidget(guide)
    shown = 0
    for chapter in guide.chapters:
        guide.open(chapter.name)
        for image in guide_text.images(chapter):
            loaded = guide.browser.loadResource(QTextDocument.ResourceType.ImageResource.value, QUrl(image))
            picture = loaded if isinstance(loaded, QImage) else QImage.fromData(loaded)
            assert not picture.isNull(), (chapter.name, image)
            assert picture.width() <= GUIDE_IMAGE_WIDTH
            shown += 1
    assert shown >= 9
    assert guide_problems() == []


def test_a_guide_that_is_missing_or_shows_a_missing_picture_is_named(qtbot, tmp_path):
    guide = UserGuide(folder=tmp_path / "nowhere")
    qtbot.addWidget(guide)
    assert "The user guide is not part of this installation" in guide.browser.toPlainText()
    assert guide_problems(tmp_path / "nowhere")[0].startswith("no user guide")
    (tmp_path / "01-a.md").write_text("# A\n\n![x](../screenshots/gone.png)\n")
    problems = guide_problems(tmp_path)
    assert "the guide's 01-a.md shows ../screenshots/gone.png, which is missing" in problems
    assert any("F1 on the Planner tab opens 03-planner.md" in p for p in problems)


def test_the_search_answers_every_query_as_it_is_typed_one_key_at_a_time():
    """Each key typed searches again: no prefix of a query, no punctuation, may break it."""
    import string

    chapters = guide_text.load_chapters(ROOT / "resources" / "guide")
    for query in ("ssh config", "--ssh-config", "| table |", "# heading", "`brickyard lab`", "ünïcode ≈", "fstab"):
        for end in range(1, len(query) + 1):
            for hit in guide_text.search(chapters, query[:end]):
                assert hit.snippet and hit.count >= 1
    for char in string.printable:
        guide_text.search(chapters, char)
    # a section is found by every word, wherever in it they stand
    hits = guide_text.search(chapters, "passphrase keyring")
    assert hits and all("passphrase" in hit.chapter.text.casefold() for hit in hits)
