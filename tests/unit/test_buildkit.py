"""The build's own pieces: the programs it runs in Pyodide, Node and Chromium, and the Pyodide lock it writes."""

import hashlib
import importlib.util
import marshal
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from buildkit import bytecode, pyodide_precompile, snapshot
from buildkit.browser import LINUX_PLACES, Machine
from buildkit.paths import ROOT
from buildkit.site import wheel_environment
from buildkit.wheels import pyodide_lock

# The info block of the npm pyodide@314.0.6 lock.
PYODIDE_INFO = {"abi_version": "2026_0", "arch": "wasm32", "platform": "emscripten_5_0_3", "python": "3.14.2"}


def node_check(path):
    result = subprocess.run(["node", "--check", str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_the_node_launcher_parses():
    node_check(bytecode.LAUNCHER)


def test_the_snapshot_maker_page_script_parses(tmp_path):
    page = snapshot.MAKER_PAGE.read_text()
    script = re.fullmatch(r'<!doctype html><script type="module">(.*)</script>\n', page, re.S).group(1)
    (tmp_path / "page.mjs").write_text(script)
    node_check(tmp_path / "page.mjs")


def test_the_extension_is_built_for_the_kernels_default_pyodide():
    """The snapshot and the bytecode standard library fit one Pyodide release: the kernel's own default."""
    from jupyterlite_pyodide_kernel.constants import PYODIDE_VERSION

    from buildkit.site import npm_pyodide_version

    assert npm_pyodide_version() == PYODIDE_VERSION


def test_the_pyodide_program_compiles():
    compile(bytecode.PROGRAM.read_text(), str(bytecode.PROGRAM), "exec", dont_inherit=True)


def unchecked_pyc_code(data: bytes):
    assert data[:4] == importlib.util.MAGIC_NUMBER
    assert int.from_bytes(data[4:8], "little") == 1  # hash-based, never checked against the source
    return marshal.loads(data[16:])


def test_precompiling_a_wheel_adds_bytecode_beside_the_sources(tmp_path):
    source, compiled = tmp_path / "source.whl", tmp_path / "compiled.whl"
    with zipfile.ZipFile(source, "w") as archive:
        archive.writestr("top.py", "VALUE = 6 * 7\n")
        archive.writestr("pkg/__init__.py", "")
        archive.writestr("pkg/broken.py", "def (:\n")
        archive.writestr("pkg-1.0.data/scripts/tool.py", "print('not imported')\n")
    pyodide_precompile.main(f'[["wheel", "{source}", "{compiled}"]]')
    tag = pyodide_precompile.sys.implementation.cache_tag
    with zipfile.ZipFile(compiled) as archive:
        assert sorted(archive.namelist()) == sorted([
            "top.py", f"__pycache__/top.{tag}.pyc", "pkg/__init__.py", f"pkg/__pycache__/__init__.{tag}.pyc",
            "pkg/broken.py", "pkg-1.0.data/scripts/tool.py",
        ])
        namespace = {}
        exec(unchecked_pyc_code(archive.read(f"__pycache__/top.{tag}.pyc")), namespace)
    assert namespace["VALUE"] == 42


def test_precompiling_the_stdlib_replaces_sources_that_compile(tmp_path):
    source, compiled = tmp_path / "stdlib.zip", tmp_path / "compiled.zip"
    with zipfile.ZipFile(source, "w") as archive:
        archive.writestr("good.py", "X = 1\n")
        archive.writestr("bad.py", "def (:\n")
        archive.writestr("data.txt", "kept")
    pyodide_precompile.main(f'[["stdlib", "{source}", "{compiled}"]]')
    with zipfile.ZipFile(compiled) as archive:
        assert sorted(archive.namelist()) == ["bad.py", "data.txt", "good.pyc"]
        unchecked_pyc_code(archive.read("good.pyc"))


def make_wheel(folder, name: str, version: str, modules: dict, requires: list[str]):
    """A minimal pure-Python wheel whose METADATA spells the name as given (file name normalised)."""
    stem = f"{re.sub(r'[-_.]+', '_', name).lower()}-{version}"
    path = folder / f"{stem}-py3-none-any.whl"
    metadata = "".join([f"Metadata-Version: 2.4\nName: {name}\nVersion: {version}\n",
                        *(f"Requires-Dist: {requirement}\n" for requirement in requires)])
    with zipfile.ZipFile(path, "w") as archive:
        for module, text in modules.items():
            archive.writestr(module, text)
        archive.writestr(f"{stem}.dist-info/METADATA", metadata)
        archive.writestr(f"{stem}.dist-info/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        archive.writestr(f"{stem}.dist-info/RECORD", "")
    return path


def test_the_lock_lists_pep503_names_and_the_dependencies_that_apply_in_pyodide(tmp_path):
    main = make_wheel(tmp_path, "Foo.Bar_Baz", "1.0", {"foo_bar/__init__.py": "", "foo_bar/util.py": ""}, [
        "DEP_one>=1.0",
        "Typing.Extras; platform_system == 'Emscripten' and python_version >= '3.14'",
        "not-on-emscripten; sys_platform != 'emscripten'",
        "windows-only; sys_platform == 'win32'",
        "before-pyodides-python; python_version < '3.14'",
        "optional; extra == 'cli'",
    ])
    dep = make_wheel(tmp_path, "Dep_One", "2.0", {"dep_one.py": ""}, [])
    extras = make_wheel(tmp_path, "typing.extras", "3.0", {"typing_extras/__init__.py": ""}, [])
    # Shipped, but the requirement's marker excludes them in Pyodide (as ipython's on pexpect).
    excluded = [make_wheel(tmp_path, name, "1.0", {f"{name.replace('-', '_')}.py": ""}, [])
                for name in ("not-on-emscripten", "before-pyodides-python")]

    lock = pyodide_lock([main, dep, extras, *excluded], PYODIDE_INFO, "314.0.6")

    assert lock.info.version == "314.0.6" and lock.info.platform == "emscripten_5_0_3"
    assert sorted(lock.packages) == [
        "before-pyodides-python", "dep-one", "foo-bar-baz", "not-on-emscripten", "typing-extras"]
    entry = lock.packages["foo-bar-baz"]
    assert entry.name == "foo-bar-baz"
    assert entry.depends == ["dep-one", "typing-extras"]
    assert entry.imports == ["foo_bar"]
    assert entry.file_name == main.name
    assert entry.sha256 == hashlib.sha256(main.read_bytes()).hexdigest()
    assert lock.packages["dep-one"].imports == ["dep_one"]
    assert lock.packages["dep-one"].depends == []


def test_a_dependency_that_applies_in_pyodide_but_does_not_ship_fails_the_lock(tmp_path):
    wheel = make_wheel(tmp_path, "needy", "1.0", {"needy.py": ""}, ["absent; sys_platform == 'emscripten'"])
    with pytest.raises(RuntimeError, match="absent"):
        pyodide_lock([wheel], PYODIDE_INFO, "314.0.6")


# --- a wheel without its fast start: only when asked for ------------------------------------------


def test_the_wheel_hook_is_told_the_browser_or_to_ship_no_snapshot():
    environ = {"PATH": "/usr/bin", snapshot.PLAIN_START_ENV: "1", "CHROME_PATH": "/elsewhere/chrome"}
    with_browser = wheel_environment(environ, "/usr/bin/chromium")
    assert with_browser["CHROME_PATH"] == "/usr/bin/chromium" and snapshot.PLAIN_START_ENV not in with_browser
    assert not snapshot.plain_start_requested(with_browser)
    plain = wheel_environment({"PATH": "/usr/bin", "CHROME_PATH": "/elsewhere/chrome"}, None)
    assert snapshot.plain_start_requested(plain) and "CHROME_PATH" not in plain and plain["PATH"] == "/usr/bin"


@pytest.mark.parametrize("value, plain", [("1", True), ("yes", True), ("0", False), ("", False), (None, False)])
def test_pip_install_asks_for_a_plain_start_with_an_environment_variable(value, plain):
    environ = {} if value is None else {snapshot.PLAIN_START_ENV: value}
    assert snapshot.plain_start_requested(environ) is plain


def test_what_the_snapshot_lacks_is_named():
    nothing = Machine("Linux", {"PATH": "/usr/bin"}, "/home/ann", lambda path: False, lambda name: None,
                      lambda folder: [])
    missing = snapshot.missing_for_snapshot(nothing, None, has_playwright=False)
    assert len(missing) == 2
    assert missing[0].startswith("No Chromium-based browser was found") and "Playwright for Python" in missing[1]
    assert snapshot.missing_for_snapshot(nothing, "/usr/bin/chromium", has_playwright=True) == []


def test_build_py_wheel_without_a_browser_fails_at_once_saying_what_is_missing(tmp_path):
    """No CHROME_PATH, a PATH without any browser, a home without Playwright's: it fails before building."""
    if any(Path(place).is_file() for place in LINUX_PLACES):
        pytest.skip("a browser is installed outside PATH here")
    (tmp_path / "bin").mkdir()
    environ = {key: value for key, value in os.environ.items()
               if key not in ("CHROME_PATH", "PLAYWRIGHT_BROWSERS_PATH", "XDG_CACHE_HOME")}
    environ.update(PATH=str(tmp_path / "bin"), HOME=str(tmp_path))
    result = subprocess.run([sys.executable, str(ROOT / "build.py"), "wheel"], env=environ, cwd=tmp_path,
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 1
    assert "No Chromium-based browser was found" in result.stderr and "--plain-start" in result.stderr
    assert "npx playwright install chromium" in result.stderr
    assert "[build]" not in result.stdout + result.stderr  # nothing was built
