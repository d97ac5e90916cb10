"""desktop/jupyterlite_pyodide_webmcp/browser.py: the browser finder on Linux, macOS and Windows layouts: fake environments, PATHs and file systems."""

import ntpath
import posixpath

import pytest
from jupyterlite_pyodide_webmcp.browser import (
    Machine,
    browser_version,
    find_browser,
    major_version,
    missing_browser_help,
    version_from_folder,
)

LINUX_HOME = "/home/ann"
MAC_HOME = "/Users/ann"
WINDOWS_HOME = r"C:\Users\ann"
WINDOWS_ENV = {"ProgramFiles": r"C:\Program Files", "ProgramFiles(x86)": r"C:\Program Files (x86)",
               "LOCALAPPDATA": r"C:\Users\ann\AppData\Local", "Path": r"C:\Windows\system32;C:\Windows"}


def machine(system: str, files=(), environ=None, home=None) -> Machine:
    """A machine holding exactly `files`; `which` looks along the environment's PATH as the OS would."""
    paths = ntpath if system == "Windows" else posixpath
    files = set(files)
    environ = dict(environ or {})
    home = home or {"Windows": WINDOWS_HOME, "Darwin": MAC_HOME}.get(system, LINUX_HOME)

    def which(name):
        search = next((value for key, value in environ.items() if key.upper() == "PATH"), "")
        for folder in filter(None, search.split(";" if system == "Windows" else ":")):
            for candidate in ([name + ".exe", name] if system == "Windows" else [name]):
                if paths.join(folder, candidate) in files:
                    return paths.join(folder, candidate)
        return None

    def listdir(folder):
        prefix = folder.rstrip(paths.sep) + paths.sep
        return sorted({path[len(prefix):].split(paths.sep)[0] for path in files if path.startswith(prefix)})

    return Machine(system, environ, home, files.__contains__, which, listdir)


# --- Linux ----------------------------------------------------------------------------------------


def test_linux_takes_the_first_browser_name_on_path():
    found = machine("Linux", ["/usr/bin/google-chrome-stable", "/usr/local/bin/chromium"],
                    {"PATH": "/usr/local/bin:/usr/bin"})
    assert find_browser(found) == "/usr/local/bin/chromium"
    only_chrome = machine("Linux", ["/usr/bin/google-chrome-stable"], {"PATH": "/usr/local/bin:/usr/bin"})
    assert find_browser(only_chrome) == "/usr/bin/google-chrome-stable"
    edge = machine("Linux", ["/usr/bin/microsoft-edge"], {"PATH": "/usr/bin"})
    assert find_browser(edge) == "/usr/bin/microsoft-edge"


def test_linux_finds_a_browser_off_the_path():
    """A desktop host may start its servers with a short PATH: the usual install places are looked at too."""
    assert find_browser(machine("Linux", ["/opt/google/chrome/chrome"], {"PATH": "/usr/bin"})) == \
        "/opt/google/chrome/chrome"
    assert find_browser(machine("Linux", ["/snap/bin/chromium"], {})) == "/snap/bin/chromium"


def test_linux_falls_back_to_playwrights_newest_chromium():
    cache = f"{LINUX_HOME}/.cache/ms-playwright"
    files = [f"{cache}/chromium-1200/chrome-linux/chrome", f"{cache}/chromium-1255/chrome-linux64/chrome",
             f"{cache}/chromium_headless_shell-1300/chrome-headless-shell-linux64/chrome-headless-shell",
             f"{cache}/firefox-1572/firefox/firefox"]
    assert find_browser(machine("Linux", files, {"PATH": "/usr/bin"})) == f"{cache}/chromium-1255/chrome-linux64/chrome"
    assert find_browser(machine("Linux", files[:1], {})) == f"{cache}/chromium-1200/chrome-linux/chrome"


def test_playwrights_folder_follows_its_variables():
    moved = ["/data/browsers/chromium-1255/chrome-linux64/chrome"]
    assert find_browser(machine("Linux", moved, {"PLAYWRIGHT_BROWSERS_PATH": "/data/browsers"})) == moved[0]
    assert find_browser(machine("Linux", moved, {})) is None
    xdg = ["/var/cache/ann/ms-playwright/chromium-1255/chrome-linux64/chrome"]
    assert find_browser(machine("Linux", xdg, {"XDG_CACHE_HOME": "/var/cache/ann"})) == xdg[0]


# --- macOS ----------------------------------------------------------------------------------------


def test_macos_finds_apps_in_applications_then_the_users_own():
    chrome = "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"
    edge = "/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge"
    own_chromium = f"{MAC_HOME}/Applications/Chromium.app/Contents/MacOS/Chromium"
    path = {"PATH": "/usr/bin:/bin"}
    assert find_browser(machine("Darwin", [edge, chrome, own_chromium], path)) == chrome
    assert find_browser(machine("Darwin", [edge, own_chromium], path)) == edge
    assert find_browser(machine("Darwin", [own_chromium], path)) == own_chromium


def test_macos_falls_back_to_playwrights_chrome_for_testing():
    cache = f"{MAC_HOME}/Library/Caches/ms-playwright/chromium-1255"
    app = f"{cache}/chrome-mac-arm64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing"
    assert find_browser(machine("Darwin", [app], {"PATH": "/usr/bin"})) == app
    # Homebrew's shim on PATH comes first.
    assert find_browser(machine("Darwin", [app, "/opt/homebrew/bin/chromium"], {"PATH": "/opt/homebrew/bin"})) == \
        "/opt/homebrew/bin/chromium"


# --- Windows --------------------------------------------------------------------------------------


def test_windows_finds_chrome_and_edge_under_program_files_and_local_app_data():
    chrome = r"C:\Program Files\Google\Chrome\Application\chrome.exe"
    edge = r"C:\Program Files (x86)\Microsoft\Edge\Application\msedge.exe"
    users_chrome = r"C:\Users\ann\AppData\Local\Google\Chrome\Application\chrome.exe"
    chromium = r"C:\Users\ann\AppData\Local\Chromium\Application\chrome.exe"
    assert find_browser(machine("Windows", [edge, chrome], WINDOWS_ENV)) == chrome
    assert find_browser(machine("Windows", [edge], WINDOWS_ENV)) == edge
    assert find_browser(machine("Windows", [users_chrome, edge], WINDOWS_ENV)) == edge  # Program Files first
    assert find_browser(machine("Windows", [users_chrome], WINDOWS_ENV)) == users_chrome
    assert find_browser(machine("Windows", [chromium], WINDOWS_ENV)) == chromium


def test_windows_reads_its_variables_whatever_their_case():
    edge = r"D:\Apps\Microsoft\Edge\Application\msedge.exe"
    assert find_browser(machine("Windows", [edge], {"PROGRAMFILES": r"D:\Apps"})) == edge
    assert find_browser(machine("Windows", [edge], {"programfiles": r"D:\Apps"})) == edge


def test_windows_falls_back_to_playwrights_chromium():
    chrome = r"C:\Users\ann\AppData\Local\ms-playwright\chromium-1255\chrome-win64\chrome.exe"
    assert find_browser(machine("Windows", [chrome], WINDOWS_ENV)) == chrome
    assert find_browser(machine("Windows", [chrome], {**WINDOWS_ENV, "LOCALAPPDATA": r"D:\Local"})) is None
    older = r"C:\Users\ann\AppData\Local\ms-playwright\chromium-1100\chrome-win\chrome.exe"
    assert find_browser(machine("Windows", [older], {})) == older  # no LOCALAPPDATA: the home's AppData\Local


# --- every OS -------------------------------------------------------------------------------------


@pytest.mark.parametrize("system, path", [
    ("Linux", "/home/ann/bin/my-chrome"), ("Darwin", "/Volumes/Tools/Chrome Beta.app/Contents/MacOS/Chrome Beta"),
    ("Windows", r"E:\Portable\chrome.exe")])
def test_chrome_path_comes_first_and_must_be_a_file(system, path):
    installed = {"Linux": "/usr/bin/chromium", "Darwin": "/Applications/Chromium.app/Contents/MacOS/Chromium",
                 "Windows": r"C:\Program Files\Google\Chrome\Application\chrome.exe"}[system]
    environ = {**WINDOWS_ENV, "PATH": "/usr/bin"} if system == "Windows" else {"PATH": "/usr/bin"}
    assert find_browser(machine(system, [installed, path], {**environ, "CHROME_PATH": path})) == path
    assert find_browser(machine(system, [installed], environ)) == installed
    wrong = machine(system, [installed], {**environ, "CHROME_PATH": path})
    assert find_browser(wrong) is None  # not silently another browser than the one asked for
    assert f"CHROME_PATH is {path!r}, which is not a file" in missing_browser_help(wrong)


@pytest.mark.parametrize("system, install", [
    ("Linux", "sudo apt-get install chromium"), ("Darwin", "into /Applications"),
    ("Windows", "install Google Chrome or Microsoft Edge")])
def test_nothing_found_says_what_is_missing_and_how_to_get_it(system, install):
    nothing = machine(system, [], {"PATH": "/usr/bin"})
    assert find_browser(nothing) is None
    help_text = missing_browser_help(nothing)
    assert help_text.startswith("No Chromium-based browser was found")
    for part in (install, "146 or later", "python -m playwright install chromium", "CHROME_PATH"):
        assert part in help_text


def test_versions():
    assert version_from_folder(["145.0.7632.160", "146.0.7680.80", "SetupMetrics", "chrome.exe"]) == "146.0.7680.80"
    assert version_from_folder(["99.0.4844.84", "146.0.7680.80"]) == "146.0.7680.80"  # by number, not text
    assert version_from_folder(["159.0.8154.6.manifest", "chrome.exe"]) == "159.0.8154.6"  # Chrome for Testing
    assert version_from_folder(["chrome.exe"]) == ""
    assert major_version("Chromium 156.0.8078.114 built on Debian GNU/Linux 12 (bookworm)") == 156
    assert major_version("Google Chrome for Testing 159.0.8154.6") == 159
    assert major_version("") is None


def test_windows_reads_the_version_beside_the_executable_without_starting_it():
    chrome = r"C:\Program Files\Google\Chrome\Application\chrome.exe"
    files = [chrome, r"C:\Program Files\Google\Chrome\Application\146.0.7680.80\chrome.dll"]
    assert browser_version(machine("Windows", files, WINDOWS_ENV), chrome) == "146.0.7680.80"
