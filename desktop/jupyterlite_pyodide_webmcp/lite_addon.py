"""A `jupyter lite build` addon: the site's own tools, read off the wheels its settings list, go into the
site's copy of the bridge's manifest, so the page lists them with the built-in tools from the start.

Their definitions are also checked with `tdqs lint` (Glama's tool definition linter) when it is installed;
its findings are printed, and never fail the build.
"""

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from jupyterlite_core.addons.base import BaseAddon
from jupyterlite_core.constants import JUPYTERLITE_JSON

from .mcp_server import Catalog, mcp_tool

SETTINGS_ID = "jupyterlite-pyodide-webmcp:bridge"
MANIFEST = Path("extensions") / "jupyterlite-pyodide-webmcp" / "static" / "bridge" / "manifest.json"
PROBE_TIMEOUT_S = 120


class SiteToolsAddon(BaseAddon):
    """Lists a site's own tools (the `ownerTools` setting) in the bridge's manifest."""

    __all__ = ["post_build"]

    def post_build(self, manager: Any) -> Any:
        output = Path(manager.output_dir)
        yield self.task(
            name="site-tools",
            doc="list the site's own tools in the bridge's manifest",
            file_dep=[output / JUPYTERLITE_JSON],
            actions=[(self.list_site_tools, [output])],
        )

    def list_site_tools(self, output: Path) -> None:
        manifest_path = output / MANIFEST
        if not manifest_path.is_file():
            return
        wheels = self.get_lite_plugin_settings(output / JUPYTERLITE_JSON, SETTINGS_ID).get("ownerTools") or []
        manifest = json.loads(manifest_path.read_text())
        listed = site_tools([path for path in wheels if isinstance(path, str)], output)
        if listed is None:
            manifest.pop("siteTools", None)
        else:
            manifest["siteTools"] = listed
            for note in listed["problems"]:
                self.log.warning(f"[lite] [webmcp] site tools: {note}")
            self.log.info(f"[lite] [webmcp] site tools listed: {', '.join(t['name'] for t in listed['tools']) or 'none'}")
            lint(listed["tools"], self.log)
        manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")


def site_tools(wheels: list[str], output: Path) -> dict[str, Any] | None:
    """The descriptors of the tools in the listed wheels (paths from the site's root), read in a process of
    their own; None when the site lists none."""
    if not wheels:
        return None
    files = [output / path for path in wheels if (output / path).is_file()]
    problems = [f"{path}: not a file of the built site" for path in wheels if not (output / path).is_file()]
    tools: list[dict[str, Any]] = []
    if files:
        ran = subprocess.run([sys.executable, "-m", "jupyterlite_pyodide_webmcp.site_tools_probe", *map(str, files)],
                             capture_output=True, text=True, timeout=PROBE_TIMEOUT_S, stdin=subprocess.DEVNULL)
        if ran.returncode == 0:
            found = json.loads(ran.stdout)
            tools, problems = found["tools"], [*problems, *found["problems"]]
        else:
            problems.append(f"reading the wheels failed: {ran.stderr.strip()[-300:]}")
    return {"wheels": wheels, "tools": tools, "problems": problems}


def lint(descriptors: list[dict[str, Any]], log: Any) -> None:
    """`tdqs lint` of the site's tools as an MCP host gets them, printed; a missing linter says how to get it."""
    tdqs = shutil.which("tdqs") or str(Path(sys.executable).with_name("tdqs"))
    if not descriptors:
        return
    if not Path(tdqs).exists():
        log.info("[lite] [webmcp] `pip install tdqs` to have the site tools' definitions linted at build")
        return
    with tempfile.TemporaryDirectory() as folder:
        listed = Path(folder) / "tools.json"
        listed.write_text(json.dumps({"tools": [mcp_tool(descriptor, Catalog()) for descriptor in descriptors]}))
        ran = subprocess.run([tdqs, "lint", "--file", str(listed), "--format", "text", "--fail-on", "never"],
                             capture_output=True, text=True, timeout=PROBE_TIMEOUT_S, stdin=subprocess.DEVNULL)
    print(f"[lite] [webmcp] tdqs lint of the site's tools:\n{ran.stdout.strip() or ran.stderr.strip()}", flush=True)
