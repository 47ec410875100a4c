"""Every file Brickyard writes is replaced whole or not at all (core.atomicfile), never written
through a link, and its CSV never starts a spreadsheet formula (core.spreadsheet). The CLI's
writers on a real full disk: tests/store/test_file_writes.py."""

from __future__ import annotations

import errno
import os
import stat

import pytest

from brickyard.core import atomicfile
from brickyard.core.atomicfile import write_atomic, write_error_words
from brickyard.core.spreadsheet import csv_text, safe_cell, tsv_text


def test_a_failed_write_leaves_the_old_file_and_no_temporary_file(tmp_path, monkeypatch):
    target = tmp_path / "runs.csv"
    target.write_text("last week's export\n")
    real_fsync = os.fsync

    def full(fd):
        if stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.ENOSPC, "No space left on device")
        real_fsync(fd)

    monkeypatch.setattr(atomicfile.os, "fsync", full)
    with pytest.raises(OSError) as caught:
        write_atomic(target, "x" * 100_000)
    assert target.read_text() == "last week's export\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs.csv"]
    words = write_error_words(target, caught.value)
    assert words == (f"cannot write {target}: the disk is full (No space left on device); nothing was written "
                     "and the file already there is as it was")


def test_a_link_at_the_target_is_replaced_never_written_through(tmp_path):
    elsewhere = tmp_path / "precious.txt"
    elsewhere.write_text("the user's own file")
    link = tmp_path / "table.csv"
    link.symlink_to(elsewhere)
    write_atomic(link, "layout,speed\n")
    assert elsewhere.read_text() == "the user's own file"
    assert not link.is_symlink() and link.read_text() == "layout,speed\n"


def test_an_existing_file_keeps_its_mode_and_a_new_one_gets_the_default(tmp_path):
    old = tmp_path / "old.json"
    old.write_text("{}")
    old.chmod(0o640)
    write_atomic(old, "[]")
    assert stat.S_IMODE(old.stat().st_mode) == 0o640
    write_atomic(tmp_path / "new.json", "[]", new_mode=0o600)
    assert stat.S_IMODE((tmp_path / "new.json").stat().st_mode) == 0o600


def test_streams_are_written_as_they_are(tmp_path):
    write_atomic("/dev/null", "nothing")                      # never replaced by a file
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        write_atomic(fifo, "through the pipe")
        assert os.read(reader, 100) == b"through the pipe"
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_folder_at_the_target_is_refused(tmp_path):
    with pytest.raises(IsADirectoryError):
        write_atomic(tmp_path, "x")


@pytest.mark.parametrize("text", ['=HYPERLINK("http://evil","click")', "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)",
                                  "\tx", "\rx"])
def test_text_that_would_start_a_formula_is_prefixed(text):
    assert safe_cell(text) == "'" + text
    assert csv_text([["run", text]]).splitlines()[0].split(",", 1)[1].strip('"').startswith("'")
    assert tsv_text([[text]]).startswith("'")


@pytest.mark.parametrize("value", ["-1.5", "+2e-3", "-7", "1.0", "layout", "", 3, -4.5, None])
def test_numbers_and_plain_text_are_left_as_they_are(value):
    assert safe_cell(value) == value
