"""The import graph of the project's packages: the direction of imports follows the
architecture (only companion/ imports engine/ and vision/; engine and vision import neither
companion nor each other) and no module imports itself back through others.

Imports are read from the source (`ast`), not run. An import made at import time (at a
module's top level, in an `if` or `try` there included) is an edge; an import inside a
function runs when the function is called and is no edge of the import-time graph.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("engine", "vision", "companion")
# who may import whom, by package
ALLOWED = {"engine": {"engine"}, "vision": {"vision"},
           "companion": {"companion", "engine", "vision"}}


def _name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


def _top_level(tree: ast.Module):
    """The statements run at import time: the module's own, and those nested in if/try/with."""
    todo = list(tree.body)
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, (ast.If, ast.Try, ast.With)):
            for field in ("body", "orelse", "finalbody", "handlers"):
                for child in getattr(node, field, []):
                    todo.extend(child.body if isinstance(child, ast.ExceptHandler) else [child])


def _known(module: str) -> str | None:
    while module and module not in MODULES:
        module = module.rpartition(".")[0]
    return module or None


def imports(name: str, all_levels: bool = False) -> set[str]:
    """The project modules `name` imports (at import time, or anywhere with `all_levels`)."""
    path = MODULES[name]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    nodes = ast.walk(tree) if all_levels else _top_level(tree)
    found = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.add(module)
            found.update(f"{module}.{a.name}" for a in node.names
                         if f"{module}.{a.name}" in MODULES)
    return {m for m in map(_known, found) if m and m != name}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


GRAPH = {name: imports(name) for name in MODULES}


class TestDirection:
    @pytest.mark.parametrize("package", PACKAGES)
    def test_a_package_imports_only_what_it_may(self, package):
        wrong = sorted(f"{name} -> {dep}" for name in MODULES if name.split(".")[0] == package
                       for dep in imports(name, all_levels=True)
                       if dep.split(".")[0] not in ALLOWED[package])
        assert wrong == []


class TestTheShippedReader:
    """vision/ outside vision/training is what the reader runs on a frame; the renderers, loaders
    and trainers (vision.training, torch with the train extra) are never imported by it, nor by
    the companion, at import time or inside a function."""

    def test_no_runtime_module_imports_training(self):
        wrong = sorted(f"{name} -> {dep}" for name in MODULES
                       if name.split(".")[0] in ("vision", "companion")
                       and not name.startswith("vision.training")
                       for dep in imports(name, all_levels=True)
                       if dep.startswith("vision.training"))
        assert wrong == []

    def test_the_check_sees_an_import_of_training(self, tmp_path, monkeypatch):
        module = tmp_path / "reader.py"
        module.write_text("def f():\n    from vision.training import synth\n")
        monkeypatch.setitem(MODULES, "vision.reader_probe", module)
        assert "vision.training.synth" in imports("vision.reader_probe", all_levels=True)


class TestNoCircles:
    def test_the_checker_finds_a_circle(self):
        assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]

    def test_engine(self):
        assert [c for c in cycles(GRAPH) if c[0].startswith("engine")] == []

    def test_vision(self):
        assert [c for c in cycles(GRAPH) if c[0].startswith("vision")] == []

    def test_companion(self):
        assert [c for c in cycles(GRAPH) if c[0].startswith("companion")] == []


class TestNoCirclesThroughDeferredImports:
    """The same with the imports made inside functions: a circle closed by a deferred import
    still ties two modules to each other."""

    GRAPH = {name: imports(name, all_levels=True) for name in MODULES}

    def test_engine(self):
        assert [c for c in cycles(self.GRAPH) if c[0].startswith("engine")] == []

    def test_vision(self):
        assert [c for c in cycles(self.GRAPH) if c[0].startswith("vision")] == []

    def test_companion(self):
        assert [c for c in cycles(self.GRAPH) if c[0].startswith("companion")] == []
