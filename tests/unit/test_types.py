"""The type checker over the bridge's Python (pyproject.toml's [tool.mypy] says how strictly), and every
place that overrules it saying what it silences and why."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "py" / "pyodide_webmcp"
IGNORE = re.compile(r"#\s*type:\s*ignore(?P<codes>\[[\w\-, ]+\])?(?P<reason>\s*#\s*\S.*)?")
CAST = re.compile(r"\bcast\(.*\)\s*(?P<reason>#\s*\S.*)?$")


def test_mypy_finds_nothing():
    result = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_overruling_says_what_and_why():
    """An ignore names its error code and gives a reason; a cast gives a reason."""
    unexplained = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            ignore, cast = IGNORE.search(line), CAST.search(line)
            if (ignore and not (ignore["codes"] and ignore["reason"])) or (cast and not cast["reason"]):
                unexplained.append(f"{path.relative_to(ROOT)}:{number}")
    assert not unexplained, "say `# type: ignore[code]  # why` or `cast(...)  # why` at " + ", ".join(unexplained)
