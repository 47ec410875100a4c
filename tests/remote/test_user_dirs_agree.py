"""The SSH layer, the plugin registry and the history store keep their files in the same
user data folder (one lookup, in core)."""

from brickyard.bench.registry import user_plugin_dir
from brickyard.remote.hostkeys import brickyard_known_hosts
from brickyard.store.settings import user_data_dir


def test_known_hosts_plugins_and_history_share_one_data_folder(monkeypatch, tmp_path):
    monkeypatch.delenv("BRICKYARD_KNOWN_HOSTS", raising=False)
    monkeypatch.delenv("BRICKYARD_PLUGINS", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", "not/absolute")   # invalid: every layer must ignore it alike
    base = user_data_dir()
    assert base == tmp_path / ".local" / "share" / "brickyard"
    assert brickyard_known_hosts() == base / "known_hosts"
    assert user_plugin_dir() == base / "plugins"
