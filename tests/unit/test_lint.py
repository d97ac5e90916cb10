"""Static checks over the whole tree: no unused imports, no undefined names, no dead assignments (ruff's F rules)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_ruff_finds_nothing():
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--select", "F,E9,I", "--target-version", "py311", "--quiet",
         "py", "desktop", "buildkit", "tests", "docs", "build.py", "hatch_build.py"],
        cwd=ROOT, capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
