"""build.py: the commands fail at once, saying what is missing, before building anything."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from buildkit.browser import LINUX_PLACES
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
    assert "npx playwright install chromium" in result.stderr
    assert "[build]" not in result.stdout + result.stderr  # nothing was built
