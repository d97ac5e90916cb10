"""A site's own tools: the example package (examples/owner-tools) built into a site as its README says,
beside wheels that fail each way a site's wheel can, listed and called through page.webmcp."""

import json
import shutil
import subprocess
import sys
import textwrap
import threading
import zipfile

import pytest
from jupyterlite_pyodide_webmcp.site_server import site_server

from buildkit.paths import LITE, ROOT
from tests.browser.conftest import (
    BOOT_TIMEOUT_MS,
    READY,
    Lab,
    RequestRecorder,
    notebook_json,
    payload,
    require_current_site,
)
from tests.waiting import wait_until

SETTINGS_ID = "jupyterlite-pyodide-webmcp:bridge"
COURSE_WHEEL = "pypi/course_tools-0.1.0-py3-none-any.whl"
FAILING = {
    "pypi/broken-0.1-py3-none-any.whl": "not a zip",  # a wheel that does not install
    "https://elsewhere.example/x-0.1-py3-none-any.whl": "not a file of this site",
}
SITE_MODULES = {
    "site_raises": ('''
        from pyodide_webmcp.kit import Arguments, CallContext, tool

        @tool("site_raises_boom", "Fail", read_only=True)
        async def boom(args: Arguments, ctx: CallContext) -> dict:
            """Fail on purpose; returns nothing."""
            raise RuntimeError("the site's tool broke")
    '''),
    "site_missing_dep": "import a_package_no_site_ships\n",
    "site_taken": ('''
        from pyodide_webmcp.kit import Arguments, CallContext, tool

        @tool("jupyter_site_cells", "Pretend", read_only=True)
        async def pretend(args: Arguments, ctx: CallContext) -> dict:
            """Pretend to be the bridge; returns nothing."""
            return {}
    '''),
}


def one_module_wheel(folder, name: str, source: str) -> str:
    """A pure-Python wheel of one module, offering it as site tools."""
    file = f"{name}-0.1-py3-none-any.whl"
    info = f"{name}-0.1.dist-info"
    with zipfile.ZipFile(folder / file, "w") as wheel:
        wheel.writestr(f"{name}.py", textwrap.dedent(source))
        wheel.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
        wheel.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        wheel.writestr(f"{info}/entry_points.txt", f"[pyodide_webmcp.tools]\n{name} = {name}\n")
        wheel.writestr(f"{info}/RECORD", "")
    return f"pypi/{file}"


COURSE = notebook_json([
    {"cell_type": "markdown", "id": "e1", "metadata": {}, "source": "## Exercise 1: add\nAdd two numbers."},
    {"cell_type": "code", "id": "a1", "metadata": {}, "source": "total = 1 + 2", "outputs": [], "execution_count": None},
    {"cell_type": "code", "id": "hidden", "metadata": {"jupyterlite_webmcp": {"access": "none"}},
     "source": "# TODO secret-answer-key", "outputs": [], "execution_count": None},
])


@pytest.fixture(scope="module")
def owner_site(tmp_path_factory):
    """A site built from the demo's lite folder with the example package and the failing wheels in pypi/."""
    require_current_site()
    work = tmp_path_factory.mktemp("owner")
    lite, files = work / "lite", work / "files"
    (lite / "pypi").mkdir(parents=True)
    files.mkdir()
    (files / "week1.ipynb").write_text(json.dumps(COURSE))
    shutil.copytree(LITE / "static", lite / "static")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    str(ROOT / "examples" / "owner-tools"), "-w", str(lite / "pypi")], check=True)
    (lite / "pypi" / "broken-0.1-py3-none-any.whl").write_bytes(b"not a zip")
    wheels = [COURSE_WHEEL, *[one_module_wheel(lite / "pypi", name, source) for name, source in SITE_MODULES.items()],
              *FAILING]
    config = json.loads((LITE / "jupyter-lite.json").read_text())
    config["jupyter-config-data"]["litePluginSettings"][SETTINGS_ID] = {"ownerTools": wheels}
    (lite / "jupyter-lite.json").write_text(json.dumps(config))
    site = work / "site"
    subprocess.run([sys.executable, "-m", "jupyterlite_core", "build", "--lite-dir", str(lite), "--contents",
                    str(files), "--output-dir", str(site), "--no-sourcemaps"], cwd=lite, check=True,
                   stdout=subprocess.DEVNULL)
    server = site_server(0, site)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


STATUS = ".jp-webmcp-status"


@pytest.fixture(scope="module")
def lab(browser, owner_site):
    context = browser.new_context()
    recorder = RequestRecorder(owner_site)
    context.on("request", recorder.record)
    page = context.new_page()
    lab = Lab(page, owner_site)
    page.goto(f"{owner_site}/lab/index.html?path=week1.ipynb")
    page.wait_for_selector(READY, timeout=BOOT_TIMEOUT_MS)
    page.wait_for_function("s => !document.querySelector(s).textContent.includes('installing site tools')",
                           arg=STATUS, timeout=BOOT_TIMEOUT_MS)
    yield lab
    context.close()
    assert recorder.foreign() == [], f"requests left the site: {recorder.foreign()[:5]}"


def status(lab) -> str:
    return lab.page.locator(STATUS).first.text_content()


def call(lab, name: str, arguments: dict) -> dict:
    return lab.page.webmcp.call_tool(name, arguments)


def test_the_sites_tools_are_listed_beside_the_built_in_ones(lab):
    said = status(lab)
    assert "site tools: course_list_exercises, course_mark_for_review" in said and "site_raises_boom" in said
    names = [tool["name"] for tool in lab.page.webmcp.tools()]
    assert {"course_list_exercises", "course_mark_for_review", "site_raises_boom", "jupyter_get_cells"} <= set(names)
    assert names.count("jupyter_get_cells") == 1 and "jupyter_site_cells" not in names


def test_each_failure_is_named_in_the_status_and_the_built_in_tools_go_on(lab):
    said = status(lab)
    assert "pypi/broken-0.1-py3-none-any.whl:" in said
    assert "https://elsewhere.example/x-0.1-py3-none-any.whl: ValueError:" in said and "not a file of this site" in said
    assert "site_missing_dep: ModuleNotFoundError" in said
    assert "jupyter_site_cells: names beginning jupyter_ are the bridge's own" in said
    assert lab.call("jupyter_get_context")["notebook"]["path"] == "week1.ipynb"


def test_a_tool_that_raises_is_a_structured_error(lab):
    result = call(lab, "site_raises_boom", {})
    error = payload(result)
    assert result["isError"] is True and error["error"] == "INTERNAL_ERROR" and "broke" in error["message"]
    assert "Traceback" not in json.dumps(result)


def test_the_access_rules_hold_inside_the_sites_tools(lab):
    result = call(lab, "course_list_exercises", {"notebookPath": "week1.ipynb"})
    assert payload(result) == {"exercises": [{"title": "Exercise 1: add", "answerCellId": "a1", "answered": True}]}
    hidden = payload(call(lab, "course_mark_for_review", {"cellId": "hidden", "expectedSourceHash": "x"}))
    assert hidden["error"] == "CELL_NOT_FOUND" and "secret-answer-key" not in json.dumps(hidden)


def test_a_write_is_reviewed_in_propose_mode(lab):
    lab.page.evaluate("() => window.jupyterapp.commands.execute('jupyterlite-pyodide-webmcp:toggle-propose-mode')")
    try:
        digest = lab.call("jupyter_get_cells", {"cellIds": ["a1"]})["cells"][0]["sourceHash"]
        lab.start_call("course_mark_for_review", {"cellId": "a1", "expectedSourceHash": digest})
        box = lab.page.locator(".jp-webmcp-proposal")
        box.wait_for(timeout=10_000)
        assert box.locator(".jp-webmcp-diff-added").first.inner_text() == "+ # ready for review"
        assert lab.live_cells("week1.ipynb")[1]["source"] == "total = 1 + 2"  # nothing before the human decides
        box.locator(".jp-webmcp-proposal-accept").click()
        result = lab.finish_call()
        assert result["status"] == "accepted"
        wait_until(lambda: lab.live_cells("week1.ipynb")[1]["source"] == "# ready for review\ntotal = 1 + 2",
                   what="the accepted change")
    finally:
        lab.page.evaluate("() => window.jupyterapp.commands.execute('jupyterlite-pyodide-webmcp:toggle-propose-mode')")
