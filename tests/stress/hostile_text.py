"""Scenario 5: hostile text. An agent writes HTML, script, `javascript:` links and markdown image beacons
into comments, replies, proposals, cell sources (code and markdown, rendered) and file names; the lab
then shows all of it (the notebook, the Comments tab, the proposals, the file browser). Every payload that
runs bumps `window.__stressScript`; every beacon points off the origin, so a request the page records
outside its origin is a beacon that fired.
"""

from .harness import KERNELSPEC, PANEL, START, StressPage, Tally

PATH = "hostile-text/page.ipynb"
BEACON = "http://198.51.100.7"  # TEST-NET-2: nothing answers, but the request would be recorded
BUMP = "window.__stressScript=(window.__stressScript||0)+1"
PAYLOADS = [
    f"<script>{BUMP}</script>",
    f'<img src="x" onerror="{BUMP}">',
    f"[click](javascript:{BUMP})",
    f"![beacon]({BEACON}/beacon.png)",
    f'<img src="{BEACON}/beacon2.png">',
    f'<svg onload="{BUMP}"></svg>',
    f'<iframe srcdoc="<script>parent.{BUMP}</script>"></iframe>',
    f'<a href="javascript:{BUMP}">click</a>',
    f'<link rel="stylesheet" href="{BEACON}/style.css">',
    f"<style>@import url({BEACON}/import.css); body {{ background: url({BEACON}/bg.png) }}</style>",
    f'<video poster="{BEACON}/poster.png"></video>',
    f"{BEACON}/plain-link",
]
PROPOSE_TOGGLE = "jupyterlite-pyodide-webmcp:toggle-propose-mode"


JAVASCRIPT_LINKS = """() => Array.from(document.querySelectorAll('a[href], area[href], iframe[src], form[action]'))
    .filter(e => /^\\s*javascript:/i.test(e.getAttribute('href') || e.getAttribute('src') || e.getAttribute('action')))
    .length"""


def run_hostile_text(report, stress: StressPage, payloads: list[str] = PAYLOADS) -> None:
    section = "text"
    tally = Tally()
    page = stress.page
    stress.save("hostile-text", None, "directory")
    cells = [{"cell_type": "code", "id": f"c{i}", "metadata": {}, "source": f"x{i} = {i}", "outputs": [],
              "execution_count": None} for i in range(len(payloads))]
    stress.save(PATH, {"nbformat": 4, "nbformat_minor": 5, "metadata": {"kernelspec": KERNELSPEC}, "cells": cells})
    stress.share_kernel(PATH)
    stress.call("jupyter_open_notebook", {"path": PATH}, tally)
    calls = []
    for index, text in enumerate(payloads):
        cell = f"c{index}"
        calls += [
            ("jupyter_create_comment", {"notebookPath": PATH, "anchor": {"kind": "cell", "cellId": cell},
                                        "message": text}),
            ("jupyter_insert_cell", {"notebookPath": PATH, "referenceCellId": cell, "position": "below",
                                     "cellType": "markdown", "source": f"# {text}\n\n{text}"}),
            ("jupyter_insert_cell", {"notebookPath": PATH, "referenceCellId": cell, "position": "below",
                                     "cellType": "code", "source": f"# {text}"}),
            ("jupyter_create_notebook", {"directory": "hostile-text", "name": text[:60]}),
            ("jupyter_insert_cell", {"notebookPath": PATH, "referenceCellId": cell, "position": "below",
                                     "cellType": "raw", "source": text}),
        ]
    outcomes = stress.batch(calls, tally)
    threads = [outcome.payload["thread"]["id"] for outcome in outcomes
               if outcome.name == "jupyter_create_comment" and not outcome.is_error]
    stress.batch([("jupyter_reply_comment", {"notebookPath": PATH, "threadId": thread, "message": text})
                  for thread, text in zip(threads, payloads)], tally)
    listed = stress.call("jupyter_get_cells", {"notebookPath": PATH}, tally).payload["cells"]
    # Render every markdown cell, as running it does
    stress.call("jupyter_run_cells", {"notebookPath": PATH, "cellIds": [
        cell["id"] for cell in listed if cell["type"] == "markdown"]}, tally)
    # Proposals: Propose mode on (the human's switch), one pending proposal per cell, shown under each
    page.evaluate("id => window.jupyterapp.commands.execute(id)", PROPOSE_TOGGLE)
    originals = [cell for cell in listed if cell["id"] in {f"c{i}" for i in range(len(payloads))}]
    for cell, text in zip(originals, payloads):
        page.evaluate(START, ["jupyter_update_cell", {"notebookPath": PATH, "cellId": cell["id"], "source": text,
                                                      "expectedSourceHash": cell["sourceHash"]}, cell["id"]])
    page.locator(".jp-webmcp-proposal").nth(len(originals) - 1).wait_for(state="attached", timeout=30_000)
    page.evaluate(f"path => window.jupyterapp.shell.activateById({PANEL}.id)", PATH)
    # Show it all: the Comments tab, the file browser on the folder with the hostile names
    page.evaluate("() => window.jupyterapp.shell.activateById('jp-webmcp-agent-panel')")
    page.locator(".jp-webmcp-tabs .lm-TabBar-tab", has_text="Comments").click()
    page.evaluate("() => window.jupyterapp.commands.execute('filebrowser:go-to-path', {path: 'hostile-text/'})")
    page.evaluate("() => window.jupyterapp.shell.activateById('filebrowser')")
    page.wait_for_timeout(3000)  # a time to do harm: there is no event for a script or a beacon that does not run
    # Click every link the lab shows, as a curious human would (one hidden from view is not clickable)
    shown = [link for link in page.locator(".jp-Notebook a, .jp-webmcp-thread a, .jp-webmcp-proposal a").all()
             if link.is_visible()]
    for link in shown[:50]:
        try:
            link.click(timeout=2000, modifiers=["Alt"], no_wait_after=True)
        except Exception:  # noqa: BLE001 - a hidden or detached link is not a failure of the guarantee
            pass
    page.wait_for_timeout(1000)  # as long again for what a click started
    page.evaluate("id => window.jupyterapp.commands.execute(id)", PROPOSE_TOGGLE)
    report.add(section, "hostile payloads x places written", f"{len(payloads)} x 6")
    report.add(section, "agent calls", tally.calls)
    report.add(section, "exceptions reaching the client / INTERNAL_ERROR", tally.rejected + tally.internal_errors, 0)
    report.add(section, "script executions in the page", page.evaluate("() => window.__stressScript || 0"), 0)
    report.add(section, "javascript: links in the page", page.evaluate(JAVASCRIPT_LINKS), 0)
    report.keep(section, [f"{kind}: {text}" for kind, kept in tally.examples.items() for text in kept])
