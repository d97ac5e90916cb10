"""A `jupyter lite build` addon: the site's own tools, read off the wheels its settings list, go into the
site's copy of the bridge's manifest, so the page lists them with the built-in tools from the start; and a
kernel whose Pyodide ships the bridge's standard library starts on the bridge's copy (offline.shared_stdlib).

Their definitions are also checked with `tdqs lint` (Glama's tool definition linter, the same check the
bridge's own tools pass) when tdqs is importable; its findings are printed, and never fail the build.
"""

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Optional

from jupyterlite_core.addons.base import BaseAddon
from jupyterlite_core.constants import JUPYTERLITE_JSON

from .mcp_server import ManifestTools, mcp_tool
from .offline import shared_stdlib
from .sites import KERNEL_PLUGIN, SETTINGS_ID

MANIFEST = Path("extensions") / "jupyterlite-pyodide-webmcp" / "static" / "bridge" / "manifest.json"
PROBE_TIMEOUT_S = 120


class BridgeSiteAddon(BaseAddon):
    """Lists a site's own tools (the `ownerTools` setting) in the bridge's manifest, and shares the bridge's
    standard library with the kernel where the site's Pyodide ships the same file."""

    __all__ = ["post_build"]

    def post_build(self, manager: Any) -> Any:
        output = Path(manager.output_dir)
        yield self.task(
            name="site-tools",
            doc="list the site's own tools in the bridge's manifest",
            file_dep=[output / JUPYTERLITE_JSON],
            actions=[(self.list_site_tools, [output])],
        )
        yield self.task(
            name="shared-stdlib",
            doc="start the kernel on the bridge's standard library when the site's Pyodide ships the same file",
            file_dep=[output / JUPYTERLITE_JSON],
            actions=[(self.share_stdlib, [output])],
        )

    def share_stdlib(self, output: Path) -> None:
        config = output / JUPYTERLITE_JSON
        kernel = self.get_lite_plugin_settings(config, KERNEL_PLUGIN)
        shared = shared_stdlib(kernel, output)
        if shared != kernel:
            self.set_lite_plugin_settings(config, KERNEL_PLUGIN, shared)
            self.log.info("[lite] [webmcp] the kernel starts on the bridge's standard library (one download for both)")

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
            report = lint_report(listed["tools"])
            if report:
                print(report, flush=True)
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


def lint_report(descriptors: list[dict[str, Any]]) -> Optional[str]:
    """What `tdqs lint` finds in the site's tools as the MCP server lists them (title and hints from their
    descriptors), as lines to print; how to get the linter when tdqs is not importable; None for no tools.
    Never raises: a lint that fails says so, and the build goes on."""
    if not descriptors:
        return None
    try:
        from tdqs import lint_server, parse_tool_definitions
    except ImportError:
        return "[lite] [webmcp] `pip install tdqs` to have the site tools' definitions linted at build"
    try:
        catalog = ManifestTools({descriptor["name"]: descriptor for descriptor in descriptors})
        tools = parse_tool_definitions({"tools": [mcp_tool(descriptor, catalog) for descriptor in descriptors]}).tools
        report = lint_server(server_name="site tools", tools=tools)
    except Exception as error:  # noqa: BLE001 - the lint is advice: it never stops the build
        return f"[lite] [webmcp] tdqs lint of the site's tools failed: {error}"
    counts = {severity: sum(1 for f in report.findings if f.severity == severity) for severity in ("error", "warning", "info")}
    lines = [f"[lite] [webmcp] tdqs lint of the site's tools: {counts['error']} errors, {counts['warning']} warnings, "
             f"{counts['info']} notes (they do not stop the build)"]
    order = {"error": 0, "warning": 1, "info": 2}
    for finding in sorted(report.findings, key=lambda finding: order[finding.severity]):
        lines.append(f"  {'note' if finding.severity == 'info' else finding.severity} {finding.rule}: {finding.message}")
    return "\n".join(lines)
