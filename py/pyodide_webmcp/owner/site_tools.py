"""A site's own tools: Python wheels the site ships, installed when the page opens, whose tools are
registered beside the built-in ones. Pure: the adapter installs the wheels (adapter/owner_install.py).

A wheel offers tools through an entry point in the group `pyodide_webmcp.tools`: a module (its tools are
the ones it defines with `pyodide_webmcp.kit.tool`), or one tool, or a list of them. Names beginning
`jupyter_` are the bridge's own. Whatever fails (a wheel that will not install, a module that will not import, a name
taken) is a problem reported in the status line; the built-in tools go on either way.
"""

from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from types import ModuleType
from typing import Any, Callable, Iterable
from urllib.parse import urlsplit

from ..base.text import clamp_chars
from ..calls.tool import Tool, tools_of

ENTRY_POINT_GROUP = "pyodide_webmcp.tools"
BUILT_IN_PREFIX = "jupyter_"
MAX_PROBLEM_CHARS = 300


@dataclass(frozen=True)
class Loaded:
    tools: tuple[Tool, ...]
    problems: tuple[str, ...]


def wheel_url(path: str, site_file: Callable[[str], str]) -> str:
    """The URL of a wheel the site ships, `path` from the site's root; ValueError for anything else (a
    URL of another origin, a path leaving the site, a file that is not a wheel)."""
    if not path.endswith(".whl"):
        raise ValueError(f"{path}: not a wheel (.whl)")
    root, url = urlsplit(site_file("")), urlsplit(site_file(path))
    if (url.scheme, url.netloc) != (root.scheme, root.netloc) or not url.path.startswith(root.path):
        raise ValueError(f"{path}: not a file of this site")
    return url.geturl()


def problem(subject: str, error: BaseException) -> str:
    return clamp_chars(f"{subject}: {type(error).__name__}: {error}", MAX_PROBLEM_CHARS)[0]


def exported(value: Any) -> list[Tool]:
    """The tools an entry point names: a module's own, one tool, or a list; TypeError for anything else."""
    if isinstance(value, ModuleType):
        return tools_of(value)
    if isinstance(value, Tool):
        return [value]
    if isinstance(value, (list, tuple)) and all(isinstance(item, Tool) for item in value):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not a module, a tool or a list of tools")


def load_tools(taken: Iterable[str], found: Iterable[EntryPoint] | None = None) -> Loaded:
    """The tools of every entry point of the group (default: those installed), none of them named as one of
    `taken` (the built-in tools), or as another."""
    names = set(taken)
    tools: list[Tool] = []
    problems: list[str] = []
    for entry in entry_points(group=ENTRY_POINT_GROUP) if found is None else found:
        try:
            offered = exported(entry.load())
        except Exception as error:  # an owner's code: whatever it raises is a problem to report
            problems.append(problem(entry.value, error))
            continue
        if not offered:
            problems.append(f"{entry.value}: defines no tool (pyodide_webmcp.kit.tool)")
        for tool in offered:
            if tool.name.startswith(BUILT_IN_PREFIX):
                problems.append(f"{entry.value}: {tool.name}: names beginning {BUILT_IN_PREFIX} are the bridge's own")
            elif tool.name in names:
                problems.append(f"{entry.value}: {tool.name}: a tool of that name is already served")
            else:
                names.add(tool.name)
                tools.append(tool)
    return Loaded(tuple(tools), tuple(problems))


def status_note(loaded: Loaded, install_problems: Iterable[str] = ()) -> str:
    """What the status line adds: the site's tools, and what went wrong."""
    problems = [*install_problems, *loaded.problems]
    parts = [f"site tools: {', '.join(tool.name for tool in loaded.tools)}"] if loaded.tools else []
    if problems:
        parts.append(f"site tools failed: {'; '.join(problems)}")
    return "; ".join(parts)
