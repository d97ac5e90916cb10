"""Scenario 6: bad luck mid-call. A run or a proposal is in flight when the kernel dies or restarts, or the
notebook is closed or renamed; then the page reloads with unsaved review threads and proposals pending.
Every call must settle with a clear code (or a clear status) within 5 s of the fault, and whatever was
saved must still be in the file afterwards.
"""

import json
import time
from dataclasses import dataclass, field
from typing import Optional

from .harness import KERNELSPEC, PANEL, START, StressPage, Tally

SETTLE_S = 5.0
PROPOSE_TOGGLE = "jupyterlite-pyodide-webmcp:toggle-propose-mode"

FINISH = """([key, timeoutMs]) => Promise.race([window.__started[key],
    new Promise(resolve => setTimeout(() => resolve({hung: true}), timeoutMs))])"""
RUNNING = f"path => {PANEL}?.content.widgets[1].model.executionState === 'running'"
FAULTS = {
    "kernel dies mid-run": f"path => {{ void {PANEL}.sessionContext.session.kernel.shutdown(); }}",
    "kernel restarts mid-run": f"path => {{ void {PANEL}.sessionContext.restartKernel(); }}",
    "notebook closed mid-run": f"path => {{ const p = {PANEL}; p.context.model.dirty = false; p.dispose(); }}",
    "notebook renamed mid-run": "path => { void window.jupyterapp.serviceManager.contents.rename(path, "
                                "path.replace('.ipynb', '-renamed.ipynb')); }",
}
PROPOSAL_FAULTS = {
    "notebook closed with a proposal pending": FAULTS["notebook closed mid-run"],
    "notebook renamed with a proposal pending": FAULTS["notebook renamed mid-run"],
}


@dataclass
class FaultFigures:
    faults: int = 0
    settled_late: int = 0
    unclear: int = 0
    saved_lost: int = 0
    slowest_s: float = 0.0
    codes: dict[str, str] = field(default_factory=dict)
    examples: list[str] = field(default_factory=list)


def notebook(cells: list[tuple[str, str]], metadata: Optional[dict] = None) -> dict:
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": {"kernelspec": KERNELSPEC, **(metadata or {})},
            "cells": [{"cell_type": "code", "id": cell_id, "metadata": {}, "source": source, "outputs": [],
                       "execution_count": None} for cell_id, source in cells]}


def run_faults(report, stress: StressPage) -> FaultFigures:
    figures = FaultFigures()
    tally = Tally()
    stress.save("faults", None, "directory")
    for number, (fault, action) in enumerate(FAULTS.items()):
        path = f"faults/run-{number}.ipynb"
        stress.save(path, notebook([("first", "x = 1"), ("nap", "import time\ntime.sleep(30)"), ("after", "y = 2")]))
        stress.call("jupyter_open_notebook", {"path": path}, tally)
        stress.wait_kernel_idle(path)
        stress.page.evaluate(START, ["jupyter_run_cells", {"notebookPath": path, "startIndex": 0, "endIndex": 3}, fault])
        stress.page.wait_for_function(RUNNING, arg=path, timeout=60_000, polling=100)
        _settle(stress, figures, fault, action, path)
    stress.page.evaluate("id => window.jupyterapp.commands.execute(id)", PROPOSE_TOGGLE)
    for number, (fault, action) in enumerate(PROPOSAL_FAULTS.items()):
        path = f"faults/proposal-{number}.ipynb"
        stress.save(path, notebook([("c0", "x = 0")]))
        stress.call("jupyter_open_notebook", {"path": path}, tally)
        digest = stress.call("jupyter_get_cells", {"notebookPath": path}, tally).payload["cells"][0]["sourceHash"]
        stress.page.evaluate(START, ["jupyter_update_cell", {"notebookPath": path, "cellId": "c0", "source": "x = 1",
                                                             "expectedSourceHash": digest}, fault])
        stress.page.locator(".jp-webmcp-proposal").first.wait_for(timeout=30_000)
        _settle(stress, figures, fault, action, path)
    _reload_with_pending_work(stress, figures, tally)
    section = "faults"
    report.add(section, "faults injected", figures.faults)
    for fault, code in figures.codes.items():
        report.add(section, f"{fault}: settled as", code)
    report.add(section, "calls settled later than 5 s after the fault", figures.settled_late, 0)
    report.add(section, "calls without a clear code", figures.unclear, 0)
    report.add(section, "slowest settle after a fault (s)", round(figures.slowest_s, 2))
    report.add(section, "saved things lost", figures.saved_lost, 0)
    report.add(section, "exceptions / INTERNAL_ERROR in other calls", tally.rejected + tally.internal_errors, 0)
    report.keep(section, figures.examples)
    return figures


def _settle(stress: StressPage, figures: FaultFigures, fault: str, action: str, path: str) -> None:
    faulted = time.monotonic()
    stress.page.evaluate(action, path)
    outcome = stress.page.evaluate(FINISH, [fault, int(SETTLE_S * 1000) + 5000])
    took = time.monotonic() - faulted
    figures.faults += 1
    figures.slowest_s = max(figures.slowest_s, took)
    code = _code(outcome)
    figures.codes[fault] = f"{code} in {took:.1f} s"
    if took > SETTLE_S or outcome.get("hung"):
        figures.settled_late += 1
        figures.examples.append(f"{fault}: settled after {took:.1f} s")
    if code is None or code == "INTERNAL_ERROR":
        figures.unclear += 1
        figures.examples.append(f"{fault}: {json.dumps(outcome)[:300]}")


def _code(outcome: dict) -> Optional[str]:
    """The error code, or the status of a normal result that says what happened (a denied proposal)."""
    if "text" not in outcome:
        return None
    payload = json.loads(json.loads(outcome["text"])["content"][0]["text"])
    if payload.get("error"):
        return payload["error"]
    renamed = payload.get("status") == "pending" and payload.get("waitingFor", {}).get("renamedTo")
    if renamed:  # the run goes on (as the human's would); the call says where the notebook went
        return f"pending, renamedTo {renamed}"
    return payload.get("code") or None


def _reload_with_pending_work(stress: StressPage, figures: FaultFigures, tally: Tally) -> None:
    """A saved thread, an unsaved one and a pending proposal, then the page reloads: the saved file is intact."""
    path = "faults/reload.ipynb"
    stress.save(path, notebook([("c0", "x = 0"), ("c1", "y = 1")]))
    stress.call("jupyter_open_notebook", {"path": path}, tally)
    saved = stress.call("jupyter_create_comment", {"notebookPath": path, "anchor": {"kind": "cell", "cellId": "c0"},
                                                   "message": "saved thread"}, tally)
    stress.call("jupyter_save_notebook", {"notebookPath": path}, tally)
    before = _file(stress, path)
    stress.call("jupyter_create_comment", {"notebookPath": path, "anchor": {"kind": "cell", "cellId": "c1"},
                                           "message": "unsaved thread"}, tally)
    digest = stress.call("jupyter_get_cells", {"notebookPath": path}, tally).payload["cells"][1]["sourceHash"]
    stress.page.evaluate(START, ["jupyter_update_cell", {"notebookPath": path, "cellId": "c1", "source": "y = 2",
                                                         "expectedSourceHash": digest}, "reload"])
    stress.page.locator(".jp-webmcp-proposal").first.wait_for(timeout=30_000)
    faulted = time.monotonic()
    stress.page.once("dialog", lambda dialog: dialog.accept())  # "leave the page with unsaved changes?"
    stress.page.reload()
    stress.page.wait_for_selector(".jp-webmcp-status[data-state=ready]", timeout=180_000)
    figures.faults += 1
    figures.codes["page reloaded with a proposal pending"] = (
        f"the calling page is gone; ready again in {time.monotonic() - faulted:.1f} s")
    after = _file(stress, path)
    thread_id = saved.payload.get("thread", {}).get("id")
    if after != before or thread_id not in json.dumps(after):
        figures.saved_lost += 1
        figures.examples.append(f"reload: the saved notebook changed: {json.dumps(before)[:200]} -> "
                                f"{json.dumps(after)[:200]}")
    reopened = stress.call("jupyter_list_comments", {"notebookPath": path, "status": "all"}, tally)
    if thread_id not in reopened.text:
        figures.saved_lost += 1
        figures.examples.append(f"reload: the saved thread is not listed: {reopened.text[:300]}")


def _file(stress: StressPage, path: str) -> dict:
    return stress.page.evaluate(
        "async path => (await window.jupyterapp.serviceManager.contents.get(path, {content: true})).content", path)
