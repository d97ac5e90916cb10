"""The owner example's tests (examples/owner-tools/tests) on the kit as a site owner installs it: the kit's
wheel from dist/ pip-installed into a fresh venv, then the commands of the example's README ("Test it on
CPython") run in a copy of the example outside the repository, where nothing can see its py/ folder."""

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from buildkit.paths import DIST, ROOT

EXAMPLE = ROOT / "examples" / "owner-tools"
KIT_WHEEL = "pyodide_webmcp-*.whl"
README_STEPS = re.compile(r"## Test it on CPython\n.*?```sh\n(.*?)```", re.S)


def readme_commands() -> list[list[str]]:
    """The README's commands, comments left out."""
    block = README_STEPS.search((EXAMPLE / "README.md").read_text()).group(1)
    return [shlex.split(line, comments=True) for line in block.splitlines() if line.split("#")[0].strip()]


def owner_environment(venv: Path) -> dict:
    """The venv's bin first on PATH, no PYTHONPATH: only the venv's own packages import."""
    environment = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    environment["PATH"] = str(venv / "bin")
    return environment


@pytest.fixture(scope="module")
def owner(tmp_path_factory) -> tuple[Path, Path, dict]:
    """A copy of the example with the kit's wheel beside it (as an owner downloads it), and a fresh venv in
    which the README's pip step has run."""
    wheel = next(DIST.glob(KIT_WHEEL), None) or pytest.fail("no kit wheel in dist/: run python3 build.py test")
    home = tmp_path_factory.mktemp("owner")
    folder = home / "owner-tools"
    shutil.copytree(EXAMPLE, folder, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    shutil.copy2(wheel, folder)
    venv = home / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    environment = owner_environment(venv)
    install = [command for command in readme_commands() if command[:2] == ["pip", "install"]]
    assert len(install) == 1, install
    assert any(Path(argument).name == wheel.name for argument in install[0]), \
        f"the README installs {install[0]}, not the kit wheel {wheel.name}"
    subprocess.run([str(venv / "bin" / "pip"), *install[0][1:], "--quiet", "-c", str(ROOT / "constraints.txt")],
                   cwd=folder, env=environment, check=True)
    return folder, venv, environment


def test_the_kit_imports_from_the_venv_alone(owner):
    folder, venv, environment = owner
    found = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import pyodide_webmcp.kit.testing as t, pyodide_webmcp as p, sys;"
         "print(p.__file__); print(t.__file__); print(*sys.path, sep='\\n', file=sys.stderr)"],
        cwd=folder, env=environment, capture_output=True, text=True, check=True)
    package, testing = (Path(line) for line in found.stdout.split())
    assert package.is_relative_to(venv) and testing.is_relative_to(venv), found.stdout
    assert (package.parent / "py.typed").is_file()  # the kit's types reach an owner's type checker
    elsewhere = [entry for entry in found.stderr.splitlines() if (Path(entry or folder) / "pyodide_webmcp").exists()
                 and not Path(entry).is_relative_to(venv)]
    assert elsewhere == [], f"the venv's python sees another pyodide_webmcp: {elsewhere}"


def test_the_example_tests_pass_on_the_installed_kit(owner):
    folder, venv, environment = owner
    run = [command for command in readme_commands() if command[:1] == ["python"]]
    assert run == [["python", "-m", "pytest", "tests"]]
    result = subprocess.run([str(venv / "bin" / "python"), *run[0][1:], "-p", "no:cacheprovider", "-v"],
                            cwd=folder, env=environment, capture_output=True, text=True)
    print(result.stdout[-3000:])
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    passed = re.search(r"(\d+) passed", result.stdout)
    tests = len(re.findall(r"^def test_", (EXAMPLE / "tests" / "test_course_tools.py").read_text(), re.M))
    assert passed and int(passed.group(1)) == tests > 0, result.stdout[-1000:]
