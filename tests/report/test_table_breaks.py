"""A word wider than its column (a mount option string, a volume's name in a path) breaks
after a separator — ',', '=', ':', '/' … — never inside a number or a name: the PDF's
"Volumes and targets" table read "13107 / 2" and "gv0-d / t8" (walk at 1280×720)."""

from __future__ import annotations

import re

from brickyard.report.blocks import Cell, Col, Table
from brickyard.report.pdf import content_box
from brickyard.report.typeset import BREAK_AFTER, segments

MOUNT = ("rw,relatime,user_id=0,group_id=0,default_permissions,allow_other,max_read=131072,"
         "backup-volfile-servers=node2:node3:node4,volfile-id=gv0-dt8,log-level=WARNING")
TARGET = "client1:/mnt/gv0-dt8"
OPTIONS = "\n".join(f"performance.option-number-{i} = {i * 131072}" for i in range(8))


def _texts(lines) -> list[str]:
    return ["".join(p.text for p in ln.pieces) for ln in lines]


def _breaks_inside_a_word(parts: list[str]) -> list[str]:
    """Line ends that split a run of letters, digits, '-' or '_' (a number or a name)."""
    return [f"{a[-8:]} / {b[:8]}" for a, b in zip(parts, parts[1:])
            if a and b and re.match(r"[\w-]", a[-1]) and re.match(r"[\w-]", b[0])]


def test_a_long_option_string_breaks_after_its_separators(ts):
    widest = max(ts.advance(seg, "table") for seg in segments(MOUNT))      # 'default_permissions,'
    for width in (widest, widest + 25.0, 140.0):
        parts = _texts(ts.wrap([(MOUNT, "table")], width))
        assert "".join(parts) == MOUNT
        assert len(parts) > 1 and not _breaks_inside_a_word(parts), (width, parts)
        assert all(p[-1] in BREAK_AFTER for p in parts[:-1])


def test_the_volumes_and_targets_table_breaks_mount_options_and_targets_between_words(ts):
    width, _height = content_box("a4")
    rows = [[Cell("gv0-dt8: distribute 8", "table-bold"), Cell(TARGET), Cell(OPTIONS), Cell(MOUNT)],
            [Cell("gv0-dp8rd2: disperse 8 redundancy 2", "table-bold"), Cell("client1:/mnt/gv0-dp8rd2"),
             Cell(OPTIONS), Cell(MOUNT.replace("gv0-dt8", "gv0-dp8rd2"))]]
    # the columns of runsections.environment_section's "Volumes and targets"
    table = Table([Col("layout", max_width=120.0), Col("target", max_width=110.0), Col("volume options"),
                   Col("mount options")], rows, space_before=3.0, stretch=True)
    lay = table._compute(ts, width)
    assert sum(lay.widths) <= width + 0.5
    for r, row in enumerate(lay.cells):
        for c in (1, 3):                                  # target, mount options
            parts = _texts(row[c])
            assert "".join(parts) == rows[r][c].text, parts
            assert not _breaks_inside_a_word(parts), parts
