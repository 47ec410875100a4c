"""Validated text fields: bad input is marked at the field with the reason, never coerced."""

from __future__ import annotations

import math
import re
from typing import Any, Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QLabel, QLineEdit, QVBoxLayout, QWidget

from ....core.brickrules import path_char_problem
from ....core.hostnames import host_problem, user_problem
from ....core.topofile import MAX_GBPS, MAX_PORT, MAX_RATE_BPS
from ....core.units import UnitError, format_bytes, parse_size

_NUMBER_AND_UNIT = re.compile(r"^\d+(\.\d+)?\s*(|[kKMGTP]i?B?|B)$")
INVALID_STYLE = "QLineEdit { border: 2px solid #c62828; background: #fdecea; }"


def mark_field(edit: QLineEdit, label: QLabel, problem: str | None) -> None:
    """Show ``problem`` under ``edit`` and frame it red, or clear both.

    The message wraps; its label asks for the height the wrapped text needs, so a dialog
    grows to show all of it (a top-level window does not follow a label's height-for-width
    by itself, and a long reason was cut to one line)."""
    edit.setStyleSheet(INVALID_STYLE if problem else "")
    edit.setProperty("invalid", bool(problem))
    edit.setToolTip(problem or "")
    label.setText(problem or "")
    label.setStyleSheet("color: #c62828;")
    label.setWordWrap(True)
    if problem:
        width = max(label.width() if label.isVisible() else 0, edit.width(), 160)
        label.setMinimumHeight(label.heightForWidth(width))
    else:
        label.setMinimumHeight(0)
    label.setVisible(bool(problem))


class ValidatedField(QWidget):
    """A line edit that checks its text as it is typed (the reason under it, whole) and, on
    Enter/focus-out, emits the value only when it parses and differs from what the model holds."""

    sig_value_entered = Signal(object)
    """object: the parsed value the user entered (the model may still refuse it)."""

    def __init__(self, parse: Callable[[str], Any], show: Callable[[Any], str] = str,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.parse = parse
        self.show = show
        self.value: Any = None
        self.edit = QLineEdit()
        self.error = QLabel()
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(1)
        box.addWidget(self.edit)
        box.addWidget(self.error)
        self.error.hide()
        self.edit.editingFinished.connect(self._finished)
        self.edit.textEdited.connect(self._typed)

    def set_value(self, value: Any) -> None:
        """Show the model's value (and clear any mark), unless the user is typing."""
        self.value = value
        if not self.edit.hasFocus() or not self.invalid:
            self.edit.setText("" if value is None else self.show(value))
            self.set_problem(None)

    def current(self):
        """Parse the text now (a dialog's OK, not only Enter): the value, or None with the
        field marked with the reason."""
        return self._check(self.edit.text())[1]

    @property
    def invalid(self) -> bool:
        return bool(self.edit.property("invalid"))

    def set_problem(self, problem: str | None) -> None:
        mark_field(self.edit, self.error, problem)

    def _check(self, text: str) -> tuple[bool, Any]:
        """(True, the value) when ``text`` parses, else (False, None); the field marked with
        the reason or cleared."""
        try:
            value = self.parse(text)
        except (ValueError, UnitError) as exc:
            self.set_problem(str(exc))
            return False, None
        self.set_problem(None)
        return True, value

    def _typed(self, text: str) -> None:
        self._check(text)

    def _finished(self) -> None:
        ok, value = self._check(self.edit.text())
        if ok and value != self.value:
            self.sig_value_entered.emit(value)


# ---- parsers (each raises ValueError with the reason) ---------------------------------

def parse_name(text: str) -> str:
    text = text.strip()
    if not text:
        raise ValueError("a name cannot be empty")
    if any(c.isspace() for c in text) or ":" in text or "/" in text:
        raise ValueError(f"{text!r}: a name cannot hold spaces, ':' or '/'")
    return text


def parse_host_name(text: str) -> str:
    """A node's name: gluster and SSH reach it by this name when it has no address."""
    text = parse_name(text)
    problem = host_problem(text, "a host name")
    if problem:
        raise ValueError(problem)
    return text


def checked_by(problem_of: Callable[[str], str | None]) -> Callable[[str], str]:
    """A field parser from a ``text -> problem or None`` check: the stripped text, or ValueError."""
    def parse(text: str) -> str:
        text = text.strip()
        problem = problem_of(text)
        if problem:
            raise ValueError(problem)
        return text
    return parse


# an SSH address as the SSH layer reads it; empty: the name is the address
parse_address = checked_by(lambda text: host_problem(text) if text else None)
parse_user = checked_by(user_problem)


def parse_text(text: str) -> str:
    return text.strip()


def parse_path(text: str) -> str:
    """A brick path gluster can serve (``core.brickrules.path_char_problem``: no spaces, ':', quotes…)."""
    text = text.strip()
    if not text.startswith("/"):
        raise ValueError(f"a brick path must be absolute (start with '/'), not {text!r}")
    problem = path_char_problem(text)
    if problem:
        raise ValueError(f"{text!r}: {problem}")
    return text


def parse_port(text: str) -> int:
    try:
        port = int(text.strip())
    except ValueError:
        raise ValueError(f"a port is a whole number from 1 to 65535, not {text!r}") from None
    if not 1 <= port <= MAX_PORT:
        raise ValueError(f"a port is from 1 to 65535, not {port}")
    return port


def parse_gbps(text: str) -> float | None:
    text = text.strip().removesuffix("Gbit/s").removesuffix("Gbps").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"a link speed in Gbit/s, e.g. 1 or 10 or 25, not {text!r}") from None
    if not math.isfinite(value) or not 0 < value <= MAX_GBPS:
        raise ValueError(f"a link speed is more than 0 and at most {MAX_GBPS:,.0f} Gbit/s, not {text!r}")
    return value


def parse_size_field(text: str) -> int:
    """A brick's size ('14 TB', '12.7 TiB', '500G'): more than nothing, at most what a file holds."""
    value = parse_size(text)
    if value <= 0:
        raise ValueError("a brick size must be more than 0 bytes")
    return value


def parse_rate(text: str) -> float | None:
    """'500 MB/s', '1.2 GB/s', '300M' → bytes per second; empty → unknown."""
    text = text.strip()
    if not text:
        return None
    per_second = text.removesuffix("/s").strip()
    too_fast = f"{text!r} is faster than any disk (at most {show_size(int(MAX_RATE_BPS))}/s)"
    try:
        value = parse_size(per_second)
    except UnitError:
        if _NUMBER_AND_UNIT.match(per_second):
            raise ValueError(too_fast) from None
        raise ValueError(f"not a speed: {text!r} (write e.g. 500 MB/s, 1.2 GB/s or 300M)") from None
    if value <= 0:
        raise ValueError("a speed must be more than 0")
    if value > MAX_RATE_BPS:
        raise ValueError(too_fast)
    return float(value)


def show_size(n: int) -> str:
    return format_bytes(n, digits=2).replace(".00 ", " ")


def show_rate(bps: float | None) -> str:
    return "" if bps is None else f"{show_size(int(bps))}/s"
