"""Build the labextension (JS host + bridge wheels) and pack it as the wheel's shared data.

The memory snapshot needs a Chromium-based browser and Playwright where the wheel is built; without
them the build fails and says what is missing, unless JUPYTERLITE_WEBMCP_PLAIN_START=1 asks for a
wheel whose bridge starts without a snapshot.
"""

import os
import sys

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

LABEXTENSIONS = "share/jupyter/labextensions/jupyterlite-pyodide-webmcp"


class LabextensionHook(BuildHookInterface):
    def initialize(self, version, build_data):
        if self.target_name != "wheel":
            return
        sys.path.insert(0, self.root)
        from buildkit.paths import LABEXTENSION
        from buildkit.site import build_labextension
        from buildkit.snapshot import plain_start_requested

        build_labextension(plain_start=plain_start_requested(os.environ))
        for path in sorted(LABEXTENSION.rglob("*")):
            if path.is_file():
                build_data["shared_data"][str(path)] = f"{LABEXTENSIONS}/{path.relative_to(LABEXTENSION).as_posix()}"
