"""offline.py: a lite folder made to ship the Pyodide runtime the package ships, its own settings kept."""

import json

from jupyterlite_pyodide_webmcp import offline


def test_the_runtime_is_copied_and_the_folder_s_settings_are_kept(tmp_path, monkeypatch):
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    (runtime / "pyodide-lock.json").write_text(json.dumps({"info": {"version": "314.0.6"}, "packages": {}}))
    (runtime / "pyodide.mjs").write_text("export {}")
    monkeypatch.setattr(offline, "RUNTIME", runtime)
    lite = tmp_path / "lite"
    lite.mkdir()
    (lite / "static" / "pyodide").mkdir(parents=True)
    (lite / "static" / "pyodide" / "stale.txt").write_text("an older copy")
    owner = {"jupyter-config-data": {"appName": "Course", "litePluginSettings": {
        "jupyterlite-pyodide-webmcp:bridge": {"ownerTools": ["pypi/a.whl"]}}}}
    (lite / "jupyter-lite.json").write_text(json.dumps(owner))
    said = offline.ship_pyodide(lite)
    assert "314.0.6" in said and "jupyter lite build" in said
    assert sorted(p.name for p in (lite / "static" / "pyodide").iterdir()) == ["pyodide-lock.json", "pyodide.mjs"]
    config = json.loads((lite / "jupyter-lite.json").read_text())["jupyter-config-data"]
    assert config["appName"] == "Course" and config["litePluginSettings"]["jupyterlite-pyodide-webmcp:bridge"]
    kernel = config["litePluginSettings"][offline.KERNEL_PLUGIN]
    assert kernel["disablePyPIFallback"] is True and kernel["loadPyodideOptions"]["stdLibURL"].endswith("python_stdlib.zip")
