"""The site's own Pyodide kernel runs code offline, and the bridge reads the result live."""

import pytest

from tests.browser.conftest import code_cell, notebook_json
from tests.waiting import wait_until


@pytest.fixture(scope="module")
def lab(lab_page):
    lab, _ = lab_page
    lab.open()
    lab.save_file("run.ipynb", notebook_json([code_cell("compute", "import sys\nprint(sys.platform, 6 * 7)")]))
    lab.call("jupyter_open_notebook", {"path": "run.ipynb"})
    return lab


def test_an_interrupt_straight_after_load_takes_effect_and_never_poisons_a_later_run(lab):
    status = lab.call("jupyter_get_context")["kernel"]["status"]
    interrupted = lab.call("jupyter_kernel_action", {"action": "interrupt"})
    assert interrupted["action"] == "interrupt" and interrupted["notebookPath"] == "run.ipynb"
    if status != "idle":  # the usual case: the kernel is still starting
        assert interrupted["interruptSent"] is False and "starting" in interrupted["message"]
    wait_until(lambda: lab.call("jupyter_get_context")["kernel"]["status"] == "idle", timeout=120)
    run = lab.call("jupyter_run_cells", {"cellIds": ["compute"]})
    assert run["status"] == "ok", run
    assert run["results"][0]["outputSummary"] == "emscripten 42"


def test_the_pyodide_kernel_runs_a_cell_offline(lab):
    wait_until(lambda: lab.call("jupyter_get_context")["kernel"]["status"] == "idle", timeout=120)
    lab.page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-cell')")
    cell = wait_until(
        lambda: (c := lab.call("jupyter_get_cells", {"cellIds": ["compute"], "includeOutputs": True})["cells"][0])
        and c.get("outputs") and c,
        timeout=120,
    )
    assert cell["outputs"] == [{"outputType": "stream", "name": "stdout", "text": "emscripten 42\n"}]
    assert cell["executionCount"] == 2
