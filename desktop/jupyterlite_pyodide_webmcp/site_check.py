"""`jupyterlite-pyodide-webmcp check SITE_DIR`: what a built site gives its visitors, read off its files, for its
owner before publishing: the bridge's version and the tools its page lists, whether anything in its configuration
points outside the site, which notebooks keep cells from the agent, and that the page needs https.

A broken site (no bridge, or a file its configuration names that is not in it) is a problem: the command then
exits with 1.
"""

import json
import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pyodide_webmcp.base.access_levels import ACCESS_LABELS, Access
from pyodide_webmcp.notebook.access import cell_access, notebook_access
from pyodide_webmcp.owner.site_settings import Settings

from .sites import EXTENSION, KERNEL_PLUGIN, SETTINGS_ID, SITE_BRIDGE_ASSETS

CONFIG = "jupyter-lite.json"
KERNEL_SCHEMA = Path("extensions/@jupyterlite/pyodide-kernel-extension/static/schema/kernel.v0.schema.json")
NOT_SECURE_STATUS = "WebMCP unavailable: not a secure context (open the site over https or on localhost)"  # lib/page-kind.js
ABSOLUTE_URL = re.compile(r"^(?:[a-zA-Z][a-zA-Z0-9+.-]*:)?//")
PYODIDE_RELEASE = re.compile(r"/v(\d+\.\d+\.\d+)/")
WIDTH = 110


@dataclass(frozen=True)
class PyodideSource:
    """Where the kernel, and so the bridge, loads Pyodide from: a URL outside the site, or a folder of it."""

    place: str
    release: str | None
    outside: bool


@dataclass(frozen=True)
class NotebookAccess:
    """What one notebook of the site keeps from the agent."""

    path: str
    notebook: Access
    cells: int
    hidden: int
    read_only: int

    def keeps_something(self) -> bool:
        return self.notebook != "write" or bool(self.hidden or self.read_only)

    def summary(self) -> str:
        if self.notebook == "none":
            return f"{self.path}: the whole notebook hidden"
        parts = ["the whole notebook read only"] if self.notebook == "read" else []
        parts += [f"{count} {label} cell{'s' if count > 1 else ''}"
                  for count, label in ((self.hidden, "hidden"), (self.read_only, "read-only")) if count]
        return f"{self.path}: {', '.join(parts)} (of {self.cells})"


@dataclass
class SiteReport:
    lines: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def text(self) -> str:
        problems = ["Problems:", *(f"  {problem}" for problem in self.problems)] if self.problems else []
        return "\n".join(wrapped for line in [*self.lines, *problems] for wrapped in wrap(line))


def wrap(line: str) -> list[str]:
    indent = " " * (len(line) - len(line.lstrip()) + 2)
    return textwrap.wrap(line, WIDTH, subsequent_indent=indent, break_on_hyphens=False, break_long_words=False) or [""]


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def config_data(path: Path) -> dict[str, Any]:
    config = read_json(path)
    data = config.get("jupyter-config-data") if isinstance(config, dict) else None
    return data if isinstance(data, dict) else {}


def outside_urls(value: Any, where: str = "") -> list[str]:
    """Every absolute URL in a JSON value, as `where: url`."""
    if isinstance(value, str):
        return [f"{where}: {value}"] if ABSOLUTE_URL.match(value) else []
    if isinstance(value, dict):
        return [url for key, item in value.items() for url in outside_urls(item, f"{where}.{key}" if where else key)]
    if isinstance(value, list):
        return [url for index, item in enumerate(value) for url in outside_urls(item, f"{where}[{index}]")]
    return []


def bridge_settings(data: dict[str, Any]) -> Settings:
    """The bridge's settings as a visitor gets them before changing any: the site's defaults (overrides.json)
    under the values it fixes (litePluginSettings)."""
    defaults = (data.get("settingsOverrides") or {}).get(SETTINGS_ID) or {}
    fixed = (data.get("litePluginSettings") or {}).get(SETTINGS_ID) or {}
    return Settings.read({**defaults, **fixed} if isinstance(defaults, dict) and isinstance(fixed, dict) else {})


def kernel_pyodide(site: Path, kernel: dict[str, Any]) -> PyodideSource | None:
    """Where the kernel loads Pyodide from (its `pyodideUrl`, else its default); None without a Pyodide kernel."""
    url = kernel.get("pyodideUrl")
    if isinstance(url, str) and url and not ABSOLUTE_URL.match(url):
        lock = read_json((site / url).parent / "pyodide-lock.json")
        release = lock.get("info", {}).get("version") if isinstance(lock, dict) else None
        return PyodideSource(f"{Path(url).parent.as_posix().removeprefix('./')}/", release, outside=False)
    if not url:
        schema = read_json(site / KERNEL_SCHEMA)
        url = schema["properties"]["pyodideUrl"]["default"] if isinstance(schema, dict) else None
    if not isinstance(url, str):
        return None
    found = PYODIDE_RELEASE.search(url)
    return PyodideSource(url, found.group(1) if found else None, outside=True)


def notebook_access_in(path: Path, relative: str, settings: Settings) -> NotebookAccess | None:
    notebook = read_json(path)
    if not isinstance(notebook, dict):
        return None
    cells = [cell for cell in notebook.get("cells") or [] if isinstance(cell, dict)]
    levels = [cell_access(cell.get("metadata"), settings.access.cell) for cell in cells]
    return NotebookAccess(relative, notebook_access(notebook.get("metadata"), settings.access.notebook), len(cells),
                          levels.count("none"), levels.count("read"))


def missing_files(site: Path, kernel: dict[str, Any], settings: Settings) -> list[str]:
    """The site's files its configuration names that are not in it."""
    options = kernel.get("loadPyodideOptions") if isinstance(kernel.get("loadPyodideOptions"), dict) else {}
    named = {"pyodideUrl": kernel.get("pyodideUrl"), "stdLibURL": options.get("stdLibURL")}
    named.update({f"pipliteUrls[{index}]": url for index, url in enumerate(kernel.get("pipliteUrls") or [])})
    named.update({f"ownerTools[{index}]": wheel for index, wheel in enumerate(settings.owner_tools)})
    return [f"{CONFIG}: {key} names {url}, which is not in the site"
            + (": the kernel will not start" if key in ("pyodideUrl", "stdLibURL") else "")
            for key, url in named.items()
            if isinstance(url, str) and url and not ABSOLUTE_URL.match(url) and not (site / url.split("?")[0]).is_file()]


def check_site(site: Path) -> SiteReport:
    report = SiteReport()
    data = config_data(site / CONFIG)
    if not data:
        report.problems.append(f"{site} is not a built JupyterLite site (it has no {CONFIG}): run jupyter lite build, "
                               "then check its output folder")
        return report
    manifest = read_json(site / SITE_BRIDGE_ASSETS / "manifest.json")
    loaded = any(isinstance(entry, dict) and entry.get("name") == EXTENSION
                 for entry in data.get("federated_extensions") or [])
    settings = bridge_settings(data)
    kernel = (data.get("litePluginSettings") or {}).get(KERNEL_PLUGIN) or {}
    pyodide = kernel_pyodide(site, kernel)
    report.lines.append(f"{site}: a JupyterLite {data.get('appVersion', '(version unknown)')} site")
    bridge = isinstance(manifest, dict) and loaded
    if bridge:
        report.lines += bridge_lines(manifest, read_json(site / "extensions" / EXTENSION / "package.json"), settings)
    else:
        report.problems.append(f"the site has no {EXTENSION} extension" if not isinstance(manifest, dict) else
                               "the site holds the bridge's files but its page does not load them: delete the output "
                               "folder and build again")
    report.lines += offline_lines(site, data, kernel, pyodide)
    if bridge:
        report.lines.append(fast_start_line(manifest, pyodide))
    report.lines += access_lines(site, settings)
    report.lines.append(
        "https: needed. Browsers offer WebMCP only to pages served over https or from localhost; over plain http the "
        f'status bar reads "{NOT_SECURE_STATUS}" and no agent can connect (GitHub Pages serves https).')
    if pyodide is None:
        report.problems.append("the site has no Pyodide kernel (jupyterlite-pyodide-kernel) for the bridge to share")
    report.problems += missing_files(site, kernel, settings)
    return report


def bridge_lines(manifest: dict[str, Any], package: Any, settings: Settings) -> list[str]:
    version = package.get("version") if isinstance(package, dict) else None
    prelisted = [tool for tool in manifest.get("prelisted", {}).get("tools", []) if isinstance(tool, dict)]
    own = [tool.get("name") for tool in (manifest.get("siteTools") or {}).get("tools", [])]
    listed = sorted(tool["name"] for tool in prelisted if settings.allows(tool.get("setting"))) + own
    head = f"Bridge: {EXTENSION} {version or '(version unknown)'}; "
    if not settings.enabled:
        return [head + "the site's settings turn it off: the page lists no tools"]
    off = [f"{tool['name']} ({tool['setting']})" for tool in prelisted if not settings.allows(tool.get("setting"))]
    return [head + f"the page lists {plural(len(listed), 'tool')}: {', '.join(listed)}",
            *([f"  off unless the settings turn them on: {', '.join(off)}"] if off else []),
            f"  the site's own tools among them: {', '.join(own) if own else 'none'}"]


def offline_lines(site: Path, data: dict[str, Any], kernel: dict[str, Any], pyodide: PyodideSource | None) -> list[str]:
    outside = [f"{CONFIG}, {url}" for url in outside_urls(data)]
    outside += [f"{path.relative_to(site).as_posix()}, {url}" for path in sorted(site.glob(f"*/{CONFIG}"))
                for url in outside_urls(read_json(path))]
    if pyodide is not None and pyodide.outside and "pyodideUrl" not in kernel:
        outside.append(f"the kernel's default Pyodide, {pyodide.place} (to ship Pyodide with the site, run "
                       "jupyterlite-pyodide-webmcp ship-pyodide before jupyter lite build)")
    if kernel.get("disablePyPIFallback") is not True:
        outside.append("PyPI, for a %pip install of a package the site does not ship (disablePyPIFallback is off)")
    if outside:
        return ["Offline: no. The page loads from outside the site:", *(f"  {line}" for line in outside)]
    where = f", from the site's {pyodide.place}" if pyodide is not None else ""
    return [f"Offline: yes. Nothing in the site's configuration points outside it: the kernel and the bridge load "
            f"Pyodide {pyodide.release if pyodide is not None and pyodide.release else ''}{where}.".replace("  ", " ")]


def fast_start_line(manifest: dict[str, Any], pyodide: PyodideSource | None) -> str:
    made_for = manifest.get("pyodideVersion")
    release = pyodide.release if pyodide is not None else None
    if not manifest.get("snapshot"):
        return "Fast start: no, this build of the bridge ships no snapshot (the bridge starts plainly)."
    if release != made_for:
        return (f"Fast start: no, the snapshot was made for Pyodide {made_for} and the site's Pyodide is "
                f"{release or 'of an unknown release'} (the bridge starts plainly).")
    return f"Fast start: yes, the snapshot was made for Pyodide {made_for}, the site's."


def access_lines(site: Path, settings: Settings) -> list[str]:
    files = site / "files"
    found = [notebook_access_in(path, path.relative_to(files).as_posix(), settings)
             for path in sorted(files.rglob("*.ipynb")) if ".ipynb_checkpoints" not in path.parts]
    notebooks = [notebook for notebook in found if notebook is not None]
    if not notebooks:
        return ["Agent access: the site ships no notebooks."]
    kept = [notebook for notebook in notebooks if notebook.keeps_something()]
    defaults = "" if (settings.access.notebook, settings.access.cell) == ("write", "write") else (
        f" (the site's defaults: a notebook without a setting of its own is {ACCESS_LABELS[settings.access.notebook]}, "
        f"a cell {ACCESS_LABELS[settings.access.cell]})")
    if not kept:
        return [f"Agent access: the agent may read and change every cell of the site's "
                f"{plural(len(notebooks), 'notebook')}{defaults}."]
    return [f"Agent access: {len(kept)} of the site's {plural(len(notebooks), 'notebook')} "
            f"{'keeps' if len(kept) == 1 else 'keep'} cells from the agent{defaults}:",
            *(f"  {notebook.summary()}" for notebook in kept)]
