"""Scenario 7: nothing grows. Random calls of the tools that leave the notebooks as they were (reads,
searches, focus, edits that put the same text back, exports, saves) over the privacy workspace; the page's
memory after a full collection is measured after a warm-up and then every quarter of the run. Growth is
reported per 1,000 calls, from the first to the last measurement and as the worst quarter. Each reading waits
out the call budget first: every call leaves a timer of the budget's length in the page (the bridge's wait,
through Pyodide's event loop), which would count the last 20 s of calls as growth. Live Pyodide proxies
are counted in a heap snapshot after the warm-up and at the end.
"""

import random

from pyodide_webmcp.base.limits import CALL_BUDGET_MS

from tests.measure import heap_snapshot, live_pyproxies, memory_after_gc
from tests.waiting import wait_until

from .arguments import ArgumentMaker, pick, weighted_tools
from .harness import StressPage, Tally
from .privacy import BATCH_SIZE
from .workspace import PrivacyWorkspace

# Tools whose calls add to what the page must legitimately keep (cells, threads, notebooks, kernels, outputs)
GROWING = ["jupyter_insert_cell", "jupyter_create_comment", "jupyter_reply_comment", "jupyter_create_notebook",
           "jupyter_kernel_action", "jupyter_run_cells", "jupyter_run_code", "jupyter_delete_cell",
           "jupyter_execute_command", "jupyter_wait_for_result", "jupyter_answer_dialog"]
WARM_UP = 500
QUARTERS = 4


def run_growth(report, stress: StressPage, rng: random.Random, calls: int) -> None:
    section = "growth"
    workspace = PrivacyWorkspace(stress, rng)
    workspace.setup()
    pools = workspace.shuffle().pools
    registered = {tool["name"] for tool in stress.page.webmcp.tools()}
    tools = weighted_tools({name: 0.0 for name in GROWING}, registered)
    maker = ArgumentMaker(rng, pools)
    tally = Tally()

    def make(count: int) -> None:
        while count > 0:
            batch = [(name, maker.arguments(name)) for name in (pick(rng, tools) for _ in range(min(BATCH_SIZE, count)))]
            stress.batch(batch, tally)
            count -= len(batch)

    def settled_memory() -> dict:
        wait_until(lambda: not stress.call("jupyter_get_context").payload.get("pending"), timeout=CALL_BUDGET_MS / 1000 + 60,
                   interval=1, what="every call of the batch ending")  # one answered pending may still run
        return memory_after_gc(stress.page)

    make(min(WARM_UP, calls))
    measured = [settled_memory()]
    proxies = [live_pyproxies(heap_snapshot(stress.page))]
    for _ in range(QUARTERS):
        make(calls // QUARTERS)
        measured.append(settled_memory())
    proxies.append(live_pyproxies(heap_snapshot(stress.page)))
    per_thousand = 1000 / max(1, calls // QUARTERS)
    for key, label in (("jsHeapMiB", "JS heap"), ("arrayBuffersMiB", "array buffers incl. wasm memory")):
        steps = [(after[key] - before[key]) * per_thousand for before, after in zip(measured, measured[1:])]
        report.add(section, f"{label} before / after (MiB)", f"{measured[0][key]:.1f} / {measured[-1][key]:.1f}")
        report.add(section, f"{label} growth per 1,000 calls (MiB): whole run, worst quarter",
                   f"{(measured[-1][key] - measured[0][key]) * 1000 / max(1, calls):.2f}, {max(steps):.2f}")
    report.add(section, "live Pyodide proxies before / after", f"{proxies[0]} / {proxies[1]}")
    report.add(section, "live Pyodide proxies growth per 1,000 calls",
               f"{(proxies[1] - proxies[0]) * 1000 / max(1, calls):.1f}")
    report.add(section, "calls measured (after a warm-up of 500)", tally.calls - min(WARM_UP, calls))
    report.add(section, "exceptions / INTERNAL_ERROR", tally.rejected + tally.internal_errors, 0)
    report.keep(section, [f"{kind}: {text}" for kind, kept in tally.examples.items() for text in kept])
