"""Plugin discovery: built-ins through entry points, a user folder, broken plugins listed alone."""

from brickyard.bench import registry
from brickyard.bench.api import Workload

GOOD = '''
from brickyard.bench.api import Param, Workload

class Hello(Workload):
    name = "hello-user"
    params = (Param("x", "int", 1, "x"),)
    def step_count(self, values): return 1
    async def run(self, ctx): pass
'''


def test_builtin_dd_is_found_through_its_entry_point(tmp_path):
    entry = {e.name: e for e in registry.discover(tmp_path)}["dd"]
    assert entry.ok and isinstance(entry.workload, Workload)
    assert "entry point" in entry.source


def test_broken_user_plugin_is_listed_with_its_error_and_others_still_load(tmp_path):
    (tmp_path / "good.py").write_text(GOOD)
    (tmp_path / "broken.py").write_text("import does_not_exist_anywhere\n")
    (tmp_path / "empty.py").write_text("X = 1\n")
    entries = {e.name: e for e in registry.discover(tmp_path)}
    assert entries["hello-user"].ok
    assert not entries["broken"].ok and "ModuleNotFoundError" in entries["broken"].error
    assert "defines no Workload" in entries["empty"].error
    assert entries["dd"].ok


def test_find_names_what_exists_when_the_name_is_wrong(tmp_path):
    try:
        registry.find("nope", tmp_path)
    except LookupError as exc:
        assert "available:" in str(exc) and "dd" in str(exc)
    else:
        raise AssertionError("LookupError expected")
