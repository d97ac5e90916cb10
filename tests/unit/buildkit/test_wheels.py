"""buildkit/wheels.py: the bridge's wheel, and the Pyodide lock the build writes for the wheels it ships."""

import hashlib
import json
import re
import subprocess
import sys
import zipfile

import pytest

from buildkit.wheels import build_bridge_wheel, pyodide_lock

# The info block of the npm pyodide@314.0.6 lock.
PYODIDE_INFO = {"abi_version": "2026_0", "arch": "wasm32", "platform": "emscripten_5_0_3", "python": "3.14.2"}


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


def test_the_bridge_wheel_ships_its_catalog_where_the_package_reads_it(tmp_path):
    """Without it, the page's start imports every tool to make a catalog: a long task of a second."""
    catalog = {"digest": "d", "tools": [{"name": "jupyter_x", "module": "pyodide_webmcp.tools.x", "setting": None,
                                         "descriptor": {"name": "jupyter_x"}, "hints": {}}]}
    wheel = build_bridge_wheel(tmp_path / "staging", catalog)
    installed = tmp_path / "installed"
    zipfile.ZipFile(wheel).extractall(installed)
    read = """
import json
from pyodide_webmcp.calls.catalog import CATALOG_FILE, load_catalog
from pyodide_webmcp.tools import BUILT_IN
assert CATALOG_FILE.exists(), CATALOG_FILE
print(json.dumps([entry.name for entry in load_catalog(BUILT_IN).entries]))
"""
    out = subprocess.run([sys.executable, "-c", read], cwd=tmp_path, capture_output=True, text=True,
                         env={"PYTHONPATH": str(installed)})
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == ["jupyter_x"]
