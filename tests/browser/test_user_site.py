"""A user's own site, made the README's way: the prebuilt wheel installed in a fresh virtual environment
and a stock `jupyter lite build`, driven by the GitHub Pages workflow in examples/github-pages.

Two sites: the workflow's as is (no Pyodide shipped: the kernel, and so the bridge, use the kernel's
default CDN Pyodide; this machine reaches no CDN, so the test routes exactly that URL to the npm copy of
the same release, which checks which URL is requested), and the same with a Pyodide placed in
`static/pyodide` (then nothing may leave the site). Both are served under a sub-path, as GitHub Pages
serves a project site, and both must restore the shipped snapshot (the fast start).
"""

import os
import shutil
import subprocess
import venv
from pathlib import Path

import pytest
import yaml
from conftest import (
    BOOT_TIMEOUT_MS,
    DEFAULT_TOOLS,
    READY,
    Lab,
    RequestRecorder,
    payload,
)

from buildkit.paths import DIST, NPM_PYODIDE, ROOT, SITE_PYODIDE

EXAMPLE = ROOT / "examples" / "github-pages"
WORKFLOW = yaml.safe_load((EXAMPLE / ".github" / "workflows" / "deploy.yml").read_text())
BUILD_STEPS = WORKFLOW["jobs"]["build"]["steps"]
PREFIX = "/my-notebooks/"  # GitHub Pages serves a project site under /<repository>/
MiB = 2**20


def step_using(action: str) -> dict:
    return next(step for step in BUILD_STEPS if step.get("uses", "").startswith(action + "@"))


PUBLISHED = step_using("actions/upload-pages-artifact")["with"]["path"]


def run_steps(repository: Path, environment: dict, only_build: bool = False) -> None:
    """The workflow's own shell steps, run as the runner would (in the repository, the venv first on PATH)."""
    for step in BUILD_STEPS:
        if "run" in step and (not only_build or "jupyter lite build" in step["run"]):
            subprocess.run(step["run"], shell=True, cwd=repository, env=environment, check=True)


@pytest.fixture(scope="module")
def sites(tmp_path_factory):
    """Build both sites; returns {"cdn": folder, "shipped": folder, "cdn_url": the kernel's default pyodide.mjs}."""
    wheels = list(DIST.glob("*.whl"))
    if not wheels:
        pytest.fail("no prebuilt wheel in dist/: run python3 build.py test (or wheel)")
    root = tmp_path_factory.mktemp("user-site")
    environment_folder = root / "venv"
    venv.EnvBuilder(with_pip=True).create(environment_folder)
    environment = {
        **{key: value for key, value in os.environ.items() if key not in ("VIRTUAL_ENV", "PYTHONPATH")},
        "PATH": f"{environment_folder / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "VIRTUAL_ENV": str(environment_folder),
        # The wheel is not on PyPI yet: pip finds it in dist/ (as it would on PyPI once published).
        "PIP_FIND_LINKS": str(DIST),
        "PIP_QUIET": "1",
    }
    cdn_repository = root / "repository"
    shutil.copytree(EXAMPLE, cdn_repository)
    run_steps(cdn_repository, environment)
    shipped_repository = root / "with-pyodide"
    shutil.copytree(EXAMPLE, shipped_repository)
    # A Pyodide placed by hand: the npm release plus the kernel's wheels and a lock of what ships.
    shutil.copytree(SITE_PYODIDE, shipped_repository / "static" / "pyodide")
    (shipped_repository / "jupyter-lite.json").write_text(
        '{"jupyter-config-data": {"litePluginSettings": {"@jupyterlite/pyodide-kernel-extension:kernel":'
        ' {"disablePyPIFallback": true}}}}')
    run_steps(shipped_repository, environment, only_build=True)
    cdn_url = subprocess.run(
        [environment_folder / "bin" / "python", "-c",
         "from jupyterlite_pyodide_kernel.constants import PYODIDE_CDN_URL, PYODIDE_MJS;"
         "print(f'{PYODIDE_CDN_URL}/{PYODIDE_MJS}')"],
        capture_output=True, text=True, check=True).stdout.strip()
    return {"cdn": cdn_repository / PUBLISHED, "shipped": shipped_repository / PUBLISHED, "cdn_url": cdn_url}


def test_the_workflow_publishes_a_complete_site(sites):
    assert {"pages", "id-token"} <= {key for key, value in WORKFLOW["permissions"].items() if value == "write"}
    assert WORKFLOW["jobs"]["deploy"]["steps"][0]["uses"].startswith("actions/deploy-pages@")
    published = sites["cdn"]
    for path in ["index.html", "lab/index.html", "notebooks/index.html", "tree/index.html", "files/welcome.ipynb",
                 "extensions/jupyterlite-pyodide-webmcp/static/bridge/manifest.json",
                 "extensions/jupyterlite-pyodide-webmcp/static/bridge/snapshot.gz",
                 "extensions/jupyterlite-pyodide-webmcp/static/bridge/python_stdlib.zip"]:
        assert (published / path).is_file(), path
    files = [path for path in published.rglob("*") if path.is_file()]
    # upload-pages-artifact v4 leaves dot files out: the site must not need any.
    assert not [path for path in files if any(part.startswith(".") for part in path.relative_to(published).parts)]
    assert sum(path.stat().st_size for path in files) < 1024 * MiB  # GitHub Pages' limit


def route_cdn_to_npm_pyodide(context, cdn_url: str) -> None:
    """The kernel's CDN Pyodide folder, answered from the npm copy of the same release."""
    folder = cdn_url.rsplit("/", 1)[0]

    def answer(route):
        local = NPM_PYODIDE / route.request.url[len(folder) + 1:].split("?")[0]
        if not local.is_file():
            return route.fulfill(status=404)
        kind = {".wasm": "application/wasm", ".mjs": "text/javascript", ".json": "application/json"}
        route.fulfill(path=local, content_type=kind.get(local.suffix, "application/octet-stream"),
                      headers={"Access-Control-Allow-Origin": "*"})

    context.route(folder + "/**", answer)


def test_without_a_shipped_pyodide_the_bridge_uses_the_kernels_cdn_pyodide(browser, sites, served):
    context = browser.new_context(service_workers="block")
    requested = []
    context.on("request", lambda request: requested.append(request.url))
    route_cdn_to_npm_pyodide(context, sites["cdn_url"])
    page = context.new_page()
    try:
        page.goto(served(sites["cdn"], prefix=PREFIX) + "/lab/index.html")
        status = page.wait_for_selector(READY, timeout=BOOT_TIMEOUT_MS).inner_text()
        assert status == f"WebMCP: ready ({len(DEFAULT_TOOLS)} tools; snapshot start)"
        assert sites["cdn_url"] in requested
        listing = payload(page.webmcp.call_tool("jupyter_list_workspace", {}))
        assert "welcome.ipynb" in [entry["path"] for entry in listing["entries"]], listing
    finally:
        context.close()


def test_with_a_shipped_pyodide_the_site_starts_fast_and_stays_offline(browser, sites, served):
    context = browser.new_context(service_workers="block")
    base = served(sites["shipped"], prefix=PREFIX)
    recorder = RequestRecorder(base.split(PREFIX.rstrip("/"))[0])
    context.on("request", recorder.record)
    page = context.new_page()
    try:
        page.goto(base + "/lab/index.html?path=welcome.ipynb")
        status = page.wait_for_selector(READY, timeout=BOOT_TIMEOUT_MS).inner_text()
        assert status == f"WebMCP: ready ({len(DEFAULT_TOOLS)} tools; snapshot start)"
        lab = Lab(page, base)
        assert [cell["id"] for cell in lab.call("jupyter_get_cells", {"notebookPath": "welcome.ipynb"})["cells"]] == [
            "about", "answer"]
        lab.open_with_idle_kernel("welcome.ipynb")
        ran = lab.call("jupyter_run_cells", {"notebookPath": "welcome.ipynb", "cellIds": ["answer"]})
        assert ran["results"][0]["outputSummary"] == "42", ran
    finally:
        context.close()
    assert recorder.urls
    assert recorder.foreign() == [], recorder.foreign()[:5]
