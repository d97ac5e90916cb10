"""Finding a Chromium-based browser (Chrome, Chromium or Edge) on Linux, macOS and Windows.

Pure logic over a `Machine` (its OS name, environment and file look-ups), so that every OS's
layout can be tested on any machine; `this_machine()` is the real one. Standard library only:
build.py uses it before it enters the venv.
"""

import ntpath
import os
import platform
import posixpath
import re
import shutil
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass

# The first Chrome / Chromium release with the `--enable-features=WebMCP` flag.
WEBMCP_MIN_VERSION = 146
CHROME_PATH_ENV = "CHROME_PATH"
PATH_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "microsoft-edge",
              "microsoft-edge-stable")
# Installed outside the PATH a desktop host may give its servers.
LINUX_PLACES = ("/snap/bin/chromium", "/opt/google/chrome/chrome", "/opt/microsoft/msedge/msedge")
MAC_APPS = ("Google Chrome.app/Contents/MacOS/Google Chrome", "Chromium.app/Contents/MacOS/Chromium",
            "Microsoft Edge.app/Contents/MacOS/Microsoft Edge")
WINDOWS_ROOTS = ("PROGRAMFILES", "PROGRAMFILES(X86)", "LOCALAPPDATA")
WINDOWS_APPS = ("Google/Chrome/Application/chrome.exe", "Chromium/Application/chrome.exe",
                "Microsoft/Edge/Application/msedge.exe")
# Inside Playwright's chromium-<revision> folder: Chrome for Testing (Playwright 1.57+), then older builds.
PLAYWRIGHT_EXECUTABLES = {
    "Linux": ("chrome-linux64/chrome", "chrome-linux-arm64/chrome", "chrome-linux/chrome"),
    "Darwin": tuple(f"chrome-mac-{arch}/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing"
                    for arch in ("arm64", "x64")) + ("chrome-mac/Chromium.app/Contents/MacOS/Chromium",),
    "Windows": ("chrome-win64/chrome.exe", "chrome-win/chrome.exe"),
}
PLAYWRIGHT_FOLDER = re.compile(r"chromium-(\d+)")
VERSION = re.compile(r"(\d+)\.\d+\.\d+\.\d+")


@dataclass(frozen=True)
class Machine:
    """What the finder looks at: platform.system()'s name, the environment, and file look-ups."""

    system: str  # "Linux", "Darwin" or "Windows"
    environ: Mapping[str, str]
    home: str
    is_file: Callable[[str], bool]
    which: Callable[[str], str | None]
    listdir: Callable[[str], list[str]]

    def join(self, *parts: str) -> str:
        return (ntpath if self.system == "Windows" else posixpath).join(*parts)

    def env(self, name: str) -> str:
        """A variable's value ("" when unset); Windows' names are case-insensitive."""
        if self.system == "Windows":
            return next((value for key, value in self.environ.items() if key.upper() == name), "")
        return self.environ.get(name, "")


def this_machine() -> Machine:
    def listdir(folder: str) -> list[str]:
        try:
            return os.listdir(folder)
        except OSError:
            return []

    return Machine(platform.system(), os.environ, os.path.expanduser("~"), os.path.isfile, shutil.which, listdir)


def installed_places(machine: Machine) -> list[str]:
    """Where each OS installs Chrome, Chromium and Edge, in the order they are tried."""
    if machine.system == "Darwin":
        folders = ("/Applications", machine.join(machine.home, "Applications"))
        return [machine.join(folder, app) for folder in folders for app in MAC_APPS]
    if machine.system == "Windows":
        roots = [machine.env(name) for name in WINDOWS_ROOTS if machine.env(name)]
        return [machine.join(root, *app.split("/")) for root in roots for app in WINDOWS_APPS]
    return list(LINUX_PLACES)


def playwright_cache(machine: Machine) -> str:
    """Playwright's browser folder (`playwright install chromium` downloads there)."""
    if machine.env("PLAYWRIGHT_BROWSERS_PATH"):
        return machine.env("PLAYWRIGHT_BROWSERS_PATH")
    if machine.system == "Darwin":
        return machine.join(machine.home, "Library", "Caches", "ms-playwright")
    if machine.system == "Windows":
        local = machine.env("LOCALAPPDATA") or machine.join(machine.home, "AppData", "Local")
        return machine.join(local, "ms-playwright")
    return machine.join(machine.env("XDG_CACHE_HOME") or machine.join(machine.home, ".cache"), "ms-playwright")


def playwright_browsers(machine: Machine) -> list[str]:
    """Playwright's downloaded Chromium builds, the newest revision first."""
    cache = playwright_cache(machine)
    revisions = sorted(((int(found.group(1)), name) for name in machine.listdir(cache)
                        if (found := PLAYWRIGHT_FOLDER.fullmatch(name))), reverse=True)
    return [machine.join(cache, name, *executable.split("/")) for _, name in revisions
            for executable in PLAYWRIGHT_EXECUTABLES.get(machine.system, PLAYWRIGHT_EXECUTABLES["Linux"])]


def find_browser(machine: Machine) -> str | None:
    """CHROME_PATH, else a browser on PATH, else one in the OS's usual places, else Playwright's own;
    None when there is none (or CHROME_PATH names no file: `missing_browser_help` says so)."""
    chosen = machine.env(CHROME_PATH_ENV)
    if chosen:
        return chosen if machine.is_file(chosen) else None
    for name in PATH_NAMES:
        found = machine.which(name)
        if found:
            return found
    return next((path for path in [*installed_places(machine), *playwright_browsers(machine)]
                 if machine.is_file(path)), None)


def missing_browser_help(machine: Machine) -> str:
    """What is missing and how to get it, for this machine's OS."""
    chosen = machine.env(CHROME_PATH_ENV)
    if chosen:
        return f"{CHROME_PATH_ENV} is {chosen!r}, which is not a file: point it at the browser's executable."
    install = {
        "Darwin": "install Google Chrome, Chromium or Microsoft Edge into /Applications",
        "Windows": "install Google Chrome or Microsoft Edge",
    }.get(machine.system, "install Chromium or Google Chrome (Debian, Ubuntu: sudo apt-get install chromium)")
    return (f"No Chromium-based browser was found (Chrome, Chromium or Edge; WebMCP needs version "
            f"{WEBMCP_MIN_VERSION} or later). To fix: {install}; or download Playwright's Chromium with "
            f"`python -m playwright install chromium` (Playwright for Python, which the `mcp` extra installs); "
            f"or set {CHROME_PATH_ENV} to a browser's executable.")


def version_from_folder(names: list[str]) -> str:
    """The newest version among a Chrome folder's entries ("146.0.7680.80", or its ".manifest" file)."""
    versions = [found.group(0) for name in names if (found := VERSION.match(name))]
    return max(versions, key=lambda text: tuple(int(part) for part in text.split(".")), default="")


def browser_version(machine: Machine, executable: str) -> str:
    """The browser's version text ("Chromium 156.0.8078.114 ..."), or "" when it does not tell.

    On Windows `chrome.exe --version` opens a window instead: there the version folder beside it tells.
    """
    if machine.system == "Windows":
        return version_from_folder(machine.listdir(ntpath.dirname(executable)))
    try:
        return subprocess.run([executable, "--version"], check=False, capture_output=True, text=True, timeout=60).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return ""


def major_version(version: str) -> int | None:
    found = VERSION.search(version)
    return int(found.group(1)) if found else None
