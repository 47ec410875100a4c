"""A local benchmark set-up for CLI tests that run a workload of their own."""

from __future__ import annotations

from pathlib import Path


def local_bench(tmp_path: Path, monkeypatch, plugin: str, source: str) -> tuple[Path, Path, str]:
    """A plugin folder holding ``plugin``.py (BRICKYARD_PLUGINS names it), an empty work folder
    for a ``local:`` target and a history database file: (work folder, database file, its URL)."""
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / f"{plugin}.py").write_text(source)
    monkeypatch.setenv("BRICKYARD_PLUGINS", str(plugins))
    work = tmp_path / "work"
    work.mkdir()
    db_file = tmp_path / "history.db"
    return work, db_file, f"sqlite:///{db_file}"
