"""Boot benchmark of the bridge in headless Chromium with native WebMCP (run by build.py bench).

Cold runs use a fresh browser context each; warm runs reload the page in the
same context. Every figure is the min and median over the runs.
"""

import json
import statistics
import threading
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

TRACE_CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline"]
TASK_EVENTS = {"RunTask", "ThreadControllerImpl::RunTask"}
READY = ".jp-webmcp-status[data-state=ready]"


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
    started = time.monotonic()
    if reload:
        page.reload()
    else:
        page.goto(url)
    page.wait_for_function("() => window.jupyterapp", timeout=120_000)
    restored = page.evaluate("() => window.jupyterapp.restored.then(() => performance.now())")
    page.wait_for_selector(READY, timeout=120_000)
    marks = page.evaluate(
        "() => Object.fromEntries(performance.getEntriesByType('mark').map(m => [m.name, m.startTime]))"
    )
    trace = browser.stop_tracing()
    return {
        "appRestoredMs": restored,
        "toolsRegisteredMs": marks["webmcp:ready"],
        "bridgeBootMs": marks["webmcp:ready"] - marks["webmcp:booting"],
        "longestMainThreadTaskMs": longest_main_thread_task_ms(trace),
        "wallSeconds": time.monotonic() - started,
    }


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
    url = f"http://127.0.0.1:{server.server_address[1]}/lab/index.html?path=demo.ipynb"
    cold, warm = [], []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=flags)
        for _ in range(runs):
            context = browser.new_context()
            page = context.new_page()
            cold.append(one_load(browser, page, url, reload=False))
            warm.append(one_load(browser, page, url, reload=True))
            if len(cold) == runs:
                call_figures = measure_calls(page, calls)
            context.close()
        browser.close()
    server.shutdown()
    site_bytes = sum(path.stat().st_size for path in site.rglob("*") if path.is_file())
    result = {
        "runs": runs,
        "siteMiB": round(site_bytes / 2**20, 1),
        "cold": summarize(cold),
        "warm": summarize(warm),
        "calls": call_figures,
    }
    output.write_text(json.dumps(result, indent=2) + "\n")
    print(f"\nBoot benchmark, {runs} runs each (ms; min / median)\n")
    print(f"{'figure':28} {'cold':>21} {'warm':>21}")
    for key in cold[0]:
        if key == "wallSeconds":
            continue
        row = [f"{result[kind][key]['min']:9.0f} / {result[kind][key]['median']:9.0f}" for kind in ("cold", "warm")]
        print(f"{key:28} {row[0]:>21} {row[1]:>21}")
    print(f"\nCalls, {calls} each, timed in the page around executeTool (ms)\n")
    print(f"{'call':40} {'p50':>8} {'p95':>8}")
    for name, figures in call_figures.items():
        print(f"{name:40} {figures['p50']:8.1f} {figures['p95']:8.1f}")
    print(f"\nsite size: {result['siteMiB']} MiB; JSON written to {output}")
    return result
