"""The main window's size and dock layout: bounded by the screen, planner docks only on the
planner tab, and both remembered between sessions.

- No view can widen the window: the window's layout does not impose its children's minimum
  size on the window (a History tab with a 1,455 px minimum once made a 1,600 px window 1,961 px
  wide, pushing the Layout dock off the screen). A view narrower than it would like is squeezed
  inside the window instead, never the other way round.
- A tab's minimum size counts only while that tab shows: a stacked layout takes the largest
  minimum of all its pages, so History's minimum squeezed the planner's docks to slivers even
  after going back to the Planner tab. Pages in the background get an Ignored size policy.
- The planner's docks (Inspector, Layout, Commands, …) belong to the Planner tab: on any other
  tab they are hidden, and coming back shows exactly the ones that were open, at their sizes.
- ``saveGeometry``/``saveState`` of the planner layout are written to the window's settings when
  it closes (base64 text in settings.json) and restored when the next one opens
  (``STATE_VERSION`` invalidates states saved by a Brickyard with other docks).
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QEvent, QObject, QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QMainWindow, QSizePolicy, QTabBar, QWidget

STATE_VERSION = 1
GEOMETRY_KEY = "window/geometry"
STATE_KEY = "window/state"
DEFAULT_SIZE = QSize(1600, 1000)
MINIMUM_SIZE = QSize(640, 480)
CANVAS_SHARE = 0.45        # of the window's width, at least, for the canvas on a narrow window
LAYOUT_DOCK_MIN = 300


class WindowLayout(QObject):
    def __init__(self, window: QMainWindow, planner: QWidget, settings):
        super().__init__(window)
        self.window = window
        self.planner = planner
        self.settings = settings
        self.docks = list(window.docks.values())
        self._planner_state: QByteArray | None = None  # the dock layout while another tab shows
        self._open_on_planner: list = []
        self._policies: dict[int, QSizePolicy] = {}  # id(page) -> its own policy while in the background
        self._seen_width = -1                        # the window's width docks were last fitted to
        window.installEventFilter(self)
        layout = window.layout()
        layout.setSizeConstraint(QLayout.SizeConstraint.SetNoConstraint)
        window.setMinimumSize(MINIMUM_SIZE)
        window.tabs.currentChanged.connect(self._tab_changed)

    # ---- size -----------------------------------------------------------------------
    def initial_size(self) -> QSize:
        """The default size, but never larger than the screen's free area."""
        screen = self.window.screen()
        if screen is None:
            return DEFAULT_SIZE
        room = screen.availableGeometry().size()
        return QSize(min(DEFAULT_SIZE.width(), room.width()), min(DEFAULT_SIZE.height(), room.height()))

    def fit_into_screen(self) -> bool:
        """Move and shrink the window so that its frame — title bar and borders included — lies
        in the screen's free area (a first start sized the window, not its frame, to the
        screen: the bottom row of buttons was 20 px off a 1600×900 screen). True if it moved."""
        screen = self.window.screen()
        if screen is None or self.window.isMaximized() or self.window.isFullScreen():
            return False
        frame, inner = self.window.frameGeometry(), self.window.geometry()
        target = fitted_frame(frame, screen.availableGeometry())
        if target == frame:
            return False
        self.window.resize(inner.width() - (frame.width() - target.width()),
                           inner.height() - (frame.height() - target.height()))
        self.window.move(target.topLeft())
        return True

    def fit_docks(self) -> None:
        """Planner side docks in proportion on a narrow window: the canvas keeps at least
        CANVAS_SHARE of the width (at 1200 px, and on a smaller screen, the Inspector and the
        Layout dock kept 270 + 440 px and left the canvas ~150)."""
        if not self.on_planner() or self.window.width() <= 0:
            return
        width = self.window.width()
        if self.planner.width() >= CANVAS_SHARE * width:
            return
        docks = self.window.docks
        want = {"inspector": max(170, int(width * 0.16)), "layout": max(LAYOUT_DOCK_MIN, int(width * 0.30))}
        sides = [(docks[k], w) for k, w in want.items()
                 if k in docks and docks[k].isVisible() and not docks[k].isFloating() and docks[k].width() > w]
        if sides:
            self.window.resizeDocks([d for d, _ in sides], [w for _, w in sides], Qt.Orientation.Horizontal)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt API)
        # only a window on screen made narrower or wider: the resize of a restored session (sent
        # before it shows) keeps the dock widths the user left
        if watched is self.window and event.type() == QEvent.Type.Resize:
            width = event.size().width()
            if width != self._seen_width and self.window.isVisible():
                self.fit_docks()
            self._seen_width = width
        return False

    # ---- planner docks follow the planner tab ---------------------------------------
    def on_planner(self) -> bool:
        return self.window.tabs.currentWidget() is self.planner

    def _tab_changed(self, _index: int) -> None:
        tabs = self.window.tabs
        ignored = QSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)
        for i in range(tabs.count()):
            page = tabs.widget(i)
            if page is tabs.currentWidget():
                own = self._policies.pop(id(page), None)
                if own is not None:
                    page.setSizePolicy(own)
            elif id(page) not in self._policies:
                self._policies[id(page)] = page.sizePolicy()
                page.setSizePolicy(ignored)
        if self.on_planner():
            self._show_planner_docks()
        else:
            self._hide_planner_docks()

    def _hide_planner_docks(self) -> None:
        if self._planner_state is not None:
            return  # already hidden (moving between two non-planner tabs)
        self._planner_state = self.window.saveState(STATE_VERSION)
        self._open_on_planner = [d for d in self.docks if d.isVisible()]
        for dock in self.docks:
            dock.hide()
            dock.toggleViewAction().setEnabled(False)
        # the tab bar of tabified docks is the window's, not a dock's: after the planner's layout
        # was restored once (back from another tab), Qt left one showing on the next tab
        for bar in self.window.findChildren(QTabBar, options=Qt.FindChildOption.FindDirectChildrenOnly):
            bar.hide()

    def _show_planner_docks(self) -> None:
        if self._planner_state is None:
            return
        for dock in self.docks:
            dock.toggleViewAction().setEnabled(True)
        for dock in self._open_on_planner:
            dock.show()
        self.window.restoreState(self._planner_state, STATE_VERSION)
        self._planner_state = None

    def planner_state(self) -> QByteArray:
        """The planner's dock layout, whichever tab shows now."""
        return self._planner_state if self._planner_state is not None else self.window.saveState(STATE_VERSION)

    # ---- between sessions -----------------------------------------------------------
    def save(self) -> None:
        self.settings.setValue(GEOMETRY_KEY, _text(self.window.saveGeometry()))
        self.settings.setValue(STATE_KEY, _text(self.planner_state()))
        self.settings.sync()

    def restore(self) -> bool:
        """Geometry and dock layout of the last session; False (default size) when none."""
        geometry = _bytes(self.settings.value(GEOMETRY_KEY))
        state = _bytes(self.settings.value(STATE_KEY))
        restored = isinstance(geometry, QByteArray) and self.window.restoreGeometry(geometry)
        if not restored:
            self.window.resize(self.initial_size())
        if isinstance(state, QByteArray):
            restored = self.window.restoreState(state, STATE_VERSION) and restored
        elif not restored:
            self.fit_docks()
        self._seen_width = self.window.width()       # a restored layout is the user's: kept as it was
        return bool(restored)


def fitted_frame(frame: QRect, room: QRect) -> QRect:
    """``frame`` moved (and shrunk where it must be) to lie inside ``room``."""
    width, height = min(frame.width(), room.width()), min(frame.height(), room.height())
    x = min(max(frame.x(), room.x()), room.x() + room.width() - width)
    y = min(max(frame.y(), room.y()), room.y() + room.height() - height)
    return QRect(x, y, width, height)


def _text(data: QByteArray) -> str:
    return bytes(data.toBase64()).decode("ascii")


def _bytes(value: object) -> QByteArray | None:
    """A saved geometry or state: base64 text (settings.json) or a byte array (a QSettings)."""
    if isinstance(value, QByteArray):
        return value
    if isinstance(value, str) and value:
        return QByteArray.fromBase64(value.encode("ascii", errors="replace"))
    return None
