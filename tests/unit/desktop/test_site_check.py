"""site_check.py: what `jupyterlite-pyodide-webmcp check` says of a built site, read off its files (sites made here
with the files a build writes; tests/browser/test_user_site.py checks real built sites)."""

import json
import re
import shutil
from pathlib import Path

import pytest
from jupyter_core.paths import jupyter_path
from jupyterlite_pyodide_webmcp.site_check import (
    KERNEL_SCHEMA,
    NOT_SECURE_STATUS,
    check_site,
    outside_urls,
)
from jupyterlite_pyodide_webmcp.sites import (
    EXTENSION,
    KERNEL_PLUGIN,
    SETTINGS_ID,
    SITE_BRIDGE_ASSETS,
    SITE_STDLIB_URL,
)

from buildkit.paths import ROOT

INSTALLED_KERNEL_SCHEMA = next(
    path for folder in jupyter_path("labextensions")
    if (path := Path(folder) / KERNEL_SCHEMA.relative_to("extensions")).is_file())
"""The installed Pyodide kernel's settings schema, which `jupyter lite build` copies into a site."""
CDN_PYODIDE = json.loads(INSTALLED_KERNEL_SCHEMA.read_text())["properties"]["pyodideUrl"]["default"]
"""The kernel's default Pyodide, as the kernel itself says it."""
TOOLS = [{"name": "listed_always", "setting": None}, {"name": "listed_when_run_code", "setting": "runCode"}]


def write(path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def cell(cell_id: str, access: str | None = None) -> dict:
    metadata = {"jupyterlite_webmcp": {"access": access}} if access else {}
    return {"cell_type": "code", "id": cell_id, "metadata": metadata, "source": "", "outputs": [], "execution_count": None}


def notebook(cells: list[dict], access: str | None = None) -> dict:
    return {"nbformat": 4, "nbformat_minor": 5, "cells": cells,
            "metadata": {"jupyterlite_webmcp": {"notebookAccess": access}} if access else {}}


@pytest.fixture
def site(tmp_path):
    """A built site with the bridge, its kernel on the site's own Pyodide 314.0.6 and no PyPI fallback."""
    root = tmp_path / "_output"
    kernel = {"pyodideUrl": "./static/pyodide/pyodide.mjs", "disablePyPIFallback": True,
              "loadPyodideOptions": {"stdLibURL": SITE_STDLIB_URL}}
    write(root / "jupyter-lite.json", {"jupyter-config-data": {
        "appVersion": "0.8.6", "federated_extensions": [{"name": EXTENSION, "load": "static/remoteEntry.js"}],
        "litePluginSettings": {KERNEL_PLUGIN: kernel}}})
    write(root / "extensions" / EXTENSION / "package.json", {"version": "0.1.0"})
    write(root / SITE_BRIDGE_ASSETS / "manifest.json", {"pyodideVersion": "314.0.6", "snapshot": {"file": "snapshot.br"},
                                                          "prelisted": {"tools": TOOLS}})
    (root / SITE_BRIDGE_ASSETS / "python_stdlib.zip").write_bytes(b"zip")
    write(root / "static" / "pyodide" / "pyodide-lock.json", {"info": {"version": "314.0.6"}})
    (root / "static" / "pyodide" / "pyodide.mjs").write_text("export {}")
    (root / KERNEL_SCHEMA).parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(INSTALLED_KERNEL_SCHEMA, root / KERNEL_SCHEMA)
    write(root / "files" / "welcome.ipynb", notebook([cell("a"), cell("b")]))
    write(root / "files" / "week1" / "lesson.ipynb",
          notebook([cell("instructions", "read"), cell("exercise"), cell("solution", "none"), cell("hint", "none")]))
    write(root / "files" / "secret.ipynb", notebook([cell("x")], access="none"))
    return root


def config_of(site) -> dict:
    return json.loads((site / "jupyter-lite.json").read_text())


def change_config(site, change) -> None:
    config = config_of(site)
    change(config["jupyter-config-data"])
    write(site / "jupyter-lite.json", config)


def test_an_offline_site_with_the_bridge(site):
    report = check_site(site)
    text = report.text()
    assert report.problems == []
    assert "Bridge: jupyterlite-pyodide-webmcp 0.1.0; the page lists 1 tool: listed_always" in text
    assert "off unless the settings turn them on: listed_when_run_code (runCode)" in text
    assert "Offline: yes." in text and "static/pyodide/" in text
    assert "Fast start: yes" in text
    assert "Agent access: 2 of the site's 3 notebooks keep cells from the agent:" in text
    assert "  secret.ipynb: the whole notebook hidden" in text
    assert "  week1/lesson.ipynb: 2 hidden cells, 1 read-only cell (of 4)" in text
    assert "welcome.ipynb" not in text
    assert NOT_SECURE_STATUS in " ".join(text.split())


def test_a_site_on_the_kernel_s_cdn_pyodide_that_asks_pypi_is_not_offline(site):
    change_config(site, lambda data: data["litePluginSettings"].__setitem__(KERNEL_PLUGIN, {}))
    text = " ".join(check_site(site).text().split())
    assert "Offline: no." in text
    assert f"the kernel's default Pyodide, {CDN_PYODIDE}" in text and "ship-pyodide" in text
    assert "PyPI, for a %pip install" in text
    assert "Fast start: yes" in text  # the CDN release is the snapshot's


def test_a_url_outside_the_site_anywhere_in_its_configuration_is_named(site):
    change_config(site, lambda data: data.__setitem__("licensesUrl", "//example.org/licenses"))
    write(site / "lab" / "jupyter-lite.json", {"jupyter-config-data": {"faviconUrl": "https://example.org/icon.ico"}})
    text = check_site(site).text()
    assert "Offline: no." in text
    assert "jupyter-lite.json, licensesUrl: //example.org/licenses" in text
    assert "lab/jupyter-lite.json, jupyter-config-data.faviconUrl: https://example.org/icon.ico" in text


def test_outside_urls_walks_every_value():
    assert outside_urls({"a": ["./here", "http://x"], "b": {"c": "ftp://y"}, "d": 3, "e": "data:,x"}) == [
        "a[1]: http://x", "b.c: ftp://y"]


def test_a_standard_library_the_site_lacks_is_a_problem(site):
    (site / SITE_BRIDGE_ASSETS / "python_stdlib.zip").unlink()
    report = check_site(site)
    assert report.problems == [f"jupyter-lite.json: stdLibURL names {SITE_STDLIB_URL}, which is not in the site: "
                               "the kernel will not start"]
    assert report.text().split("\nProblems:\n")[1].split() == report.problems[0].split()


def test_without_the_bridge_the_check_says_so(site):
    change_config(site, lambda data: data.__setitem__("federated_extensions", []))
    assert check_site(site).problems[0] == ("the site holds the bridge's files but its page does not load them: "
                                            "delete the output folder and build again")
    assert check_site(site / "files").problems[0].endswith("run jupyter lite build, then check its output folder")


def test_the_site_s_settings_decide_the_tools_and_the_default_access(site):
    def settings(data):
        data["settingsOverrides"] = {SETTINGS_ID: {"defaultCellAccess": "read", "runCode": False}}
        data["litePluginSettings"][SETTINGS_ID] = {"runCode": True}

    change_config(site, settings)
    text = check_site(site).text()
    assert "the page lists 2 tools: listed_always, listed_when_run_code" in text and "off unless" not in text
    assert "Agent access: 3 of the site's 3 notebooks" in text and "a cell read only" in text
    assert "  welcome.ipynb: 2 read-only cells (of 2)" in text
    change_config(site, lambda data: data["litePluginSettings"][SETTINGS_ID].__setitem__("enabled", False))
    assert "the site's settings turn it off: the page lists no tools" in check_site(site).text()


def test_a_site_pyodide_of_another_release_starts_plainly(site):
    write(site / "static" / "pyodide" / "pyodide-lock.json", {"info": {"version": "314.0.7"}})
    assert ("Fast start: no, the snapshot was made for Pyodide 314.0.6 and the site's Pyodide is 314.0.7"
            in " ".join(check_site(site).text().split()))


def test_the_https_line_quotes_the_page_s_own_status():
    source = (ROOT / "lib" / "page-kind.js").read_text()
    assert re.search(r"'(WebMCP unavailable: not a secure context[^']*)'", source).group(1) == NOT_SECURE_STATUS
