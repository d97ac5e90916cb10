"""The demo site served the ways static hosts serve it: cross-origin isolated, under a sub-path with a
strict Content-Security-Policy, with `.br` files labelled `Content-Encoding: br`, and compressed."""

import json

import pytest
from jupyterlite_pyodide_webmcp.gzip_copies import GzipCopies

from buildkit.paths import SITE
from tests.browser.conftest import (
    BOOT_TIMEOUT_MS,
    DEFAULT_TOOLS,
    READY,
    SETTLED,
    Lab,
    code_cell,
    notebook_json,
)

ISOLATION = {"Cross-Origin-Opener-Policy": "same-origin", "Cross-Origin-Embedder-Policy": "require-corp"}
# docs/deploy.md's policy: what JupyterLab itself needs (inline styles, eval, data: images); nothing off the site.
CSP = {"Content-Security-Policy": "default-src 'self' 'unsafe-inline' 'unsafe-eval'; img-src 'self' data: blob:"}
RUNS = 12  # without the shim, most runs lost a reply within a few runs


@pytest.fixture
def page(browser):
    context = browser.new_context(service_workers="block")
    yield context.new_page()
    context.close()


def test_cross_origin_isolated_runs_all_settle(page, served):
    """coincident 1.2.3 (the kernel's transport when isolated) loses fast replies without the host's shim."""
    errors = []  # the page's errors and warnings: what a run that never settled left there
    page.on("console", lambda message: errors.append(message.text) if message.type in ("error", "warning") else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    lab = Lab(page, served(headers=ISOLATION))
    lab.open()
    assert page.evaluate("() => crossOriginIsolated") is True
    lab.save_file("isolated.ipynb", notebook_json([code_cell(f"c{i}", f"x{i} = {i}") for i in range(4)]))
    lab.open_with_idle_kernel("isolated.ipynb")
    for _ in range(RUNS):
        result = lab.call("jupyter_run_cells", {"cellIds": ["c0", "c1", "c2", "c3"]})
        # "pending": a cell never settled within the call budget
        assert result.get("status") == "ok", "\n".join([json.dumps(result)[:2000], *errors[-20:]])
        assert [r["status"] for r in result["results"]] == ["ok"] * 4, result


def test_a_sub_path_with_a_strict_content_security_policy(page, served):
    lab = Lab(page, served(prefix="/myproj/", headers=CSP))
    violations = []
    page.on("console", lambda message: violations.append(message.text)
            if "Content Security Policy" in message.text else None)
    lab.open()
    assert page.inner_text(READY) == f"WebMCP: ready ({len(DEFAULT_TOOLS)} tools; snapshot start)"
    lab.open_with_idle_kernel("demo.ipynb")
    ran = lab.call("jupyter_run_cells", {"cellIds": ["arithmetic"]})
    assert ran["results"][0]["outputSummary"] == "42", ran
    assert violations == []


def test_br_files_labelled_content_encoding_br_still_restore_the_snapshot(page, served):
    page.goto(f"{served(brotli_encoding=True)}/lab/index.html")
    assert page.wait_for_selector(SETTLED, timeout=BOOT_TIMEOUT_MS).inner_text() == (
        f"WebMCP: ready ({len(DEFAULT_TOOLS)} tools; snapshot start)")


def test_a_private_window_downloads_pyodides_runtime_once(page, served):
    """A browser context is a private window: its in-memory cache keeps no response over 6.25 MiB. Pyodide's
    runtime gzipped (3.4 MiB, 9.2 plain) fits, so the kernel's worker and the bridge share one download."""
    lab = Lab(page, served())
    lab.open()
    lab.open_with_idle_kernel("demo.ipynb")
    runtime = "/static/pyodide/pyodide.asm.wasm"
    gzipped = len(GzipCopies(SITE).copy(str(SITE / runtime.lstrip("/"))))
    assert gzipped <= served.servers[0].take_served()[runtime] < gzipped + 4096  # one copy and its headers
