"""No import cycle inside app/brickyard.

The graph is built from the source, not from what a run happened to import: every ``import``
and ``from … import`` at any depth counts (one moved into a function to dodge the cycle at
start-up is still an arrow back up), and so does ``importlib.import_module("brickyard.…")``
with a literal name. Only imports under ``if TYPE_CHECKING:`` are left out: they never run.

An arrow goes to the module named; ``from package import name`` goes to ``package.name`` when
that is a module, else to the package's ``__init__``. Importing a module also runs its parents'
``__init__`` files, but those arrows are not drawn: a package that re-exports its modules is
not a cycle with each of them.

Where a cycle is found, one of its modules holds something both sides need (the types, a
protocol): move that down into its own module so the arrows run one way.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = "brickyard"
SOURCE = Path(__file__).resolve().parents[1] / "app" / PACKAGE


def module_names(root: Path = SOURCE) -> dict[str, Path]:
    """Dotted name → file, for every module and package under ``root``."""
    names = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def _is_type_checking(test: ast.expr) -> bool:
    return ((isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
            or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"))


class _Imports(ast.NodeVisitor):
    """The dotted names one module imports, at any depth, outside ``if TYPE_CHECKING:``."""

    def __init__(self, module: str, is_package: bool):
        self.package = module if is_package else module.rpartition(".")[0]
        self.found: list[tuple[str, str | None, int]] = []   # (module, imported name, line)

    def visit_If(self, node: ast.If) -> None:
        if _is_type_checking(node.test):
            for child in node.orelse:
                self.visit(child)
            return
        self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.found.append((alias.name, None, node.lineno))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = node.module or ""
        if node.level:
            parts = self.package.split(".")
            parts = parts[:len(parts) - (node.level - 1)]
            base = ".".join(parts + ([base] if base else []))
        for alias in node.names:
            self.found.append((base, alias.name, node.lineno))

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if (name == "import_module" and node.args and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str) and not node.args[0].value.startswith(".")):
            self.found.append((node.args[0].value, None, node.lineno))
        self.generic_visit(node)


def import_graph(root: Path = SOURCE) -> dict[str, dict[str, int]]:
    """Module → {module it imports inside the package: first line of that import}."""
    names = module_names(root)
    graph: dict[str, dict[str, int]] = {}
    for module, path in names.items():
        visitor = _Imports(module, path.name == "__init__.py")
        visitor.visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        arrows: dict[str, int] = {}
        for base, name, line in visitor.found:
            target = f"{base}.{name}" if name and f"{base}.{name}" in names else base
            while target and target not in names:        # `import brickyard.x.y` of a name
                target = target.rpartition(".")[0]
            if target and target != module and target.split(".")[0] == PACKAGE:
                arrows.setdefault(target, line)
        graph[module] = arrows
    return graph


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        # iterative, so a long chain cannot hit the recursion limit
        work = [(node, iter(sorted(graph.get(node, ()))))]
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        while work:
            current, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[current] = min(low[current], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[current])
            if low[current] == index[current]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == current:
                        break
                if len(component) > 1:
                    found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def _describe(component: list[str], graph: dict[str, dict[str, int]]) -> str:
    members = set(component)
    arrows = [f"    {a} -> {b} (line {line})"
              for a in component for b, line in sorted(graph[a].items()) if b in members]
    return "\n".join([" <-> ".join(component)] + arrows)


def test_no_import_cycle_in_brickyard():
    graph = import_graph()
    found = cycles(graph)
    assert not found, ("import cycles (move what both sides need down into its own module):\n"
                       + "\n".join(_describe(c, graph) for c in found))


# The checker itself, on small made-up packages: it must see what the real tree may hide.

def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / PACKAGE
    for name, text in {"__init__.py": "", **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        (path.parent / "__init__.py").touch()
        path.write_text(text)
    return root


@pytest.mark.parametrize("files, found", [
    pytest.param({"a.py": "from . import b\n", "b.py": "def later():\n    from .a import thing\n"},
                 [["brickyard.a", "brickyard.b"]], id="an import inside a function is an arrow"),
    pytest.param({"x/one.py": "from ..y.two import f\n", "y/two.py": "import brickyard.z.three\n",
                  "z/three.py": "import importlib\nm = importlib.import_module('brickyard.x.one')\n"},
                 [["brickyard.x.one", "brickyard.y.two", "brickyard.z.three"]],
                 id="three modules across packages, one through import_module"),
    pytest.param({"a.py": "from . import b\n",
                  "b.py": ("from typing import TYPE_CHECKING\nimport typing\n"
                           "if TYPE_CHECKING:\n    from .a import A\n"
                           "if typing.TYPE_CHECKING:\n    from . import a\n")},
                 [], id="TYPE_CHECKING imports are not arrows"),
    pytest.param({"a.py": "from . import b\n",
                  "b.py": "if TYPE_CHECKING:\n    pass\nelse:\n    from .a import A\n"},
                 [["brickyard.a", "brickyard.b"]], id="the else of TYPE_CHECKING still runs"),
    pytest.param({"p/m.py": "from ..q import n\n", "q/n.py": "from ..p import m\n"},
                 [["brickyard.p.m", "brickyard.q.n"]], id="from a package import a module: that module"),
])
def test_the_checker_finds_what_a_tree_may_hide(tmp_path, files, found):
    assert cycles(import_graph(_package(tmp_path, files))) == found


def test_from_a_package_import_a_module_points_at_that_module(tmp_path):
    graph = import_graph(_package(tmp_path, {"p/m.py": "from ..q import n\n", "q/n.py": "x = 1\n"}))
    assert graph["brickyard.p.m"] == {"brickyard.q.n": 1}
