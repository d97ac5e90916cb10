"""The package's layers, as its folders show them, in one fixed order from the bottom: the basics (base/), the
lab's own facts (lab/), the declared boundaries (port, host), review threads (review/), a tool call (calls/),
notebooks as agents see them (notebook/), the owner's configuration (owner/), the built-in tools (tools/), the
site owner's kit (kit/), the human's side (ui/: above every tool, so none can reach it) and the adapter on top. A module imports only its own layer and those below (imports
under TYPE_CHECKING and inside functions included: they are imports all the same); no import runs in a circle,
tool modules never import each other, the adapter reaches the kit only through its public face, only the adapter
touches JavaScript, and no file name repeats.
"""

import ast
from collections import Counter
from pathlib import Path
from typing import Optional

from pyodide_webmcp import port

PACKAGE = Path(port.__file__).parent


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
    editing = {module for _, module in imported_modules(PACKAGE / "tools" / "editing.py")}
    assert "pyodide_webmcp.notebook.guarded_write" in editing or "pyodide_webmcp.kit" in editing
    lab = {module for _, module in imported_modules(PACKAGE / "adapter" / "page_lab.py")}
    assert "pyodide_webmcp.adapter.output_selection" in lab  # under TYPE_CHECKING
    assert "pyodide_webmcp.base.limits" in lab  # `from ..base import limits`
    assert "pyodide_webmcp.adapter" in {module for _, module in imported_modules(PACKAGE / "__init__.py")}  # in start()


LAYERS = (("base",), ("lab",), ("port", "host"), ("review",), ("calls",), ("notebook",), ("owner",), ("tools",),
          ("kit",), ("ui",), ("adapter",), ("root",))
"""Every layer, from the bottom; a layer of two modules (the port and the host) is one floor of the house."""
FLOOR = {name: floor for floor, names in enumerate(LAYERS) for name in names}


def layer(module: str) -> str:
    """A module's layer: its package under pyodide_webmcp (base, lab, ..., adapter), a boundary module's own name,
    or "root" for the package's __init__ (start)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "root"


def edges():
    for name, path in MODULES.items():
        for line, module in imported_modules(path):
            target = owner(module)
            if target is not None and target != name:
                yield name, line, target


def test_the_package_root_holds_a_handful_of_modules():
    root = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert root == ["__init__.py", "host.py", "port.py"]
    folders = {path.name for path in PACKAGE.iterdir() if path.is_dir() and path.name != "__pycache__"}
    assert folders == {name for names in LAYERS for name in names} - {"port", "host", "root"}


def against_the_layers(imports) -> list[str]:
    """The (module, line, imported module) that import a higher floor, or another module of their own floor."""
    return [f"{name}:{line} imports {target}" for name, line, target in imports
            if FLOOR[layer(target)] > FLOOR[layer(name)]
            or (layer(name) != layer(target) and FLOOR[layer(name)] == FLOOR[layer(target)])]


def test_every_import_follows_the_layers():
    assert against_the_layers(edges()) == []


def test_the_layer_rule_refuses_an_upward_import_and_one_across_a_floor():
    imports = [("pyodide_webmcp.port", 1, "pyodide_webmcp.notebook.access"),
               ("pyodide_webmcp.port", 2, "pyodide_webmcp.host"),
               ("pyodide_webmcp.notebook.views", 3, "pyodide_webmcp.calls.tool")]
    assert against_the_layers(imports) == ["pyodide_webmcp.port:1 imports pyodide_webmcp.notebook.access",
                                           "pyodide_webmcp.port:2 imports pyodide_webmcp.host"]


def test_tool_modules_never_import_each_other_or_the_page():
    """Shared helpers of the tools live in a feature package; `js` and the adapter are the page's."""
    wrong = [f"{name}:{line} imports {target}" for name, line, target in edges()
             if layer(name) == "tools" and name != "pyodide_webmcp.tools" and layer(target) == "tools"]
    wrong += [f"tools/{path.name}: imports {module}" for path in (PACKAGE / "tools").glob("*.py")
              for node in ast.walk(ast.parse(path.read_text())) if isinstance(node, (ast.Import, ast.ImportFrom))
              for module in ([node.module] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names])
              if module and module.split(".")[0] in ("js", "pyodide", "pyodide_js")]
    assert wrong == []


def test_the_adapter_uses_the_kit_only_through_its_public_face():
    wrong = [f"{name}:{line} imports {target}" for name, line, target in edges()
             if layer(name) == "adapter" and target.startswith("pyodide_webmcp.kit.")]
    assert wrong == []


def test_only_the_adapter_touches_javascript():
    touching = sorted(
        name for name, path in MODULES.items() if layer(name) != "adapter"
        for node in ast.walk(ast.parse(path.read_text())) if isinstance(node, (ast.Import, ast.ImportFrom))
        for module in ([node.module] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names])
        if module and module.split(".")[0] in ("js", "pyodide", "pyodide_js", "micropip")
    )
    assert touching == []


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
