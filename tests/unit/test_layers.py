"""The package's layers: pure modules below, the kit and the port above them, tools and the adapter on top.

A tool module imports from the package only the kit, the port and the tools' own private helpers; no file
name repeats across layers; no import runs in a circle (imports under TYPE_CHECKING and inside functions
included: they are imports all the same).
"""

import ast
from collections import Counter
from pathlib import Path
from typing import Optional

from pyodide_webmcp import port

PACKAGE = Path(port.__file__).parent
TOOLS_MAY_IMPORT = {"pyodide_webmcp.kit", "pyodide_webmcp.port"}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import of the package's own modules in the file, wherever it stands."""
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names if alias.name.startswith("pyodide_webmcp")]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                origin = ".".join([*base, node.module] if node.module else base)
            elif node.module and node.module.startswith("pyodide_webmcp"):
                origin = node.module
            else:
                continue
            for alias in node.names:  # `from package import module` imports the module
                found.append((node.lineno, f"{origin}.{alias.name}" if f"{origin}.{alias.name}" in MODULES else origin))
    return found


def owner(module: str) -> Optional[str]:
    """The package module an import names (a name inside a module counts as that module)."""
    while module and module not in MODULES:
        module = module.rpartition(".")[0]
    return module or None


def test_the_import_reader_sees_relative_absolute_and_nested_imports():
    tools_init = imported_modules(PACKAGE / "tools" / "editing.py")
    assert {module for _, module in tools_init} <= {*TOOLS_MAY_IMPORT, "pyodide_webmcp.tools.editing"}
    lab = {module for _, module in imported_modules(PACKAGE / "adapter" / "lab.py")}
    assert "pyodide_webmcp.adapter.output_selection" in lab  # under TYPE_CHECKING
    assert "pyodide_webmcp.limits" in lab  # `from .. import limits`
    assert "pyodide_webmcp.adapter" in {module for _, module in imported_modules(PACKAGE / "__init__.py")}  # in start()


def test_tool_modules_import_only_the_kit_and_the_port():
    """Every module of tools/, the private helpers too: the kit and the port, or the tools' own modules."""
    outside = [
        f"tools/{path.name}:{line}: {module}"
        for path in sorted((PACKAGE / "tools").glob("*.py"))
        for line, module in imported_modules(path)
        if owner(module) not in TOOLS_MAY_IMPORT and not module.startswith("pyodide_webmcp.tools.")
    ]
    assert outside == []


def test_the_kit_and_the_port_import_nothing_above_them():
    above = ("pyodide_webmcp.tools", "pyodide_webmcp.adapter", "pyodide_webmcp.catalog")
    for name, path in MODULES.items():
        if name == "pyodide_webmcp.port" or name.startswith("pyodide_webmcp.kit"):
            upward = [module for _, module in imported_modules(path) if module.startswith(above)]
            assert upward == [], f"{name} imports {upward}"


def test_the_modules_below_the_kit_import_no_layer_above_them():
    """The pure modules, the port, the registry: they never import the kit, the tools or the adapter (only the
    package's `start()` does, to serve)."""
    above = ("pyodide_webmcp.kit", "pyodide_webmcp.tools", "pyodide_webmcp.adapter")
    upward = [
        f"{name}: {module}"
        for name, path in MODULES.items()
        if name != "pyodide_webmcp" and not name.startswith(above)
        for _, module in imported_modules(path)
        if module.startswith(above)
    ]
    assert upward == []


def test_no_file_name_repeats_across_layers():
    names = Counter(path.name for path in PACKAGE.rglob("*.py") if path.name != "__init__.py")
    assert sorted(name for name, count in names.items() if count > 1) == []


def import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for name, path in MODULES.items():
        targets = {owner(module) for _, module in imported_modules(path)}
        graph[name] = {target for target in targets if target is not None and target != name}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> Optional[list[str]]:
    """One import circle, as the modules in order, or None."""
    state: dict[str, str] = {}  # visiting | done
    stack: list[str] = []

    def visit(node: str) -> Optional[list[str]]:
        state[node] = "visiting"
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == "visiting":
                return stack[stack.index(target):] + [target]
            if target not in state:
                cycle = visit(target)
                if cycle:
                    return cycle
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def test_the_cycle_finder_finds_a_circle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_no_import_circle_among_the_package_modules():
    assert find_cycle(import_graph()) is None
