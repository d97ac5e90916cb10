"""buildkit/site.py: the site and the wheel, built for the kernel's own Pyodide."""

from buildkit import snapshot
from buildkit.site import wheel_environment


def test_the_extension_is_built_for_the_kernels_default_pyodide():
    """The snapshot and the bytecode standard library fit one Pyodide release: the kernel's own default."""
    from jupyterlite_pyodide_kernel.constants import PYODIDE_VERSION

    from buildkit.site import npm_pyodide_version

    assert npm_pyodide_version() == PYODIDE_VERSION


def test_the_wheel_hook_is_told_the_browser_or_to_ship_no_snapshot():
    environ = {"PATH": "/usr/bin", snapshot.PLAIN_START_ENV: "1", "CHROME_PATH": "/elsewhere/chrome"}
    with_browser = wheel_environment(environ, "/usr/bin/chromium")
    assert with_browser["CHROME_PATH"] == "/usr/bin/chromium" and snapshot.PLAIN_START_ENV not in with_browser
    assert not snapshot.plain_start_requested(with_browser)
    plain = wheel_environment({"PATH": "/usr/bin", "CHROME_PATH": "/elsewhere/chrome"}, None)
    assert snapshot.plain_start_requested(plain) and "CHROME_PATH" not in plain and plain["PATH"] == "/usr/bin"
