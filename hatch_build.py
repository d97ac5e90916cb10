"""Build the labextension (JS host + bridge wheels) and pack it as the wheel's shared data, with the
Pyodide runtime and the kernel's wheels that `jupyterlite-pyodide-webmcp mcp` builds its sites with.

The memory snapshot needs a Chromium-based browser and Playwright where the wheel is built; without
them the build fails and says what is missing, unless JUPYTERLITE_WEBMCP_PLAIN_START=1 asks for a
wheel whose bridge starts without a snapshot.
"""

import os
import sys

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

LABEXTENSIONS = "share/jupyter/labextensions/jupyterlite-pyodide-webmcp"
RUNTIME = "jupyterlite_pyodide_webmcp/pyodide"


class LabextensionHook(BuildHookInterface):
    def initialize(self, version, build_data):
        if self.target_name != "wheel":
            return
        sys.path[:0] = [self.root, os.path.join(self.root, "desktop")]
        from buildkit.paths import LABEXTENSION, SITE_PYODIDE, STDLIB_ZIP
        from buildkit.site import build_labextension, prepare_site_pyodide
        from buildkit.snapshot import plain_start_requested

        build_labextension(plain_start=plain_start_requested(os.environ))
        for path in sorted(LABEXTENSION.rglob("*")):
            if path.is_file():
                build_data["shared_data"][str(path)] = f"{LABEXTENSIONS}/{path.relative_to(LABEXTENSION).as_posix()}"
        prepare_site_pyodide()
        for path in sorted(SITE_PYODIDE.iterdir()):
            if path.name != STDLIB_ZIP:  # sites start the kernel on the extension's bytecode standard library
                build_data["force_include"][str(path)] = f"{RUNTIME}/{path.name}"
