"""A user's own site, made exactly as examples/github-pages/README.md says: a copy of the example, the bridge's
wheel (what `python3 build.py wheel` leaves in dist/) copied into the folder its requirements.txt names, and the
GitHub Pages workflow's own shell steps run in a fresh virtual environment. The test adds no pip setting of its own:
pip finds JupyterLite on PyPI and the bridge in the copy's wheels folder, as on a GitHub runner.

Two sites: the workflow's as is (no Pyodide shipped: the kernel, and so the bridge, use the kernel's
default CDN Pyodide; this machine reaches no CDN, so the test routes exactly that URL to the npm copy of
the same release, which checks which URL is requested), and the same with the README's offline step added
before the build (the installed package's own Pyodide, no clone: then nothing may leave the site). Both are served under a sub-path, as GitHub Pages
serves a project site, and both must restore the shipped snapshot (the fast start).
"""

import os
import re
import shutil
import subprocess
import venv
from pathlib import Path

import pytest
import yaml

from buildkit.paths import DIST, NPM_PYODIDE, ROOT
from tests.browser.conftest import (
    BOOT_TIMEOUT_MS,
    DEFAULT_TOOLS,
    READY,
    Lab,
    RequestRecorder,
    payload,
)

EXAMPLE = ROOT / "examples" / "github-pages"
README = (EXAMPLE / "README.md").read_text()
REQUIREMENTS = (EXAMPLE / "requirements.txt").read_text()
WORKFLOW = yaml.safe_load((EXAMPLE / ".github" / "workflows" / "deploy.yml").read_text())
BUILD_STEPS = WORKFLOW["jobs"]["build"]["steps"]
PREFIX = "/my-notebooks/"  # GitHub Pages serves a project site under /<repository>/
MiB = 2**20


def step_using(action: str) -> dict:
    return next(step for step in BUILD_STEPS if step.get("uses", "").startswith(action + "@"))


PUBLISHED = step_using("actions/upload-pages-artifact")["with"]["path"]
WHEEL_FOLDER = re.search(r"^--find-links (\S+)$", REQUIREMENTS, re.MULTILINE).group(1)
OFFLINE_STEP = yaml.safe_load(re.search(r"```yaml\n(.*?)```", README, re.DOTALL).group(1))[0]  # the README's step


def the_wheel() -> Path:
    wheels = list(DIST.glob("jupyterlite_pyodide_webmcp-*.whl"))
    if not wheels or not list(DIST.glob("pyodide_webmcp-*.whl")):
        pytest.fail("no prebuilt wheels in dist/: run python3 build.py test (or wheel)")
    return wheels[0]


def copy_of_the_example(repository: Path) -> Path:
    """README steps 1 and 2: the folder copied, the wheels (`cp dist/*.whl wheels/`) put in the folder
    requirements.txt names."""
    shutil.copytree(EXAMPLE, repository)
    (repository / WHEEL_FOLDER).mkdir()
    the_wheel()
    for wheel in DIST.glob("*.whl"):
        shutil.copy2(wheel, repository / WHEEL_FOLDER)
    return repository


def run_steps(repository: Path, environment: dict, only_build: bool = False, before_build: tuple = ()) -> None:
    """The workflow's own shell steps, run as the runner would (in the repository, the venv first on PATH);
    `before_build`: steps added before "Build the site", as the README says to."""
    steps = []
    for step in BUILD_STEPS:
        if "jupyter lite build" in step.get("run", ""):
            steps += before_build
        steps.append(step)
    for step in steps:
        if "run" in step and (not only_build or step in before_build or "jupyter lite build" in step["run"]):
            ran = subprocess.run(step["run"], shell=True, cwd=repository, env=environment, capture_output=True,
                                 text=True, check=False)
            if ran.returncode:
                pytest.fail(f"{step['name']!r} failed ({ran.returncode}):\n{ran.stdout[-3000:]}\n{ran.stderr[-3000:]}")


def test_the_readme_says_where_the_wheel_comes_from():
    pinned = re.search(r"^jupyterlite-pyodide-webmcp==(\S+)$", REQUIREMENTS, re.MULTILINE).group(1)
    wheel = the_wheel().name
    assert wheel.startswith(f"jupyterlite_pyodide_webmcp-{pinned}-"), (wheel, pinned)
    assert f"dist/{wheel}" in README and "python3 build.py wheel" in README and "cp dist/*.whl wheels/" in README
    assert f"`{WHEEL_FOLDER}/`" in README
    # Copied out of this repository, a relative link would point nowhere.
    assert re.findall(r"\]\((?!https?://)[^)]*\)", README) == []


@pytest.fixture(scope="module")
def sites(tmp_path_factory):
    """Build both sites; returns {"cdn": folder, "shipped": folder, "cdn_url": the kernel's default pyodide.mjs}."""
    root = tmp_path_factory.mktemp("user-site")
    environment_folder = root / "venv"
    venv.EnvBuilder(with_pip=True).create(environment_folder)
    environment = {  # this machine's environment as it is, the venv's Python first (as setup-python's on a runner)
        **{key: value for key, value in os.environ.items() if key not in ("VIRTUAL_ENV", "PYTHONPATH")},
        "PATH": f"{environment_folder / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "VIRTUAL_ENV": str(environment_folder),
    }
    cdn_repository = copy_of_the_example(root / "repository")
    run_steps(cdn_repository, environment)
    shipped_repository = copy_of_the_example(root / "with-pyodide")
    run_steps(shipped_repository, environment, only_build=True, before_build=(OFFLINE_STEP,))  # the README's offline step
    assert (shipped_repository / "static" / "pyodide" / "pyodide-lock.json").is_file()
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
    assert not list(published.rglob(the_wheel().name))  # the wheel stays in the repository
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
