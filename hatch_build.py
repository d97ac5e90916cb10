"""Build the labextension (JS host + bridge wheels) and pack it as the wheel's shared data."""

import importlib.util
from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

LABEXTENSIONS = "share/jupyter/labextensions/jupyterlite-webmcp"


class LabextensionHook(BuildHookInterface):
    def initialize(self, version, build_data):
        if self.target_name != "wheel":
            return
        spec = importlib.util.spec_from_file_location("project_build", Path(self.root) / "build.py")
        project_build = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(project_build)
        project_build.build_labextension()
        source = project_build.LABEXTENSION
        for path in sorted(source.rglob("*")):
            if path.is_file():
                build_data["shared_data"][str(path)] = f"{LABEXTENSIONS}/{path.relative_to(source).as_posix()}"
