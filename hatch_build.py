"""Build the labextension (JS host + bridge wheels) and pack it as the wheel's shared data."""

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

        build_labextension()
        for path in sorted(LABEXTENSION.rglob("*")):
            if path.is_file():
                build_data["shared_data"][str(path)] = f"{LABEXTENSIONS}/{path.relative_to(LABEXTENSION).as_posix()}"
