"""The benchmark of the bridge in headless Chromium with native WebMCP (run by build.py bench).

Page loads (bench_loads.py) of the demo site with the bridge on and off and of the reference's site, side by
side (bench_sites.py); per-call latency beside hand-written JavaScript in the same page; the characters the
model sees through each client. Load figures are the min and median over the runs.
"""

import json
import statistics
import tempfile
import threading
from dataclasses import replace
from pathlib import Path

from bench_first_calls import measure_first_calls, print_first_calls
from bench_folder import measure_folder, print_folder
from bench_loads import browser_page, load
from bench_owner_tools import measure_owner_tools, owner_site, print_owner_tools
from bench_profile import print_profile
from bench_sites import (
    CELL_COUNT,
    DELETE_CELLS_FROM,
    LOAD_KINDS,
    Site,
    bridge_sites,
    measure_bytes,
    measure_loads,
    measure_new_tools,
    measure_scale,
    measure_shared_calls,
    measure_slow_link,
    print_side_by_side,
    reference_site,
    side_by_side_rows,
)
from bench_tasks import measure_tasks, print_tasks
from bench_without_webmcp import measure_without_webmcp, print_without_webmcp
from hostclients import (
    MEASURED_PATH,
    POLYFILL,
    SAVE_NOTEBOOK,
    McpClient,
    McpHost,
    PageClient,
    measure_characters,
    measured_notebook,
)
from jupyterlite_pyodide_webmcp.site_server import site_server
from playwright.sync_api import sync_playwright

from buildkit.env import CHROMIUM_FLAGS
from buildkit.paths import SITE
from buildkit.reference import REFERENCE_SITE
from tests.measure import MAIN_THREAD_QUIET, percentiles
from tests.waiting import KERNEL_IDLE, wait_until

# Times each call around executeTool, and inside the bridge (its User Timing measure).
CALL_LOOP = """async ([name, input, count]) => {
    const tool = (await document.modelContext.getTools()).find(t => t.name === name);
    const measured = [];
    const observer = new PerformanceObserver(list => measured.push(...list.getEntriesByName('webmcp:' + name)));
    observer.observe({type: 'measure'});
    const times = [];
    for (let i = 0; i < count; i++) {
        const started = performance.now();
        const text = await document.modelContext.executeTool(tool, input, {});
        times.push(performance.now() - started);
        if (JSON.parse(text).isError) throw new Error(text);
    }
    await new Promise(resolve => setTimeout(resolve, 0));
    observer.disconnect();
    return [times, measured.map(entry => entry.duration)];
}"""


def tool_timings(page, figures: dict, label: str, name: str, arguments: dict, count: int) -> dict:
    """Record a tool's latency around executeTool and inside the bridge; returns the former."""
    around, inside = page.evaluate(CALL_LOOP, [name, arguments, count])
    figures[label] = percentiles(around)
    figures[f"{label}: inside the bridge"] = percentiles(inside)
    return figures[label]

EDIT_LOOP = """async ([count]) => {
    const tools = await document.modelContext.getTools();
    const call = async (name, input) => JSON.parse(JSON.parse(
        await document.modelContext.executeTool(tools.find(t => t.name === name), input, {})).content[0].text);
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

# Hand-written JavaScript doing the same reads and writes directly on the live models. One
# operation is below the page timer's 0.1 ms resolution, so each sample times REPEAT of them.
REPEAT = 20
TIMER_RESOLUTION_MS = 0.1
JS_LOOP = """async ([operation, args, count, repeat]) => {
    const run = new Function('app', 'args', 'i', operation);
    const times = [];
    for (let i = 0; i < count; i++) {
        const started = performance.now();
        for (let r = 0; r < repeat; r++) run(window.jupyterapp, args, i * repeat + r);
        times.push((performance.now() - started) / repeat);
    }
    return times;
}"""

JS_CONTEXT = """
    const panel = app.shell.currentWidget;
    const notebook = panel.content;
    return JSON.stringify({
        path: panel.context.path, dirty: panel.context.model.dirty,
        kernel: panel.sessionContext.session?.kernel?.status ?? 'unavailable',
        activeCellId: notebook.activeCell?.model.id, activeCellIndex: notebook.activeCellIndex,
        cellCount: notebook.model.cells.length,
        openDocuments: Array.from(app.shell.widgets('main')).flatMap(w => w.context ? [w.context.path] : [])
    });"""

JS_INSERT = """
    const model = app.shell.currentWidget.content.model.sharedModel;
    const cell = model.insertCell(model.cells.length, {cell_type: 'code', source: 'pass'});
    return JSON.stringify({id: cell.id, source: cell.getSource()});"""

JS_UPDATE = """
    const model = app.shell.currentWidget.content.model.sharedModel;
    const cell = model.cells[model.cells.length - 1 - (i % 20)];
    cell.setSource('x = ' + i);
    return JSON.stringify({id: cell.id, source: cell.getSource()});"""

JS_READ = """
    const [path, start, end, withOutputs] = args;
    const panel = Array.from(app.shell.widgets('main')).find(w => w.context && w.context.path === path);
    const cells = panel.content.model.sharedModel.cells.slice(start, end).map((cell, index) => {
        const json = cell.toJSON();
        const item = {id: cell.id, index: start + index, type: cell.cell_type, source: cell.getSource()};
        if (withOutputs && json.outputs) item.outputs = json.outputs;
        return item;
    });
    return JSON.stringify({cells});"""


def js_timings(page, operation: str, count: int, args=None) -> dict:
    return percentiles(page.evaluate(JS_LOOP, [operation, args, count, REPEAT]))


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


def beside(figures: dict, name: str, tool: dict, js: dict) -> None:
    """A tool's figures, its JavaScript equivalent's, and the ratio."""
    figures[name] = tool
    figures[f"{name}: JS equivalent"] = js
    figures[f"{name}: ratio to JS"] = {
        key: tool[key] / max(js[key], TIMER_RESOLUTION_MS / REPEAT) for key in ("p50", "p95")
    } | {"n": tool["n"]}


def measure_calls(page, count: int) -> dict:
    """Per-call latency measured in the page around the browser's own executeTool."""
    page.wait_for_function(KERNEL_IDLE, timeout=120_000)
    calls = {}
    context = tool_timings(page, calls, "jupyter_get_context", "jupyter_get_context", {}, count)
    beside(calls, "jupyter_get_context", context, js_timings(page, JS_CONTEXT, count))
    tool_timings(page, calls, "jupyter_get_cells (demo, with outputs)", "jupyter_get_cells",
                 {"includeOutputs": True}, count)
    run = tool_timings(page, calls, "jupyter_run_cells (1 cell)", "jupyter_run_cells", {"cellIds": ["arithmetic"]}, count)
    kernel = percentiles(page.evaluate(JS_EXECUTE_LOOP, [2, count]))
    beside(calls, "jupyter_run_cells (1 cell)", run, kernel)
    calls["jupyter_run_cells (1 cell): overhead beyond the kernel"] = {
        "p50": run["p50"] - kernel["p50"], "p95": run["p95"] - kernel["p95"], "n": count
    }
    # Writes last, and the JS equivalent's many cells removed again (untimed).
    inserts, updates = page.evaluate(EDIT_LOOP, [count])
    cell_count = page.evaluate(CELL_COUNT)
    beside(calls, "jupyter_insert_cell", percentiles(inserts), js_timings(page, JS_INSERT, count))
    beside(calls, "jupyter_update_cell", percentiles(updates), js_timings(page, JS_UPDATE, count))
    page.evaluate(DELETE_CELLS_FROM, cell_count)
    return calls




def open_and_settle(page, path: str) -> None:
    """Open a notebook; wait until its kernel is idle and the page has finished rendering it."""
    page.evaluate(CALL_LOOP, ["jupyter_open_notebook", {"path": path}, 1])
    page.wait_for_function(KERNEL_IDLE, timeout=120_000, polling=100)
    if not page.evaluate(MAIN_THREAD_QUIET, [1000, 30, 30_000]):
        print(f"note: the lab is still rendering {path} after 30 s; times around executeTool include queueing")


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
        label = f"jupyter_get_cells 100 of 200 ({label})"
        tool = tool_timings(page, figures, label, "jupyter_get_cells",
                            {"startIndex": 0, "endIndex": 100, "includeOutputs": with_outputs}, count)
        js = js_timings(page, JS_READ, count, ["bench-200.ipynb", 0, 100, with_outputs])
        beside(figures, label, tool, js)
    return figures


def summarize(runs: list[dict]) -> dict:
    """Min and median of each figure; a text figure (the boot path) lists its distinct values."""
    summary = {}
    for key in runs[0]:
        values = [run[key] for run in runs if key in run]
        if key in PER_LOAD:
            continue
        if isinstance(values[0], str):
            summary[key] = {"values": sorted(set(values))}
        else:
            summary[key] = {"min": min(values), "median": statistics.median(values)}
    return summary


def lab_ready(page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector(".jp-webmcp-status[data-state=ready]", timeout=120_000)


def measure_seen_characters(playwright, chromium: str, base: str) -> dict:
    """Per call of a fixed set: the payload's characters and what each client hands the model."""
    from buildkit.mcp import SERVER_NAME, host_config

    clients = {}
    browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
    page = browser.new_page()
    lab_ready(page, base)
    clients["native page.webmcp"] = measure_characters(PageClient(page))
    browser.close()

    browser = playwright.chromium.launch(executable_path=chromium,
                                         args=[flag for flag in CHROMIUM_FLAGS if "WebMCP" not in flag])
    context = browser.new_context()
    context.add_init_script(path=str(POLYFILL))
    page = context.new_page()
    lab_ready(page, base)
    clients["@mcp-b/global polyfill"] = measure_characters(PageClient(page))
    browser.close()

    server = host_config(str(Path(__file__).resolve().parents[1] / "build.py"))["mcpServers"][SERVER_NAME]
    log = Path(tempfile.mkstemp(prefix="bench-mcp-", suffix=".log")[1])
    contents = Path(tempfile.mkdtemp(prefix="bench-mcp-contents-"))
    (contents / MEASURED_PATH).write_text(json.dumps(measured_notebook()))  # the host cannot write it in the page
    host = McpHost(server["command"], [*server["args"], "--isolated", "--port", "0", "--contents", str(contents)],
                   log).start()
    try:
        client = McpClient(host)
        wait_until(lambda: not client.call("jupyter_get_context").client_error, timeout=240, interval=0.5,
                   what=f"the lab answering through build.py mcp (see {log})")
        clients["MCP server (build.py mcp)"] = measure_characters(client)
    finally:
        host.close()
    return clients


def print_seen_characters(clients: dict) -> None:
    names = list(clients)
    print("\nCharacters the model sees per call (seen / payload, where payload is the compact JSON of content[0].text)\n")
    print(f"{'call':36} {'payload':>8}" + "".join(f"{name:>32}" for name in names))
    rows = zip(*clients.values())
    totals = {name: [0, 0] for name in names}
    for row in rows:
        cells = []
        for name, measured in zip(names, row):
            totals[name][0] += measured["payload"]
            totals[name][1] += measured["seen"]
            cells.append(f"{measured['seen']:>10,} {measured['seen'] / measured['payload']:5.2f}x")
        print(f"{row[0]['call']:36} {row[0]['payload']:>8,}" + "".join(f"{cell:>32}" for cell in cells))
    print(f"{'all calls':36} {totals[names[0]][0]:>8,}" + "".join(
        f"{f'{seen:,} {seen / payload:5.2f}x':>32}" for payload, seen in totals.values()))
    extra = {name: statistics.median(m["seen"] - m["payload"] for m in measured) for name, measured in clients.items()}
    print(f"{'beyond the payload (median)':36} {'':>8}" + "".join(f"{f'+{extra[name]:,.0f} chars':>32}" for name in names))


def serve(directory: Path, compress: bool = True):
    server = site_server(0, directory, compress=compress)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def run_benchmark(chromium: str, options, output: Path) -> dict:
    """Every measurement, printed and written to `output` as JSON; `options`: runs, calls, private_runs,
    slow_runs, characters_only, loads_only, tasks_only, tools (the bridge's default tool count)."""
    if options.folder_only:
        figures = measure_folder(chromium, options.runs)
        print_folder(figures, options.runs)
        output.write_text(json.dumps({"folder": figures}, indent=2) + "\n")
        return {"folder": figures}
    ours, theirs = serve(SITE), serve(REFERENCE_SITE)
    bridge, bridge_off = bridge_sites(ours, options.tools)
    reference = reference_site(theirs)
    if options.owner_tools_only:
        control = Site("same site, no tools listed", serve(owner_site(listed=False)), "", options.tools, bridge.ready,
                       bridge.own_urls)
        owned = Site("with its own tools", serve(owner_site(listed=True)), "", options.tools, bridge.ready,
                     bridge.own_urls)
        with sync_playwright() as playwright:
            figures = measure_owner_tools(playwright, chromium, [bridge, control, owned], owned, options.runs)
        print_owner_tools(figures, options.runs)
        output.write_text(json.dumps({"ownerTools": figures}, indent=2) + "\n")
        return {"ownerTools": figures}
    if options.ui_only:
        from bench_ui import measure_ui, print_ui

        with sync_playwright() as playwright:
            figures = measure_ui(playwright, chromium, bridge, options.runs)
        print_ui(figures, options.runs)
        output.write_text(json.dumps({"ui": figures}, indent=2) + "\n")
        return {"ui": figures}
    if options.without_webmcp_only:
        with sync_playwright() as playwright:
            figures = measure_without_webmcp(playwright, chromium, bridge, options.runs)
        print_without_webmcp(figures, options.runs)
        output.write_text(json.dumps({"withoutWebMCP": figures}, indent=2) + "\n")
        return {"withoutWebMCP": figures}
    if options.tasks_only:
        with sync_playwright() as playwright:
            tasks = measure_tasks(playwright, chromium, bridge, reference)
        print_tasks(tasks)
        output.write_text(json.dumps({"tasks": tasks}, indent=2) + "\n")
        return {"tasks": tasks}
    result = {"runs": 0 if options.characters_only else options.runs}
    with sync_playwright() as playwright:
        if not options.loads_only:
            result["tasks"] = measure_tasks(playwright, chromium, bridge, reference)
        if not options.characters_only:
            loads, result["profile"] = measure_loads(playwright, chromium, [bridge, reference, bridge_off],
                                                      options.runs)
            result["privateWindowMiB"] = measure_bytes(playwright, chromium, [bridge, reference],
                                                       options.private_runs, private=True)
            plain = [replace(site, server=serve(folder, compress=False))
                     for site, folder in ((bridge, SITE), (reference, REFERENCE_SITE))]
            result["plainHostMiB"] = {window: measure_bytes(playwright, chromium, plain, options.private_runs,
                                                            private=window == "private window")
                                      for window in ("fresh profile", "private window")}
            for site in plain:
                site.server.shutdown()
            result["slowLink"] = measure_slow_link(playwright, chromium, [bridge, reference], options.slow_runs)
            result["loads"] = loads
            result["calls"], result["scale"], result["callsBesideJs"] = {}, {}, {}
            if not options.loads_only:
                result["firstCalls"] = measure_first_calls(playwright, chromium, bridge)
            for site in () if options.loads_only else (bridge, reference):
                with browser_page(playwright, chromium) as page:
                    load(page, site, reload=False, trace=False, memory=False)
                    result["calls"][site.label] = measure_shared_calls(page, options.calls)  # on the demo notebook
                    if site is bridge:
                        result["callsBesideJs"] = measure_calls(page, options.calls)
                        result["calls"]["bridge, new tools"] = measure_new_tools(page, options.calls)
                        result["callsBesideJs"].update(measure_reads(page, options.calls))
                # Large notebooks on a freshly loaded page for both sites: the bridge's page has run more
                # tools above (a notebook with a dialog left open, among others).
                with browser_page(playwright, chromium) as page:
                    load(page, site, reload=False, trace=False, memory=False)
                    result["scale"][site.label] = measure_scale(page, 20)
        if not options.loads_only:
            result["seenCharacters"] = measure_seen_characters(playwright, chromium, bridge.url.split("?")[0])
    ours.shutdown()
    theirs.shutdown()
    result["siteMiB"] = {label: round(sum(path.stat().st_size for path in folder.rglob("*") if path.is_file()) / 2**20, 1)
                         for label, folder in (("bridge", SITE), ("reference", REFERENCE_SITE))}
    if not options.characters_only:
        result["sideBySide"] = side_by_side_rows(result)
        print_boot(result)
        if not options.loads_only:
            print_calls(result["callsBesideJs"], options.calls)
            print_first_calls(result["firstCalls"])
        print_side_by_side(result["sideBySide"], options.runs)
        print_profile(result["profile"])
    if not options.loads_only:
        print_seen_characters(result["seenCharacters"])
        print_tasks(result["tasks"])
    print(f"\nsite size: {result['siteMiB']} MiB; JSON written to {output}")
    output.write_text(json.dumps(as_json(result), indent=2) + "\n")
    return result


def as_json(value):
    """Tuple keys ((site, kind)) joined into strings."""
    if isinstance(value, dict):
        return {", ".join(key) if isinstance(key, tuple) else key: as_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [as_json(item) for item in value]
    return value


def print_boot(result: dict) -> None:
    loads = result["loads"]
    print(f"\nPage loads, {result['runs']} runs each (min / median; ms from navigation unless noted)\n")
    columns = list(loads)
    print(f"{'figure':26}" + "".join(f"{', '.join(column):>24}" for column in columns))
    summaries = {column: summarize(runs) for column, runs in loads.items()}
    for key in loads[("bridge", "cold")][0]:
        if key in PER_LOAD:
            continue
        cells = []
        for column in columns:
            figures = summaries[column].get(key)
            if not figures:
                cells.append("-")
            elif "values" in figures:
                cells.append(", ".join(figures["values"]))
            else:
                digits = 1 if key.endswith("MiB") else 0
                cells.append(f"{figures['min']:9.{digits}f} / {figures['median']:9.{digits}f}")
        print(f"{key:26}" + "".join(f"{cell:>24}" for cell in cells))
    print("\nThe extension's longest own task, each load: what it ran (the function of its code the profiler found "
          "most often), and how long it took\n")
    for column, runs in loads.items():
        for run in runs:
            if "longestOwnTaskRan" in run:
                print(f"{', '.join(column):24} {run['longestOwnTaskMs']:6.0f} ms  {run['longestOwnTaskRan']}")
    print_stages(loads)


PER_LOAD = {"longestOwnTaskRan", "stagesMs", "traced"}  # printed below the table or in its own rows, not summarized in it

# The bridge's start, stage by stage (User Timing marks), in the order it usually reaches them.
STAGES = ("stage:started-early", "activated", "stage:restoring", "stage:runtime-compiled", "stage:dynlibs-compiled",
          "stage:snapshot-inflated", "stage:restored", "stage:imported", "stage:serving", "stage:lab",
          "stage:views", "stage:watching", "stage:adopted", "ready")


def print_stages(loads: dict) -> None:
    """Where the first call's wait goes: when the bridge reached each stage of its start, from app.restored."""
    print("\nThe bridge's start, medians in ms from app.restored (negative: before it)\n")
    print(f"{'stage':28}" + "".join(f"{kind:>10}" for kind in LOAD_KINDS))
    rows = [(stage, lambda run, mark=f"webmcp:{stage}": run.get("stagesMs", {}).get(mark)) for stage in STAGES]
    rows.append(("first call answered", lambda run: run.get("firstCallAfterRestoredMs")))
    for stage, value in rows:
        cells = []
        for kind in LOAD_KINDS:
            values = [value(run) for run in loads[("bridge", kind)] if value(run) is not None]
            cells.append(f"{statistics.median(values):10.0f}" if values else f"{'-':>10}")
        print(f"{stage:28}" + "".join(cells))


def print_calls(calls: dict, count: int) -> None:
    print(f"\nCalls, {count} each, timed in the page around executeTool (ms)\n")
    print(f"{'call':64} {'p50':>8} {'p95':>8}")
    for name, figures in calls.items():
        print(f"{name:64} {figures['p50']:8.1f} {figures['p95']:8.1f}")
