"""Boot benchmark of the bridge in headless Chromium with native WebMCP (run by build.py bench).

Cold runs use a fresh browser context each; warm runs reload the page in the
same context. Every figure is the min and median over the runs.
"""

import json
import statistics
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

TRACE_CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline"]
TASK_EVENTS = {"RunTask", "ThreadControllerImpl::RunTask"}
SETTLED = ".jp-webmcp-status[data-state=ready], .jp-webmcp-status[data-state=off]"
KERNEL_IDLE = "() => window.jupyterapp.shell.currentWidget?.sessionContext?.session?.kernel?.status === 'idle'"


def longest_main_thread_task_ms(trace: bytes) -> float:
    """The longest top-level task on the page's renderer main thread, from a DevTools trace."""
    events = json.loads(trace)["traceEvents"]
    main_threads = {
        (event["pid"], event["tid"])
        for event in events
        if event.get("name") == "thread_name" and event.get("args", {}).get("name") == "CrRendererMain"
    }
    durations = [
        event.get("dur", 0)
        for event in events
        if event.get("name") in TASK_EVENTS and (event["pid"], event["tid"]) in main_threads
    ]
    return max(durations, default=0) / 1000


def one_load(browser, page, url: str, reload: bool) -> dict:
    browser.start_tracing(page=page, categories=TRACE_CATEGORIES)
    if reload:
        page.reload()
    else:
        page.goto(url)
    page.wait_for_function("() => window.jupyterapp", timeout=120_000)
    restored = page.evaluate("() => window.jupyterapp.restored.then(() => performance.now())")
    page.wait_for_selector(SETTLED, timeout=120_000)
    page.wait_for_function(KERNEL_IDLE, timeout=120_000, polling=50)
    kernel_idle = page.evaluate("() => performance.now()")
    marks = page.evaluate(
        "() => Object.fromEntries(performance.getEntriesByType('mark').map(m => [m.name, m.startTime]))"
    )
    trace = browser.stop_tracing()
    figures = {
        "appRestoredMs": restored,
        "kernelIdleMs": kernel_idle,
        "longestMainThreadTaskMs": longest_main_thread_task_ms(trace),
    }
    if "webmcp:ready" in marks:
        figures["toolsRegisteredMs"] = marks["webmcp:ready"]
        figures["bridgeBootMs"] = marks["webmcp:ready"] - marks["webmcp:booting"]
    return figures


CALL_LOOP = """async ([name, input, count]) => {
    const tool = (await document.modelContext.getTools()).find(t => t.name === name);
    const times = [];
    for (let i = 0; i < count; i++) {
        const started = performance.now();
        const text = await document.modelContext.executeTool(tool, input, {});
        times.push(performance.now() - started);
        if (JSON.parse(text).isError) throw new Error(text);
    }
    return times;
}"""

EDIT_LOOP = """async ([count]) => {
    const tools = await document.modelContext.getTools();
    const call = async (name, input) => JSON.parse(
        await document.modelContext.executeTool(tools.find(t => t.name === name), input, {})).structuredContent;
    const inserts = [], updates = [];
    for (let i = 0; i < count; i++) {
        let started = performance.now();
        const cell = (await call('jupyter_insert_cell', {source: 'pass', activate: false})).cell;
        inserts.push(performance.now() - started);
        started = performance.now();
        await call('jupyter_update_cell', {cellId: cell.id, source: 'x = ' + i, expectedSourceHash: cell.sourceHash});
        updates.push(performance.now() - started);
    }
    return [inserts, updates];
}"""

JS_EXECUTE_LOOP = """async ([index, count]) => {
    const panel = window.jupyterapp.shell.currentWidget;
    const cell = panel.content.widgets[index];
    const times = [];
    for (let i = 0; i < count; i++) {
        const started = performance.now();
        await cell.constructor.execute(cell, panel.sessionContext);
        times.push(performance.now() - started);
    }
    return times;
}"""


def percentiles(times: list[float]) -> dict:
    ordered = sorted(times)
    return {
        "p50": statistics.median(ordered),
        "p95": ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))],
        "n": len(ordered),
    }


def measure_calls(page, count: int) -> dict:
    """Per-call latency measured in the page around the browser's own executeTool."""
    page.wait_for_function(
        "() => window.jupyterapp.shell.currentWidget.sessionContext.session?.kernel?.status === 'idle'",
        timeout=120_000,
    )
    calls = {
        "jupyter_get_context": percentiles(page.evaluate(CALL_LOOP, ["jupyter_get_context", {}, count])),
        "jupyter_get_cells": percentiles(
            page.evaluate(CALL_LOOP, ["jupyter_get_cells", {"includeOutputs": True}, count])
        ),
    }
    inserts, updates = page.evaluate(EDIT_LOOP, [count])
    calls["jupyter_insert_cell"] = percentiles(inserts)
    calls["jupyter_update_cell"] = percentiles(updates)
    run = percentiles(page.evaluate(CALL_LOOP, ["jupyter_run_cells", {"cellIds": ["arithmetic"]}, count]))
    kernel = percentiles(page.evaluate(JS_EXECUTE_LOOP, [2, count]))
    calls["jupyter_run_cells (1 cell)"] = run
    calls["CodeCell.execute in JS (same cell)"] = kernel
    calls["run_cells overhead beyond the kernel"] = {
        "p50": run["p50"] - kernel["p50"], "p95": run["p95"] - kernel["p95"], "n": count
    }
    return calls


SAVE_NOTEBOOK = """([path, content]) => window.jupyterapp.serviceManager.contents.save(
    path, {type: 'notebook', format: 'json', content})"""


JS_READ_LOOP = """async ([path, start, end, withOutputs, count]) => {
    const panel = Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.context && w.context.path === path);
    const times = [];
    for (let i = 0; i < count; i++) {
        const started = performance.now();
        const cells = panel.content.model.sharedModel.cells.slice(start, end).map((cell, index) => {
            const json = cell.toJSON();
            const item = {id: cell.id, index: start + index, type: cell.cell_type, source: cell.getSource()};
            if (withOutputs && json.outputs) item.outputs = json.outputs;
            return item;
        });
        JSON.stringify({cells});
        times.push(performance.now() - started);
    }
    return times;
}"""


def open_and_settle(page, path: str) -> None:
    """Open a notebook and wait until its kernel is idle, so kernel start-up does not skew the timings."""
    page.evaluate(CALL_LOOP, ["jupyter_open_notebook", {"path": path}, 1])
    page.wait_for_function(KERNEL_IDLE, timeout=120_000, polling=100)


def measure_reads(page, count: int) -> dict:
    """jupyter_get_cells on 200 cells beside a hand-written JS read of the same cells in the same page."""
    cells = [
        {"cell_type": "code", "id": f"r{i}", "metadata": {}, "source": f"print({i})\n" * 3, "execution_count": i,
         "outputs": [{"output_type": "stream", "name": "stdout", "text": f"{i}\n" * 3}]}
        for i in range(200)
    ]
    content = {"nbformat": 4, "nbformat_minor": 5, "cells": cells,
               "metadata": {"kernelspec": {"name": "python", "display_name": "Python (Pyodide)", "language": "python"}}}
    page.evaluate(SAVE_NOTEBOOK, ["bench-200.ipynb", content])
    open_and_settle(page, "bench-200.ipynb")
    figures = {}
    for with_outputs in (False, True):
        label = "with outputs" if with_outputs else "without outputs"
        tool = percentiles(page.evaluate(
            CALL_LOOP, ["jupyter_get_cells", {"startIndex": 0, "endIndex": 100, "includeOutputs": with_outputs}, count]
        ))
        js = percentiles(page.evaluate(JS_READ_LOOP, ["bench-200.ipynb", 0, 100, with_outputs, count]))
        figures[f"jupyter_get_cells 100 of 200 ({label})"] = tool
        figures[f"JS equivalent ({label})"] = js
        figures[f"ratio to JS ({label})"] = {"p50": tool["p50"] / js["p50"], "p95": tool["p95"] / js["p95"], "n": count}
    return figures


def measure_scale(page, sizes=(1000, 5000), count: int = 20) -> dict:
    """get_context and a 20-cell get_cells on large notebooks: neither should grow with the notebook."""
    figures = {}
    for size in sizes:
        cells = [
            {"cell_type": "code", "id": f"c{i}", "metadata": {}, "source": f"x = {i}", "outputs": [], "execution_count": None}
            for i in range(size)
        ]
        content = {"nbformat": 4, "nbformat_minor": 5, "cells": cells,
                   "metadata": {"kernelspec": {"name": "python", "display_name": "Python (Pyodide)", "language": "python"}}}
        path = f"bench-{size}.ipynb"
        page.evaluate(SAVE_NOTEBOOK, [path, content])
        open_and_settle(page, path)
        middle = {"startIndex": size // 2, "endIndex": size // 2 + 20}
        figures[f"jupyter_get_context ({size} cells)"] = percentiles(
            page.evaluate(CALL_LOOP, ["jupyter_get_context", {}, count])
        )
        figures[f"jupyter_get_cells 20 ({size} cells)"] = percentiles(
            page.evaluate(CALL_LOOP, ["jupyter_get_cells", middle, count])
        )
    return figures


def summarize(runs: list[dict]) -> dict:
    return {
        key: {"min": min(run[key] for run in runs), "median": statistics.median(run[key] for run in runs)}
        for key in runs[0]
    }


def run_benchmark(
    site_server, site: Path, chromium: str, flags: list[str], runs: int, calls: int, output: Path
) -> dict:
    server = site_server(0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/lab/index.html?path=demo.ipynb"
    loads = {(mode, kind): [] for mode in ("on", "off") for kind in ("cold", "warm")}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=flags)
        for run in range(runs):
            for mode in ("on", "off"):  # interleaved, so drift affects both alike
                context = browser.new_context()
                page = context.new_page()
                url = base if mode == "on" else base + "&webmcp=off"
                loads[(mode, "cold")].append(one_load(browser, page, url, reload=False))
                loads[(mode, "warm")].append(one_load(browser, page, url, reload=True))
                if mode == "on" and run == runs - 1:
                    call_figures = measure_calls(page, calls)
                    call_figures.update(measure_reads(page, calls))
                    call_figures.update(measure_scale(page))
                context.close()
        browser.close()
    server.shutdown()
    site_bytes = sum(path.stat().st_size for path in site.rglob("*") if path.is_file())
    result = {
        "runs": runs,
        "siteMiB": round(site_bytes / 2**20, 1),
        "boot": {f"bridge {mode}, {kind}": summarize(figures) for (mode, kind), figures in loads.items()},
        "calls": call_figures,
    }
    output.write_text(json.dumps(result, indent=2) + "\n")
    print(f"\nBoot benchmark, {runs} runs each (ms from navigation; min / median)\n")
    columns = list(result["boot"])
    print(f"{'figure':26}" + "".join(f"{column:>24}" for column in columns))
    for key in loads[("on", "cold")][0]:
        cells = []
        for column in columns:
            figures = result["boot"][column].get(key)
            cells.append(f"{figures['min']:9.0f} / {figures['median']:9.0f}" if figures else "-")
        print(f"{key:26}" + "".join(f"{cell:>24}" for cell in cells))
    print(f"\nCalls, {calls} each, timed in the page around executeTool (ms)\n")
    print(f"{'call':40} {'p50':>8} {'p95':>8}")
    for name, figures in call_figures.items():
        print(f"{name:40} {figures['p50']:8.1f} {figures['p95']:8.1f}")
    print(f"\nsite size: {result['siteMiB']} MiB; JSON written to {output}")
    return result
