"""A site's own tools: Python wheels the site ships, installed when the page opens, whose tools are
registered beside the built-in ones. Pure: the adapter installs the wheels (adapter/owner_install.py).

A wheel offers tools through an entry point in the group `pyodide_webmcp.tools`; loading it imports its
module, whose `pyodide_webmcp.kit.tool` functions register themselves. Names beginning `jupyter_` are
the bridge's own. Whatever fails (a wheel that will not install, a module that will not import, a name
taken) is a problem reported in the status line; the built-in tools go on either way.
"""

from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from typing import Callable, Iterable
from urllib.parse import urlsplit

from ..base.text import clamp_chars
from ..calls.tool import Registry, Tool

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


def load_tools(registry: Registry, found: Iterable[EntryPoint] | None = None) -> Loaded:
    """Import every entry point of the group (default: those installed) and take the tools each registered."""
    tools: list[Tool] = []
    problems: list[str] = []
    for entry in entry_points(group=ENTRY_POINT_GROUP) if found is None else found:
        before = set(registry.names())
        try:
            entry.load()
        except Exception as error:  # an owner's code: whatever it raises is a problem to report
            problems.append(problem(entry.value, error))
        for name in sorted(set(registry.names()) - before):
            if name.startswith(BUILT_IN_PREFIX):
                registry.remove(name)
                problems.append(f"{entry.value}: {name}: names beginning {BUILT_IN_PREFIX} are the bridge's own")
            else:
                tools.append(registry.get_registered(name))
    return Loaded(tuple(tools), tuple(problems))


def status_note(loaded: Loaded, install_problems: Iterable[str] = ()) -> str:
    """What the status line adds: the site's tools, and what went wrong."""
    problems = [*install_problems, *loaded.problems]
    parts = [f"site tools: {', '.join(tool.name for tool in loaded.tools)}"] if loaded.tools else []
    if problems:
        parts.append(f"site tools failed: {'; '.join(problems)}")
    return "; ".join(parts)
