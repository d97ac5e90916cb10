"""The demo site, built only when what it is built from changed (`build.py build`, `serve`, `mcp`, `test`).

What it is built from: the source files, and whether the bridge's memory snapshot could be made (a site
built without a browser is rebuilt once one is found). With `--contents DIR`, the same site is served
with DIR beside it, read and written in place (jupyterlite_pyodide_webmcp.contents_api).
"""

import hashlib
from pathlib import Path

from .paths import BUILD, ROOT, SITE
from .shell import log
from .stamps import up_to_date

# Files whose change changes the built site.
SITE_SOURCES = ("py", "desktop", "lib", "schema", "style", "lite", "buildkit", "package.json", "package-lock.json",
                "constraints.txt", "pyproject.toml", "hatch_build.py", "requirements-dev.txt")
SKIPPED_SOURCES = ("__pycache__", ".jupyterlite.doit.db", "static")
SOURCES_STAMP = BUILD / "site.sources.sha256"


def site_digest(snapshot: bool) -> str:
    """One digest of every file the site is built from, and of whether it has a memory snapshot."""
    sha = hashlib.sha256(b"snapshot\0" if snapshot else b"plain start\0")
    for name in SITE_SOURCES:
        top = ROOT / name
        files = [top] if top.is_file() else sorted(path for path in top.rglob("*") if path.is_file())
        for path in files:
            relative = path.relative_to(ROOT)
            if any(part in SKIPPED_SOURCES for part in relative.parts):
                continue
            sha.update(str(relative).encode() + b"\0" + path.read_bytes() + b"\0")
    return sha.hexdigest()


def site_is_current(snapshot: bool) -> bool:
    return (SITE / "index.html").exists() and up_to_date(SOURCES_STAMP, site_digest(snapshot))


def build_demo_site(browser: str | None) -> None:
    """Build build/site (its memory snapshot made in `browser`; None: plain start) and remember its inputs."""
    from .site import build_site

    if browser is None:
        log("no Chromium-based browser found: the site's bridge starts without a memory snapshot (a browser "
            "found later, or CHROME_PATH, rebuilds it with one)")
    digest = site_digest(snapshot=browser is not None)
    SOURCES_STAMP.unlink(missing_ok=True)  # a build that fails half-way leaves no stamp
    build_site(browser)
    SOURCES_STAMP.write_text(digest)


def ensure_site(browser: str | None) -> Path:
    """build/site, (re)built first when its inputs changed."""
    if site_is_current(snapshot=browser is not None):
        log("site is up to date")
    else:
        log("building the site (its sources changed since the last build)")
        build_demo_site(browser)
    return SITE
