"""offline.py: a lite folder made to ship the Pyodide runtime the package ships, its own settings kept, nothing in
it naming the bridge; the built site's kernel shares the bridge's standard library when it ships the same file."""

import json

import pytest
from jupyterlite_pyodide_webmcp import offline
from jupyterlite_pyodide_webmcp.sites import (
    BRIDGE_ASSETS,
    KERNEL_PLUGIN,
    SITE_BRIDGE_ASSETS,
    SITE_STDLIB_URL,
    STDLIB,
)

BYTECODE_STDLIB = b"the bridge's bytecode standard library"


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """A package's Pyodide runtime and its installed extension's standard library."""
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    (runtime / "pyodide-lock.json").write_text(json.dumps({"info": {"version": "314.0.6"}, "packages": {}}))
    (runtime / "pyodide.mjs").write_text("export {}")
    extension = tmp_path / "labextension"
    (extension / BRIDGE_ASSETS).mkdir(parents=True)
    (extension / BRIDGE_ASSETS / STDLIB).write_bytes(BYTECODE_STDLIB)
    monkeypatch.setattr(offline, "RUNTIME", runtime)
    monkeypatch.setattr(offline, "installed_extension", lambda: extension)


def test_the_runtime_and_its_standard_library_are_copied_and_the_folder_s_settings_are_kept(tmp_path, installed):
    lite = tmp_path / "lite"
    (lite / "static" / "pyodide").mkdir(parents=True)
    (lite / "static" / "pyodide" / "stale.txt").write_text("an older copy")
    owner = {"jupyter-config-data": {"appName": "Course", "litePluginSettings": {
        "jupyterlite-pyodide-webmcp:bridge": {"ownerTools": ["pypi/a.whl"]}}}}
    (lite / "jupyter-lite.json").write_text(json.dumps(owner))
    said = offline.ship_pyodide(lite)
    assert "314.0.6" in said and "jupyter lite build" in said
    shipped = lite / "static" / "pyodide"
    assert sorted(p.name for p in shipped.iterdir()) == ["pyodide-lock.json", "pyodide.mjs", STDLIB]
    assert (shipped / STDLIB).read_bytes() == BYTECODE_STDLIB
    config = json.loads((lite / "jupyter-lite.json").read_text())["jupyter-config-data"]
    assert config["appName"] == "Course" and config["litePluginSettings"]["jupyterlite-pyodide-webmcp:bridge"]
    assert config["litePluginSettings"][KERNEL_PLUGIN] == {"disablePyPIFallback": True}
    assert "webmcp" not in json.dumps(config["litePluginSettings"][KERNEL_PLUGIN])  # it works without the bridge


def test_a_standard_library_url_into_the_bridge_s_folder_is_dropped_and_the_owner_s_own_kept():
    into_the_bridge = {"jupyter-config-data": {"litePluginSettings": {KERNEL_PLUGIN: {
        "loadPyodideOptions": {"stdLibURL": SITE_STDLIB_URL}}}}}
    kernel = offline.offline_config(into_the_bridge)["jupyter-config-data"]["litePluginSettings"][KERNEL_PLUGIN]
    assert kernel == {"disablePyPIFallback": True}
    own = {"jupyter-config-data": {"litePluginSettings": {KERNEL_PLUGIN: {
        "loadPyodideOptions": {"stdLibURL": "./mine.zip", "fullStdLib": False}}}}}
    kernel = offline.offline_config(own)["jupyter-config-data"]["litePluginSettings"][KERNEL_PLUGIN]
    assert kernel["loadPyodideOptions"] == {"stdLibURL": "./mine.zip", "fullStdLib": False}


def built_site(tmp_path, pyodide_stdlib: bytes | None):
    site = tmp_path / "site"
    (site / SITE_BRIDGE_ASSETS).mkdir(parents=True)
    (site / SITE_BRIDGE_ASSETS / STDLIB).write_bytes(BYTECODE_STDLIB)
    if pyodide_stdlib is not None:
        (site / offline.SITE_PYODIDE).mkdir(parents=True)
        (site / offline.SITE_PYODIDE / STDLIB).write_bytes(pyodide_stdlib)
    return site


def test_the_kernel_shares_the_bridge_s_standard_library_only_where_the_site_ships_the_same_file(tmp_path):
    kernel = {"disablePyPIFallback": True, "loadPyodideOptions": {"fullStdLib": False}}
    shared = offline.shared_stdlib(kernel, built_site(tmp_path / "same", BYTECODE_STDLIB))
    assert shared == {"disablePyPIFallback": True, "loadPyodideOptions": {"fullStdLib": False, "stdLibURL": SITE_STDLIB_URL}}
    assert offline.shared_stdlib(kernel, built_site(tmp_path / "other", b"Pyodide's own")) == kernel
    assert offline.shared_stdlib(kernel, built_site(tmp_path / "cdn", None)) == kernel
    chosen = {"loadPyodideOptions": {"stdLibURL": "./mine.zip"}}
    assert offline.shared_stdlib(chosen, built_site(tmp_path / "chosen", BYTECODE_STDLIB)) == chosen
