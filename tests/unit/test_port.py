"""port.py: the whole contract between tools and the lab: the adapter implements all of it, tools use nothing else."""

import ast
import inspect
from pathlib import Path

import pytest
from pyodide_webmcp import port
from pyodide_webmcp.base.hashing import source_hash
from pyodide_webmcp.kit.testing import MemoryLab, MemoryNotebook, call, cell

PACKAGE = Path(port.__file__).parent
IMPLEMENTATIONS = {
    "NotebookPort": ("adapter/notebook.py", "NotebookHandle"),
    "LabPort": ("adapter/page_lab.py", "PageLab"),
    "ProposalsPort": ("adapter/proposals.py", "ProposalBoard"),
    "AbortState": ("adapter/__init__.py", "SignalAbort"),
    "DialogsPort": ("adapter/dialogs.py", "DialogWatcher"),
    "CommandsPort": ("adapter/command_registry.py", "LabCommands"),
    "NotebookReader": ("notebook/file_notebook.py", "FileNotebook"),
}


def protocol_members(protocol: type) -> dict[str, bool]:
    """Member name -> whether it is a coroutine, as the port declares it (inherited protocols included)."""
    members = {}
    for base in reversed(protocol.__mro__):
        if base.__module__ != port.__name__:
            continue
        for name, value in vars(base).items():
            if not name.startswith("_"):
                members[name] = inspect.iscoroutinefunction(value)
        members.update({name: False for name in vars(base).get("__annotations__", {})})
    return members


def adapter_members(path: str, class_name: str) -> dict[str, bool]:
    tree = ast.parse((PACKAGE / path).read_text())
    found = next(node for node in ast.walk(tree) if isinstance(node, ast.ClassDef) and node.name == class_name)
    members = {}
    for node in found.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            members[node.name] = isinstance(node, ast.AsyncFunctionDef)
        if isinstance(node, ast.FunctionDef) and node.name == "__init__":
            for statement in ast.walk(node):
                if isinstance(statement, ast.Attribute) and isinstance(statement.ctx, ast.Store):
                    members.setdefault(statement.attr, False)
    return members


@pytest.mark.parametrize("protocol", sorted(IMPLEMENTATIONS))
def test_the_adapter_implements_every_member_of_the_port(protocol):
    declared = protocol_members(getattr(port, protocol))
    implemented = adapter_members(*IMPLEMENTATIONS[protocol])
    missing = sorted(set(declared) - set(implemented))
    assert not missing, f"{IMPLEMENTATIONS[protocol][1]} lacks {missing}"
    mismatched = [name for name, is_async in declared.items() if implemented[name] != is_async]
    assert not mismatched, f"async-ness differs for {mismatched}"


def test_tools_reach_the_lab_only_through_the_port():
    """Every method a tool (or the kit) calls on ctx.lab or a notebook is declared in the port."""
    declared = set()
    for protocol in ("NotebookPort", "LabPort", "ProposalsPort", "DialogsPort", "CommandsPort"):
        declared |= set(protocol_members(getattr(port, protocol)))
    used = set()
    for path in [*(PACKAGE / "tools").glob("*.py"), *(PACKAGE / "kit").glob("*.py")]:
        if path.name == "testing.py":  # the in-memory lab: an implementation of the port, not a user of it
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in ("notebook", "lab"):
                used.add(node.attr)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute) and node.value.attr == "lab":
                used.add(node.attr)
    assert used <= declared, f"not in the port: {sorted(used - declared)}"


def test_tools_run_against_an_in_memory_lab():
    notebook = MemoryNotebook("n.ipynb", [cell("a = 1", cell_id="a"), cell("b = 2", cell_id="b")])
    lab = MemoryLab(notebook)
    read = call(lab, "jupyter_get_cells", {})
    assert [c["id"] for c in read["cells"]] == ["a", "b"]
    digest = read["cells"][0]["sourceHash"]
    updated = call(lab, "jupyter_update_cell", {"cellId": "a", "source": "a = 10", "expectedSourceHash": digest})
    assert updated["cell"]["sourceHash"] == source_hash("a = 10") and updated["cell"]["source"] == "a = 10"
    history = notebook.data[0]["metadata"]["jupyterlite_webmcp"]["history"]
    assert history[-1]["tool"] == "jupyter_update_cell"  # the tool's own name, from the call context
    stale = call(lab, "jupyter_update_cell", {"cellId": "a", "source": "x", "expectedSourceHash": digest})
    assert stale["error"] == "STALE_CELL"
    ran = call(lab, "jupyter_run_cells", {"cellIds": ["a", "b"]})
    assert [r["outputSummary"] for r in ran["results"]] == ["a = 10", "b = 2"]
    created = call(lab, "jupyter_create_comment", {"anchor": {"kind": "cell", "cellId": "b"}, "message": "why?"})
    listed = call(lab, "jupyter_list_comments", {})
    assert [t["threadId"] for t in listed["threads"]] == [created["thread"]["id"]]


def module_names(path: Path) -> set[str]:
    """The names a module defines or imports at its top level (what `from module import name` can find)."""
    names = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
    return names


def test_every_relative_import_names_something_its_module_defines():
    """Adapter modules only import in the browser (they need `js`): their imports are checked here instead."""
    missing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom) or node.level == 0 or node.module is None:
                continue
            base = path.parent
            for _ in range(node.level - 1):
                base = base.parent
            target = base.joinpath(*node.module.split("."))
            source = target / "__init__.py" if target.is_dir() else target.with_suffix(".py")
            defined = module_names(source)
            subpackages = {p.stem for p in target.glob("*.py")} if target.is_dir() else set()
            missing += [
                f"{path.relative_to(PACKAGE)}: {node.module}.{alias.name}"
                for alias in node.names
                if alias.name not in defined | subpackages
            ]
    assert missing == []


def memory_objects() -> dict[str, object]:
    lab = MemoryLab(MemoryNotebook("n.ipynb", [cell("a = 1")]))
    return {"NotebookPort": lab.notebooks["n.ipynb"], "LabPort": lab, "ProposalsPort": lab.proposals,
            "DialogsPort": lab.dialogs, "CommandsPort": lab.commands}


@pytest.mark.parametrize("protocol", ["NotebookPort", "LabPort", "ProposalsPort", "DialogsPort", "CommandsPort"])
def test_the_in_memory_lab_implements_every_member_of_the_port(protocol):
    """The unit tests' lab stands in for the adapter only while it offers what the port declares, as declared."""
    implementation = memory_objects()[protocol]
    declared = protocol_members(getattr(port, protocol))
    missing = sorted(name for name in declared if not hasattr(implementation, name))
    assert not missing, f"{type(implementation).__name__} lacks {missing}"
    mismatched = [name for name, is_async in declared.items()
                  if callable(getattr(implementation, name)) and inspect.ismethod(getattr(implementation, name))
                  and inspect.iscoroutinefunction(getattr(implementation, name)) != is_async]
    assert not mismatched, f"async-ness differs for {mismatched}"
