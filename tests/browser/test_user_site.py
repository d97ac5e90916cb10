"""A user's own site, made exactly as the docs say, in fresh virtual environments.

- The course recipe, "Publish a course site" in docs/deploy.md: every command of it, in order, in a folder beside a
  link named `bridge` to this clone (whose dist/ holds the wheels `python3 build.py wheel` made). Its `serve
  --contents` step is driven in a Chromium without WebMCP, as a teacher's browser is: the access is set from the
  cell menu items the recipe names, and saved into the file. Its local check under the sub-path runs in Chromium
  with WebMCP, as an agent would call. Its push goes to a bare repository standing in for GitHub.
- The GitHub Pages workflow's own shell steps, run on a clone of what was pushed, in another fresh virtual
  environment: pip finds JupyterLite on PyPI and the bridge in the clone's wheels folder, as on a GitHub runner.
- The example's README variant without the step that ships Pyodide: the kernel, and so the bridge, use the kernel's
  default CDN Pyodide. This machine reaches no CDN, so the test routes exactly that URL to the npm copy of the same
  release, which checks which URL is requested.
- The README's uninstall, on the recipe's folder: the site keeps working offline without the bridge.

The figures the docs quote about these (the wheel's size, what ship-pyodide adds, the sites' sizes) are checked
against what the tools print and what the built sites hold.

The default run walks the recipe; the workflow's sites, the CDN variant, the figures and the uninstall build more
sites in fresh environments and run with the long runs (`python3 build.py hosts`).
"""

import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import threading
import urllib.request
import venv
from pathlib import Path

import nbformat
import pytest
import yaml

from buildkit.paths import DIST, NPM_PYODIDE, ROOT
from tests.browser.conftest import (
    BOOT_TIMEOUT_MS,
    CONTROLS_ON,
    DEFAULT_TOOLS,
    READY,
    STATUS,
    Lab,
    RequestRecorder,
    payload,
)
from tests.hostclients import code_cell, notebook
from tests.terminal import FAULT_HANDLER, as_a_terminal_starts, ctrl_c
from tests.waiting import wait_until

EXAMPLE = ROOT / "examples" / "github-pages"
README = (EXAMPLE / "README.md").read_text()
REQUIREMENTS = (EXAMPLE / "requirements.txt").read_text()
WORKFLOW = yaml.safe_load((EXAMPLE / ".github" / "workflows" / "deploy.yml").read_text())
BUILD_STEPS = WORKFLOW["jobs"]["build"]["steps"]
DEPLOY = (ROOT / "docs" / "deploy.md").read_text()
PROJECT_README = (ROOT / "README.md").read_text()
PREFIX = "/my-notebooks/"  # GitHub Pages serves a project site under /<repository>/
MiB = 2**20


def section(text: str, heading: str) -> str:
    """A markdown section: from its heading to the next heading of the same level."""
    level = re.match(r"#+", heading).group(0)
    start = text.index(f"\n{heading}\n")
    end = re.compile(rf"\n{level} ").search(text, start + 1)
    return text[start:end.start() if end else len(text)]


def commands(text: str) -> list[str]:
    """The lines of its ```sh blocks, each a command as a reader types it."""
    return [line.strip() for block in re.findall(r"```sh\n(.*?)```", text, re.DOTALL)
            for line in block.splitlines() if line.strip()]


def one_line(text: str) -> str:
    return " ".join(text.split())


RECIPE = section(DEPLOY, "## Publish a course site")
RECIPE_COMMANDS = commands(RECIPE)
MENU_ITEMS = re.findall(r"\*\*(Agent access: [^*]+)\*\*", one_line(RECIPE))  # to read only, then to hidden
UNINSTALL = commands(section(PROJECT_README, "## Uninstall"))
REMOTE = "https://github.com/<you>/course.git"


def step_using(action: str) -> dict:
    return next(step for step in BUILD_STEPS if step.get("uses", "").startswith(action + "@"))


PUBLISHED = step_using("actions/upload-pages-artifact")["with"]["path"]
WHEEL_FOLDER = re.search(r"^--find-links (\S+)$", REQUIREMENTS, re.MULTILINE).group(1)
SHIPPING_STEP = re.search(r'step "([^"]+)"', section(README, "## Pyodide from the CDN instead")).group(1)

LESSON = notebook([
    {"cell_type": "markdown", "id": "instructions", "metadata": {},
     "source": "# Sums\n\nIn the next cell, add the numbers from 1 to 10."},
    code_cell("exercise", "total = ..."),
    code_cell("solution", "total = sum(range(1, 11))\ntotal"),
])


def the_wheel() -> Path:
    wheels = list(DIST.glob("jupyterlite_pyodide_webmcp-*.whl"))
    if not wheels or not list(DIST.glob("pyodide_webmcp-*.whl")):
        pytest.fail("no prebuilt wheels in dist/: run python3 build.py test (or wheel)")
    return wheels[0]


def plain_environment(**extra: str) -> dict:
    """This machine's environment as a user's terminal has it: no virtual environment active."""
    kept = {key: value for key, value in os.environ.items() if key not in ("VIRTUAL_ENV", "PYTHONPATH")}
    return {**kept, **extra}


def activated(environment: dict, folder: Path) -> dict:
    """`environment` with the virtual environment `folder` activated, as its bin/activate does."""
    return {**environment, "PATH": f"{folder / 'bin'}{os.pathsep}{environment['PATH']}", "VIRTUAL_ENV": str(folder)}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Terminal:
    """A reader's terminal: one command at a time, in a folder and an environment, which `cd` and a virtual
    environment's activate change as a shell's would."""

    def __init__(self, folder: Path, environment: dict):
        self.folder = folder
        self.environment = environment

    def run(self, command: str, answers: str = "") -> str:
        if command.startswith("cd "):
            self.folder = self.folder / command[3:]
            return ""
        if command.startswith(". ") and command.endswith("/bin/activate"):
            self.environment = activated(self.environment, self.folder / command[2:].removesuffix("/bin/activate"))
            return ""
        ran = subprocess.run(command, shell=True, cwd=self.folder, env=self.environment, input=answers,
                             capture_output=True, text=True, check=False)
        if ran.returncode:
            pytest.fail(f"{command!r} failed ({ran.returncode}):\n{ran.stdout[-3000:]}\n{ran.stderr[-3000:]}")
        return ran.stdout

    def start(self, command: str, **extra: str) -> "Running":
        """A command that runs until stopped; not through a shell, which Ctrl+C would end before the command."""
        environment = {**self.environment, **FAULT_HANDLER, **extra}
        return Running(subprocess.Popen(shlex.split(command), cwd=self.folder, env=environment,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                        start_new_session=True, preexec_fn=as_a_terminal_starts))


class Running:
    """A command that runs until Ctrl+C, its output collected as it comes."""

    def __init__(self, process: subprocess.Popen):
        self.process = process
        self.lines: list[str] = []
        threading.Thread(target=lambda: self.lines.extend(process.stdout), daemon=True).start()

    def printed(self, pattern: str, timeout: float = 300) -> re.Match:
        def found():
            if self.process.poll() is not None:
                pytest.fail(f"the command ended ({self.process.returncode}):\n{''.join(self.lines)[-3000:]}")
            return next((match for line in list(self.lines) if (match := re.search(pattern, line))), None)

        return wait_until(found, timeout=timeout, what=f"a line matching {pattern!r}")

    def stop(self) -> int:
        """Ctrl+C, to the command's own process group."""
        return ctrl_c(self.process, lambda: "".join(self.lines))


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status == 200
    except OSError:
        return False


def prepare_the_notebooks(terminal: Terminal, command: str, no_webmcp) -> dict:
    """Recipe step 3 in a browser without WebMCP: the teacher's notebook put in content/, the lab opened on it, the
    instructions made read only and the solution hidden from the cell menu, and saved."""
    (terminal.folder / "content" / "lesson.ipynb").write_text(json.dumps(LESSON, indent=1))
    serving = terminal.start(command)
    url = serving.printed(r"The lab: (\S+)").group(1)
    context = no_webmcp.new_context(service_workers="block")
    recorder = RequestRecorder(url.split("/lab/")[0])
    context.on("request", recorder.record)
    page = context.new_page()
    seen = {}
    try:
        page.goto(url)
        status = page.wait_for_selector(f"{STATUS}[data-state=unavailable]", timeout=BOOT_TIMEOUT_MS)
        seen["status"] = status.inner_text()
        status.click()
        page.wait_for_function("([s, text]) => document.querySelector(s).textContent === text", arg=[STATUS, CONTROLS_ON],
                               timeout=BOOT_TIMEOUT_MS)
        page.locator(".jp-DirListing-item", has_text="lesson.ipynb").dblclick()
        cells = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell")
        cells.nth(2).wait_for()
        for index, items in ((0, MENU_ITEMS[:1]), (2, MENU_ITEMS)):
            for item in items:
                cells.nth(index).locator(".jp-InputPrompt").click(button="right")
                page.get_by_text(item, exact=True).click()
        cells.nth(1).locator(".jp-InputPrompt").click()
        page.keyboard.press("Control+s")
        saved = terminal.folder / "content" / "lesson.ipynb"
        wait_until(lambda: "none" in saved.read_text(), timeout=30, what="the notebook saved with its access")
    finally:
        context.close()
        seen["exit"] = serving.stop()
    seen["foreign"] = recorder.foreign()
    return seen


def check_under_the_sub_path(terminal: Terminal, command: str, browser) -> dict:
    """Recipe step 5's server, and the page it serves opened as the recipe says, in Chromium with WebMCP."""
    port = free_port()
    link = re.search(r"<(http://127\.0\.0\.1:8000(/[^>]*))>", RECIPE)
    url = link.group(1).replace(":8000", f":{port}")
    serving = terminal.start(command, JUPYTERLITE_PORT=str(port))  # the documented port may be taken here
    context = browser.new_context(service_workers="block")
    origin = f"http://127.0.0.1:{port}"
    recorder = RequestRecorder(origin)
    context.on("request", recorder.record)
    page = context.new_page()
    seen = {"path": link.group(2)}
    try:
        wait_until(lambda: serving.process.poll() is not None or answers(url), timeout=300, what="jupyter lite serve")
        page.goto(url)
        seen["status"] = page.wait_for_selector(READY, timeout=BOOT_TIMEOUT_MS).inner_text()
        lab = Lab(page, url.removesuffix("/lab/index.html"))
        seen["cells"] = lab.call("jupyter_get_cells", {"notebookPath": "lesson.ipynb"})
        seen["hidden"] = lab.error("jupyter_get_cells", {"notebookPath": "lesson.ipynb", "cellIds": ["solution"]})
        seen["unknown"] = lab.error("jupyter_get_cells", {"notebookPath": "lesson.ipynb", "cellIds": ["solutiox"]})
        instructions = seen["cells"]["cells"][0]
        seen["edit"] = lab.error("jupyter_update_cell", {"notebookPath": "lesson.ipynb", "cellId": "instructions",
                                                         "source": "", "expectedSourceHash": instructions["sourceHash"]})
    finally:
        context.close()
        serving.stop()
    seen["foreign"] = recorder.foreign()
    return seen


@pytest.fixture(scope="module")
def course(tmp_path_factory, browser, no_webmcp):
    """Every command of the course recipe, run in order; what each printed, and what the browser steps saw."""
    the_wheel()
    walk = tmp_path_factory.mktemp("walk")
    (walk / "bridge").symlink_to(ROOT)
    github = walk / "github" / "course.git"
    subprocess.run(["git", "init", "--quiet", "--bare", "--initial-branch=main", github], check=True)  # as GitHub makes it
    terminal = Terminal(walk, plain_environment(
        GIT_AUTHOR_NAME="Teacher", GIT_AUTHOR_EMAIL="teacher@example.org", GIT_COMMITTER_NAME="Teacher",
        GIT_COMMITTER_EMAIL="teacher@example.org", BROWSER="true",  # the lab's link opens in no browser of this machine
        JUPYTERLITE_WEBMCP_CACHE=str(walk / "user-cache")))
    printed, seen = {}, {}
    for command in RECIPE_COMMANDS:
        if command.startswith("jupyterlite-pyodide-webmcp serve"):
            seen["prepared"] = prepare_the_notebooks(terminal, command, no_webmcp)
        elif command.startswith("jupyter lite serve"):
            seen["served"] = check_under_the_sub_path(terminal, command, browser)
        else:
            assert "<" not in command.replace(REMOTE, ""), f"a placeholder the test does not fill: {command}"
            printed[command] = terminal.run(command.replace(REMOTE, str(github)))
    pushed = subprocess.run(["git", "-C", github, "ls-tree", "-r", "--name-only", "main"], capture_output=True,
                            text=True, check=True).stdout.split()
    return {"terminal": terminal, "printed": printed, "seen": seen, "github": github, "pushed": pushed}


def printed_by(course, start: str) -> str:
    return next(output for command, output in course["printed"].items() if command.startswith(start))


def test_the_recipe_walks_the_example_and_its_readme_says_the_same_commands():
    assert RECIPE_COMMANDS[0] == "cp -r bridge/examples/github-pages/. course/"
    assert "cp bridge/dist/*.whl course/wheels/" in RECIPE_COMMANDS and REMOTE in RECIPE_COMMANDS[-2]
    assert len(MENU_ITEMS) == 2
    made_elsewhere = {"python3 build.py wheel"}  # in the bridge's clone, before the recipe starts
    readme_commands = [command.replace("<repository>", "course") for command in commands(README)]
    assert set(readme_commands) - made_elsewhere <= set(RECIPE_COMMANDS)
    # Copied out of this repository, a relative link would point nowhere.
    assert re.findall(r"\]\((?!https?://)[^)]*\)", README) == []


def test_the_readme_says_where_the_wheels_come_from():
    pinned = re.search(r"^jupyterlite-pyodide-webmcp==(\S+)$", REQUIREMENTS, re.MULTILINE).group(1)
    wheel = the_wheel().name
    assert wheel.startswith(f"jupyterlite_pyodide_webmcp-{pinned}-"), (wheel, pinned)
    assert f"dist/{wheel}" in README and "python3 build.py wheel" in README and "cp dist/*.whl wheels/" in README
    assert f"dist/pyodide_webmcp-{pinned}-py3-none-any.whl" in README and f"`{WHEEL_FOLDER}/`" in README


def test_the_lab_on_the_teachers_folder_wrote_the_access_into_the_file(course):
    prepared = course["seen"]["prepared"]
    assert one_line(prepared["status"]) in one_line(RECIPE)  # the status the recipe says to click
    assert prepared["exit"] == 0 and prepared["foreign"] == []
    saved = nbformat.read(course["terminal"].folder / "content" / "lesson.ipynb", as_version=4)
    nbformat.validate(saved)
    access = {cell.id: cell.metadata.get("jupyterlite_webmcp", {}).get("access") for cell in saved.cells}
    assert access == {"instructions": "read", "exercise": None, "solution": "none"}
    assert [cell.source for cell in saved.cells] == [cell["source"] for cell in LESSON["cells"]]


def test_the_check_describes_the_offline_course_site(course):
    said = printed_by(course, "jupyterlite-pyodide-webmcp check")
    version = re.search(r"^jupyterlite-pyodide-webmcp==(\S+)$", REQUIREMENTS, re.MULTILINE).group(1)
    assert f"Bridge: jupyterlite-pyodide-webmcp {version}; the page lists {len(DEFAULT_TOOLS)} tools:" in said
    flat = one_line(said)
    assert all(tool.name in flat for tool in DEFAULT_TOOLS)
    assert "Offline: yes." in said and "static/pyodide/" in said and "Fast start: yes" in said
    assert "Agent access: 1 of the site's 2 notebooks keeps cells from the agent:" in said
    assert "  lesson.ipynb: 1 hidden cell, 1 read-only cell (of 3)" in said
    assert "https: needed." in said and "Problems:" not in said


def test_the_site_served_under_its_sub_path_starts_fast_hides_the_solution_and_guards_the_instructions(course):
    served = course["seen"]["served"]
    assert served["path"].startswith("/course/")
    expected = f"WebMCP: ready ({len(DEFAULT_TOOLS)} tools; snapshot start)"
    assert served["status"] == expected and f"`{expected}`" in RECIPE
    assert [cell["id"] for cell in served["cells"]["cells"]] == ["instructions", "exercise"]
    assert served["cells"]["hiddenCellCount"] == 1
    assert json.dumps(served["hidden"]).replace("solution", "solutiox") == json.dumps(served["unknown"])
    assert served["hidden"]["error"] == "CELL_NOT_FOUND"
    assert served["edit"]["error"] == "CELL_ACCESS_DENIED"
    assert served["foreign"] == []


def test_the_push_holds_the_site_s_sources_and_nothing_the_steps_left(course):
    pushed = set(course["pushed"])
    assert {f"{WHEEL_FOLDER}/{wheel.name}" for wheel in DIST.glob("*.whl")} <= pushed
    assert {"content/lesson.ipynb", "content/welcome.ipynb", ".github/workflows/deploy.yml", "requirements.txt",
            "jupyter_lite_config.json", "jupyter-lite.json", ".gitignore", "README.md"} <= pushed
    left = [path for path in pushed if path.split("/")[0] in (".venv", "_output", "static", ".jupyterlite.doit.db")
            or ".ipynb_checkpoints" in path]
    assert left == []
    # ship-pyodide left the example's jupyter-lite.json as it was.
    committed = subprocess.run(["git", "-C", course["github"], "show", "main:jupyter-lite.json"], capture_output=True,
                               text=True, check=True).stdout
    assert committed == (EXAMPLE / "jupyter-lite.json").read_text()


def copy_of_the_example(repository: Path) -> Path:
    """The example copied, the wheels (`cp dist/*.whl wheels/`) put in the folder requirements.txt names."""
    shutil.copytree(EXAMPLE, repository)
    (repository / WHEEL_FOLDER).mkdir()
    for wheel in DIST.glob("*.whl"):
        shutil.copy2(wheel, repository / WHEEL_FOLDER)
    return repository


def run_steps(repository: Path, environment: dict, leaving_out: str = "") -> None:
    """The workflow's own shell steps, run as the runner would (in the repository, the venv first on PATH), but the
    step named `leaving_out`."""
    for step in BUILD_STEPS:
        if "run" in step and step.get("name") != leaving_out:
            ran = subprocess.run(step["run"], shell=True, cwd=repository, env=environment, capture_output=True,
                                 text=True, check=False)
            if ran.returncode:
                pytest.fail(f"{step['name']!r} failed ({ran.returncode}):\n{ran.stdout[-3000:]}\n{ran.stderr[-3000:]}")


@pytest.fixture(scope="module")
def sites(tmp_path_factory, course):
    """The workflow run on a clone of what the recipe pushed, and on the example without the step that ships Pyodide;
    returns {"shipped": site, "cdn": site, "cdn_url": the kernel's default pyodide.mjs, "python": the runner's}."""
    root = tmp_path_factory.mktemp("runner")
    environment_folder = root / "venv"
    venv.EnvBuilder(with_pip=True).create(environment_folder)
    environment = activated(plain_environment(), environment_folder)  # as setup-python's Python on a runner
    checkout = root / "checkout"
    subprocess.run(["git", "clone", "--quiet", course["github"], checkout], check=True)
    run_steps(checkout, environment)
    cdn_repository = copy_of_the_example(root / "cdn")
    run_steps(cdn_repository, environment, leaving_out=SHIPPING_STEP)
    python = environment_folder / "bin" / "python"
    cdn_url = subprocess.run(
        [python, "-c", "from jupyterlite_pyodide_kernel.constants import PYODIDE_CDN_URL, PYODIDE_MJS;"
                       "print(f'{PYODIDE_CDN_URL}/{PYODIDE_MJS}')"],
        capture_output=True, text=True, check=True).stdout.strip()
    return {"shipped": checkout / PUBLISHED, "cdn": cdn_repository / PUBLISHED, "cdn_url": cdn_url,
            "command": environment_folder / "bin" / "jupyterlite-pyodide-webmcp"}


@pytest.mark.hosts_long  # builds more sites in fresh environments: python3 build.py hosts
def test_the_workflow_publishes_a_complete_site(sites):
    assert {"pages", "id-token"} <= {key for key, value in WORKFLOW["permissions"].items() if value == "write"}
    assert WORKFLOW["jobs"]["deploy"]["steps"][0]["uses"].startswith("actions/deploy-pages@")
    published = sites["shipped"]
    for path in ["index.html", "lab/index.html", "notebooks/index.html", "tree/index.html", "files/welcome.ipynb",
                 "files/lesson.ipynb", "static/pyodide/pyodide.mjs", "static/pyodide/python_stdlib.zip",
                 "extensions/jupyterlite-pyodide-webmcp/static/bridge/manifest.json",
                 "extensions/jupyterlite-pyodide-webmcp/static/bridge/snapshot.br",
                 "extensions/jupyterlite-pyodide-webmcp/static/bridge/python_stdlib.zip"]:
        assert (published / path).is_file(), path
    files = [path for path in published.rglob("*") if path.is_file()]
    assert not list(published.rglob(the_wheel().name))  # the wheel stays in the repository
    assert not list(published.rglob("*.map"))
    # upload-pages-artifact v4 leaves dot files out: the site must not need any.
    assert not [path for path in files if any(part.startswith(".") for part in path.relative_to(published).parts)]
    assert sum(path.stat().st_size for path in files) < 1024 * MiB  # GitHub Pages' limit
    kernel = json.loads((published / "jupyter-lite.json").read_text())["jupyter-config-data"]["litePluginSettings"][
        "@jupyterlite/pyodide-kernel-extension:kernel"]
    # One standard library for kernel and bridge: the bridge's copy of the very file static/pyodide/ ships.
    assert kernel["loadPyodideOptions"]["stdLibURL"] == "./extensions/jupyterlite-pyodide-webmcp/static/bridge/python_stdlib.zip"


@pytest.mark.hosts_long  # builds more sites in fresh environments: python3 build.py hosts
def test_the_check_says_a_site_on_the_kernel_s_cdn_is_not_offline(sites):
    checked = subprocess.run([sites["command"], "check", sites["cdn"]], capture_output=True, text=True, check=False)
    said = one_line(checked.stdout)
    assert checked.returncode == 0, checked
    assert "Offline: no. The page loads from outside the site:" in said
    assert f"the kernel's default Pyodide, {sites['cdn_url']}" in said and "ship-pyodide" in said
    assert "Agent access: the agent may read and change every cell of the site's 1 notebook." in said
    assert "https: needed." in said


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


@pytest.mark.hosts_long  # builds more sites in fresh environments: python3 build.py hosts
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


@pytest.mark.hosts_long  # builds more sites in fresh environments: python3 build.py hosts
def test_the_published_site_starts_fast_runs_its_kernel_and_stays_offline(browser, sites, served):
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


def quoted(text: str, pattern: str) -> list[str]:
    """Every figure `pattern` (a regex with one group) finds in `text`, its lines joined."""
    return re.findall(pattern, one_line(text))


def folder_mib(folder: Path) -> float:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file()) / MiB


@pytest.mark.hosts_long  # builds more sites in fresh environments: python3 build.py hosts
def test_the_figures_the_docs_quote_are_the_tools_own(course, sites):
    wheel_mib = the_wheel().stat().st_size / MiB
    assert quoted(README, r"jupyterlite_pyodide_webmcp-\S+\.whl` \((\d+) MiB\)") == [f"{wheel_mib:.0f}"]
    shipped = re.search(r"\((\d+) MiB\)", printed_by(course, "jupyterlite-pyodide-webmcp ship-pyodide")).group(1)
    pattern = r"the Pyodide the package ships \((\d+) MiB"
    assert quoted(DEPLOY, pattern) == [shipped, shipped] and quoted(README, pattern) == [shipped]
    size = section(DEPLOY, "## Size")
    site = sites["shipped"]
    assert quoted(size, r"Pyodide shipped\) is (\d+) MiB, (\d+) MiB of it the bridge") == [
        (f"{folder_mib(site):.0f}", f"{folder_mib(site / 'extensions' / 'jupyterlite-pyodide-webmcp'):.0f}")]
    assert quoted(size, r"the workflow's step that ships it deleted\), (\d+) MiB") == [f"{folder_mib(sites['cdn']):.0f}"]


@pytest.mark.hosts_long  # builds more sites in fresh environments: python3 build.py hosts
def test_uninstalling_the_bridge_leaves_a_working_offline_site(course, browser, served):
    """The project README's uninstall, in the recipe's folder: the kernel keeps Pyodide and its standard library."""
    terminal = course["terminal"]
    for command in UNINSTALL:
        terminal.run(command, answers="y\n" * 4)  # pip asks once per package
    site = terminal.folder / "_output"
    assert not (site / "extensions" / "jupyterlite-pyodide-webmcp").exists()
    assert "webmcp" not in (site / "jupyter-lite.json").read_text()
    context = browser.new_context(service_workers="block")
    base = served(site, prefix="/course/")
    recorder = RequestRecorder(base.removesuffix("/course"))
    context.on("request", recorder.record)
    page = context.new_page()
    try:
        page.goto(base + "/lab/index.html?path=welcome.ipynb")
        answer = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell").nth(1)
        answer.locator(".jp-InputArea-editor").click()
        page.keyboard.press("Shift+Enter")
        output = answer.locator(".jp-OutputArea-output")
        output.wait_for(timeout=BOOT_TIMEOUT_MS)
        assert output.inner_text().strip() == "42"
        assert page.locator(STATUS).count() == 0
    finally:
        context.close()
    assert recorder.foreign() == [], recorder.foreign()[:5]
