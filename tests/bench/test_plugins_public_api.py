"""Built-in workloads use exactly the public plugin API, as a third-party plugin would."""

import ast
from pathlib import Path

from brickyard.bench import registry

PLUGINS = Path(__file__).resolve().parents[2] / "plugins"
BUILTINS = {"dd", "fio", "smallfile", "metadata", "randread", "pgbench", "probe"}


def test_builtins_import_nothing_from_brickyard_but_the_plugin_api():
    offenders = []
    for source in PLUGINS.glob("*/brickyard_*/*.py"):
        for node in ast.walk(ast.parse(source.read_text())):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else \
                [a.name for a in node.names] if isinstance(node, ast.Import) else []
            offenders += [f"{source.relative_to(PLUGINS)}: {n}" for n in names
                          if n.startswith("brickyard") and n != "brickyard.bench.api" and not n.startswith("brickyard_")]
    assert offenders == []


def test_every_builtin_is_registered_with_valid_defaults(tmp_path):
    found = {e.name: e for e in registry.discover(tmp_path)}
    assert BUILTINS <= set(found)
    for name in BUILTINS:
        w = found[name].workload
        values = w.resolve({})
        assert w.step_count(values) >= 1 and w.title and w.requires is not None
