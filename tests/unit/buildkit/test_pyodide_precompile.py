"""buildkit/pyodide_precompile.py: bytecode added to wheels and the standard library, never checked against the source."""

import importlib.util
import marshal
import zipfile

from buildkit import pyodide_precompile


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
