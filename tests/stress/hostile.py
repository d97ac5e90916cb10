"""Scenario 4: hostile notebooks. Each is built in the page (a 100 MB string never crosses the DevTools
protocol), opened as the human opens it, and read, searched, exported, commented and run through the tools
while a DevTools trace records the page's main thread (in the long run): every result must stay within its
bound, and the longest main-thread task during each call is reported.
"""

from dataclasses import dataclass, field

from tests.measure import MAIN_THREAD_QUIET, TRACE_CATEGORIES, main_thread_tasks

from .harness import Outcome, StressPage, Tally, utf8_size

MIB = 2**20

# Builds the notebooks in the page. `scale` shrinks the big ones for the short run (1 = the sizes).
BUILD = r"""async ([name, scale]) => {
    const MIB = 1048576;
    const code = (id, source, outputs = []) => ({cell_type: 'code', id, metadata: {}, source, outputs,
                                                  execution_count: outputs.length ? 1 : null});
    const stream = text => ({output_type: 'stream', name: 'stdout', text});
    const noisePng = async side => {
        const canvas = document.createElement('canvas');
        canvas.width = canvas.height = side;
        const context = canvas.getContext('2d');
        const image = context.createImageData(side, side);
        let state = 7;
        for (let i = 0; i < image.data.length; i++) {
            state = (state * 1103515245 + 12345) & 0x7fffffff;
            image.data[i] = i % 4 === 3 ? 255 : state >> 23;
        }
        context.putImageData(image, 0, 0);
        return canvas.toDataURL('image/png').split(',')[1];
    };
    let cells;
    if (name === 'text-100MB') {
        cells = [code('big', "print('x' * 100_000_000)", [stream(('x'.repeat(99) + '\n').repeat(Math.floor(scale * MIB)))]),
                 code('after', 'y = 1')];
    } else if (name === 'image-20MB') {
        const png = await noisePng(Math.round(2600 * Math.sqrt(scale)));
        cells = [code('img', 'show()', [{output_type: 'display_data', metadata: {},
                                         data: {'image/png': png, 'text/plain': '<Figure>'}}])];
    } else if (name === 'outputs-10000') {
        const count = Math.round(10000 * Math.min(1, scale * 10));
        cells = [code('many', 'for i in range(10000): display(i)', Array.from({length: count}, (_, i) => (
            {output_type: 'display_data', metadata: {}, data: {'text/plain': String(i)}})))];
    } else if (name === 'nested-json') {
        let value = {leaf: true};
        for (let i = 0; i < 1000; i++) value = {level: i, child: [value]};
        cells = [code('deep', 'JSON(deep)', [{output_type: 'display_data', metadata: {},
                                              data: {'application/json': value, 'text/plain': '<JSON>'}}])];
    } else if (name === 'ansi-control') {
        const flood = ('\x1b[31;1mred\x1b[0m\x1b]8;;http://x\x07link\x1b]8;;\x07\x00\x01\x07\x08\r\x0b\x0c\x1b[2K'
                       + '\x1b[?25l').repeat(Math.floor(scale * 20000));
        cells = [code('ansi', 'print(flood)', [stream(flood),
                 {output_type: 'error', ename: '\x1b[31mValueError\x00', evalue: flood.slice(0, 5000),
                  traceback: Array.from({length: 200}, () => flood.slice(0, 2000))}])];
    } else if (name === 'lone-surrogates') {
        const odd = 'a\ud800b\udfffc\ud83d';
        cells = [code('odd\ud800'.slice(0, 3), odd.repeat(100), [stream(odd.repeat(1000)),
                 {output_type: 'display_data', metadata: {}, data: {'text/plain': odd, 'text/html': `<b>${odd}</b>`}}]),
                 {cell_type: 'markdown', id: 'md', metadata: {}, source: '# ' + odd}];
    } else if (name === 'long-line-25KiB') {
        const line = "x = '" + 'é'.repeat(13000) + "'";
        cells = [code('line', line), code('line2', line + '  # ' + 'a'.repeat(1000)), code('short', 'z = 1')];
    } else if (name === 'cells-5000') {
        cells = Array.from({length: Math.round(5000 * Math.min(1, scale * 10))}, (_, i) => code(`c${i}`, `x${i} = ${i}\nprint(x${i})`,
            i % 10 ? [] : [stream(`${i}\n`)]));
    }
    const content = {nbformat: 4, nbformat_minor: 5, cells,
                     metadata: {kernelspec: {name: 'python', display_name: 'Python (Pyodide)', language: 'python'}}};
    await window.jupyterapp.serviceManager.contents.save(`hostile/${name}.ipynb`,
                                                         {type: 'notebook', format: 'json', content});
    return cells.map(cell => cell.id);
}"""

NOTEBOOKS = ["text-100MB", "image-20MB", "outputs-10000", "nested-json", "ansi-control", "lone-surrogates",
             "long-line-25KiB", "cells-5000"]

OPEN = """async path => {
    const widget = await window.jupyterapp.commands.execute('docmanager:open', {path});
    await widget.context.ready;
}"""

# Its session kept: the notebooks share one kernel (tests/kernels.py).
CLOSE = """path => {
    const panel = Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.context && w.context.path === path);
    if (!panel) return;
    panel.context.model.dirty = false;
    panel.dispose();
}"""


def calls_for(path: str, ids: list[str]) -> list[tuple[str, dict]]:
    first = ids[0]
    return [
        ("jupyter_open_notebook", {"path": path, "cellId": first}),
        ("jupyter_get_context", {}),
        ("jupyter_get_cells", {"notebookPath": path}),
        ("jupyter_get_cells", {"notebookPath": path, "includeOutputs": True}),
        ("jupyter_get_cells", {"notebookPath": path, "includeImages": True, "startIndex": 0, "endIndex": 100}),
        ("jupyter_get_cell_access", {"notebookPath": path}),
        ("jupyter_search_notebook", {"notebookPath": path, "query": "x", "includeOutputs": True}),
        ("jupyter_search_notebook", {"notebookPath": path, "query": r"[a-z]+\d", "regex": True, "includeOutputs": True}),
        ("jupyter_export_notebook", {"notebookPath": path}),
        ("jupyter_create_comment", {"notebookPath": path, "anchor": {"kind": "output", "cellId": first},
                                    "message": "what is this output?"}),
        ("jupyter_create_comment", {"notebookPath": path, "anchor": {"kind": "source-range", "cellId": first,
                                                                    "selection": {"start": {"line": 0, "column": 2},
                                                                                  "end": {"line": 0, "column": 9}}},
                                    "message": "and this?"}),
        ("jupyter_list_comments", {"notebookPath": path, "status": "all"}),
        ("jupyter_focus_cell", {"notebookPath": path, "cellId": ids[-1], "cursor": {"line": 0, "column": 3}}),
        ("jupyter_get_output_selection", {}),
        ("jupyter_move_cell", {"notebookPath": path, "cellId": ids[-1], "referenceCellId": ids[0],
                               "expectedSourceHash": "0" * 16}),
        ("jupyter_clear_outputs", {"notebookPath": path, "cellIds": [ids[-1]]}),
        ("jupyter_save_notebook", {"notebookPath": path}),
    ]


@dataclass
class HostileFigures:
    tally: Tally = field(default_factory=Tally)
    notebooks: dict[str, dict] = field(default_factory=dict)
    crashes: int = 0


def run_hostile(stress: StressPage, browser, scale: float = 1.0, names=NOTEBOOKS,
                traced: bool = True) -> HostileFigures:
    """`traced`: each call inside a DevTools trace, for its longest task (a second or so per call)."""
    figures = HostileFigures()
    crashed = []
    stress.page.on("crash", lambda *_: crashed.append(True))
    stress.save("hostile", None, "directory")
    for name in names:
        path = f"hostile/{name}.ipynb"
        print("hostile:", name, flush=True)
        ids = stress.page.evaluate(BUILD, [name, scale])
        stress.share_kernel(path)
        stress.page.evaluate(OPEN, path)
        stress.page.evaluate(MAIN_THREAD_QUIET, [500, 50, 120_000])  # the lab has finished rendering
        row = {"calls": 0, "largestBytes": 0, "overBound": 0, "longestTaskMs": 0.0, "slowestCallMs": 0.0,
               "worstCall": ""}
        for tool, arguments in calls_for(path, ids):
            over_before = figures.tally.over_bound
            outcome = (traced_call(stress, browser, tool, arguments, figures.tally) if traced
                       else stress.call(tool, arguments, figures.tally))
            task = f", longest task {outcome.longest_task_ms:.0f} ms" if traced else ""
            print(f"  {tool}: {outcome.ms:.0f} ms{task}, {outcome.code or 'ok'}", flush=True)
            row["calls"] += 1
            row["overBound"] += figures.tally.over_bound - over_before
            row["largestBytes"] = max(row["largestBytes"], utf8_size(outcome.text))
            row["slowestCallMs"] = max(row["slowestCallMs"], outcome.ms)
            if traced and outcome.longest_task_ms > row["longestTaskMs"]:
                row["longestTaskMs"], row["worstCall"] = outcome.longest_task_ms, tool
        figures.notebooks[name] = row
        stress.page.evaluate(CLOSE, path)
    figures.crashes = len(crashed)
    return figures


def traced_call(stress: StressPage, browser, name: str, arguments: dict, tally: Tally) -> Outcome:
    """One call inside a DevTools trace; the outcome carries the longest main-thread task seen meanwhile."""
    browser.start_tracing(page=stress.page, categories=TRACE_CATEGORIES)
    try:
        outcome = stress.call(name, arguments, tally)
    finally:
        tasks = main_thread_tasks(browser.stop_tracing())
    outcome.longest_task_ms = max((duration for duration, _ in tasks), default=0.0)
    return outcome
