"""The npm packages, and the browser the tests use (the venv is build.py's own job)."""

import os
import shutil
import sys

from jupyterlite_pyodide_webmcp.browser import (
    find_browser,
    missing_browser_help,
    this_machine,
)

from .paths import ROOT
from .shell import run
from .stamps import digest, up_to_date

CHROMIUM_FLAGS = ["--enable-features=WebMCP", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"]


def ensure_node_modules() -> None:
    npm = shutil.which("npm")  # its full name: on Windows npm.cmd, which a bare "npm" does not run
    if npm is None:
        raise RuntimeError(
            "Building jupyterlite-pyodide-webmcp from source needs Node.js 20 or later with npm, and npm was not "
            "found. Install the prebuilt wheel instead (pip install jupyterlite-pyodide-webmcp, or a wheel made "
            "with python3 build.py wheel), which needs no Node, or install Node.js and npm.")
    stamp = ROOT / "node_modules" / ".lock.sha256"
    wanted = digest(ROOT / "package.json", ROOT / "package-lock.json")
    if not up_to_date(stamp, wanted):
        run(npm, "ci", "--no-audit", "--no-fund", cwd=ROOT)
        stamp.write_text(wanted)


def browser_for_tests() -> str:
    """The browser found here; else, as root on Debian (as in CI, where Playwright cannot download browsers),
    Debian's Chromium, installed with apt-get. Only the tests, the benchmark and the stress run install it."""
    machine = this_machine()
    found = find_browser(machine)
    if found:
        return found
    if shutil.which("apt-get") is None or getattr(os, "geteuid", lambda: 1)() != 0:
        sys.exit(missing_browser_help(machine))
    run("apt-get", "update", "-qq")
    run("apt-get", "install", "-y", "-qq", "chromium", env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
    return shutil.which("chromium") or sys.exit("chromium is still missing after apt-get install")
