"""The layout of ARCHITECTURE.md holds: no import cycles, tools above mechanisms, short modules.

Imports are read from the source (``ast``), not executed; imports under
``if TYPE_CHECKING:`` are left out, since they never run.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "finitedp"

#: Packages and modules that make up the tools: they may import mechanisms, never the reverse.
TOOLS = ("api", "audit", "vectors", "cli", "plot", "io", "registry", "engines")

#: "about 500 lines" (ARCHITECTURE.md); a module past this is split by responsibility.
MAX_LINES = 520


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(path: Path) -> set[str]:
    """The ``finitedp`` modules that ``path`` imports (at any depth, outside TYPE_CHECKING)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] == "finitedp":
                found.add(target)
                for alias in node.names:  # ``from . import registry`` imports a module
                    candidate = f"{target}.{alias.name}"
                    if (PACKAGE.parent / candidate.replace(".", "/")).with_suffix(".py").exists():
                        found.add(candidate)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "finitedp")
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return found


def _graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        edges = set()
        for target in _imports(path):
            # Importing a.b.c runs a, a.b and a.b.c; a package's own ancestors are
            # already initialising when it runs, so they are not edges.
            parts = target.split(".")
            for i in range(1, len(parts) + 1):
                ancestor = ".".join(parts[:i])
                if ancestor in modules and not name.startswith(ancestor + ".") and ancestor != name:
                    edges.add(ancestor)
        graph[name] = edges
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return out


def _is_tool(module: str) -> bool:
    parts = module.split(".")
    return len(parts) > 1 and parts[1] in TOOLS


def test_no_import_cycle() -> None:
    assert _cycles(_graph()) == []


def test_the_cycle_check_finds_a_cycle() -> None:
    # The check itself: a two-module loop and a longer one are both reported.
    graph = {"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"e"}, "e": {"c"}, "f": set()}
    assert _cycles(graph) == [["a", "b"], ["c", "d", "e"]]


def test_mechanisms_never_import_a_tool() -> None:
    offenders = sorted(
        f"{module} imports {target}"
        for module, targets in _graph().items()
        if not _is_tool(module) and module not in ("finitedp", "finitedp.__main__")
        for target in targets
        if _is_tool(target)
    )
    assert offenders == []


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: p.name)
def test_modules_stay_short(path: Path) -> None:
    lines = path.read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"{path.relative_to(PACKAGE)} has {lines} lines; split it"


def test_the_family_index_agrees_with_the_registry() -> None:
    # finitedp.families finds one release's family without loading the others; its maps
    # must name every mechanism and release type of the registry, in the right module.
    from finitedp import families, registry

    assert set(families.MECHANISM_FAMILIES) == set(registry.MECHANISMS) | set(registry.COLUMNS)
    for name in families.MECHANISM_FAMILIES:
        found = families.entry(name)
        assert found is (registry.MECHANISMS.get(name) or registry.COLUMNS.get(name)), name
        assert found.build.__module__ == families.MECHANISM_FAMILIES[name], name
    assert set(families.RELEASE_FAMILIES) == set(registry.READERS)
    for kind in families.RELEASE_FAMILIES:
        assert families.reader(kind, "test") is registry.READERS[kind]
    assert families.entry("no-such") is None
    with pytest.raises(Exception, match="not one finitedp can read"):
        families.reader("no-such", "test")
