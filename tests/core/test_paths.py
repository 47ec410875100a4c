import sys
from pathlib import Path

import pytest

from brickyard.core import paths

pytestmark = pytest.mark.skipif(sys.platform in ("darwin", "win32"), reason="XDG rules are for Linux/Unix")


def test_an_absolute_xdg_dir_is_used(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "conf"))
    assert paths.user_data_dir() == tmp_path / "data" / "brickyard"
    assert paths.user_config_dir() == tmp_path / "conf" / "brickyard"


def test_a_relative_xdg_dir_is_ignored_as_the_spec_says(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", "relative/data")
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    assert paths.user_data_dir() == Path(tmp_path) / ".local" / "share" / "brickyard"
    assert paths.user_config_dir() == Path(tmp_path) / ".config" / "brickyard"
