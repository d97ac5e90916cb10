"""build.py: the commands fail at once, saying what is missing, before building anything."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from jupyterlite_pyodide_webmcp.browser import LINUX_PLACES

from buildkit.paths import ROOT


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
    assert "python -m playwright install chromium" in result.stderr
    assert "[build]" not in result.stdout + result.stderr  # nothing was built


def test_a_venv_another_user_or_python_made_is_made_again(tmp_path):
    """A venv copied from another user or machine points at an interpreter this user cannot run."""
    import venv

    import build as build_py  # the repository's root is on the tests' path (pyproject's pythonpath)

    made = tmp_path / "fine"
    venv.EnvBuilder(with_pip=False, symlinks=True).create(made)
    assert build_py.venv_usable(made)
    copied = tmp_path / "copied"
    venv.EnvBuilder(with_pip=False, symlinks=True).create(copied)
    config = copied / "pyvenv.cfg"
    config.write_text("\n".join(f"home = {tmp_path / 'gone' / 'bin'}" if line.startswith("home") else line
                                for line in config.read_text().splitlines()))
    assert not build_py.venv_usable(copied)
    assert not build_py.venv_usable(tmp_path / "missing")
