"""On a page just restored from the memory snapshot (which holds every built-in tool's module), the first call
of every tool answers."""

import json

import pytest
from pyodide_webmcp.tools import MODULES

from buildkit.paths import SITE_BRIDGE_ASSETS
from tests.browser.conftest import DEFAULT_TOOLS, READY
from tests.first_calls import (
    EXPECTED_ERRORS,
    FOLDER,
    NOTES,
    PATH,
    SETUP,
    every_first_call,
    notebook,
    payload_of,
)
from tests.waiting import KERNEL_IDLE


def test_the_snapshot_holds_every_built_in_tool_module():
    """So that no call waits for its tool's import (a long task of tens of milliseconds each)."""
    manifest = json.loads((SITE_BRIDGE_ASSETS / "manifest.json").read_text())
    held = manifest["snapshot"]["bridgeModules"]
    assert "pyodide_webmcp.adapter" in held and "pyodide_webmcp.calls.tool" in held
    assert {module for module in held if module.startswith("pyodide_webmcp.tools.")} == {
        f"pyodide_webmcp.tools.{module}" for module in MODULES}
    steps = manifest["snapshot"]["heapSteps"]
    assert [step["step"] for step in steps][:2] == ["interpreter started", "wheels installed"]
    # The snapshot holds the heap up to its break, not the memory's last growth step beyond it.
    assert 0 < manifest["snapshot"]["heapBytes"] - steps[-1]["breakBytes"] < 2 * 2**16


@pytest.fixture(scope="module")
def lab(lab_page):
    lab, _ = lab_page
    return lab.open()


def test_the_first_call_of_every_tool_after_a_restore_answers(lab):
    assert "snapshot start" in lab.page.inner_text(READY)
    lab.page.evaluate(SETUP, [FOLDER, PATH, notebook(), NOTES])
    made = every_first_call(lambda name, arguments: payload_of(lab.call_raw(name, arguments)),
                            lambda: lab.page.wait_for_function(KERNEL_IDLE, timeout=120_000))
    assert sorted(name for name, _ in made) == sorted(tool.name for tool in DEFAULT_TOOLS), "every tool, once"
    for name, payload in made:
        assert (payload or {}).get("error") == EXPECTED_ERRORS.get(name), (name, payload)  # output selection: null
