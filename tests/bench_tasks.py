"""Three scripted agent tasks run through the same client (Playwright's page.webmcp, on Chromium's native
WebMCP) against the bridge and against the reference (jupyterlite-webmcp), counting every character the
model reads: the tool list once, then every result as the client hands it over (the whole return value,
serialized), and the calls made. Each site's script uses that site's own tools; the bridge's may not make
more calls than the reference's.

1. fix: read a 30-cell notebook with its outputs, find the failing cell, fix it, run up to it;
2. add: add a 10-cell analysis below the last cell and run it;
3. review: list a notebook's review threads, read each, reply to two and resolve the third.
"""

import json
from dataclasses import dataclass, field

from bench_loads import browser_page
from hostclients import SAVE_NOTEBOOK, code_cell, notebook

from tests.waiting import KERNEL_IDLE

FOLDER = "tasks"
TARGET_RATIO = 0.6
LIST_TOOLS = """async () => (await document.modelContext.getTools()).map(tool => ({
    name: tool.name, description: tool.description,
    inputSchema: typeof tool.inputSchema === 'string' ? JSON.parse(tool.inputSchema) : tool.inputSchema,
    annotations: tool.annotations}))"""
OPEN = """async path => {
    await window.jupyterapp.commands.execute('docmanager:open', {path, factory: 'Notebook'});
}"""


def compact(value) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


@dataclass
class Reader:
    """What the model reads during one task: the tool list, then each result, through one page."""

    page: object
    calls: list = field(default_factory=list)  # (tool, characters the model reads, characters of the payload)

    def tool_list(self) -> int:
        return len(compact(self.page.evaluate(LIST_TOOLS)))

    def call(self, name: str, arguments: dict) -> dict:
        result = self.page.webmcp.call_tool(name, arguments)
        text = result["content"][0]["text"]
        self.calls.append((name, len(compact(result)), len(text)))
        payload = json.loads(text)
        assert not result.get("isError"), (name, text[:400])
        return payload


# --- the notebooks -------------------------------------------------------------------------------------


def stream(text: str) -> dict:
    return {"output_type": "stream", "name": "stdout", "text": text}


TRACEBACK = [
    "\u001b[0;31m---------------------------------------------------------------------------\u001b[0m",
    "\u001b[0;31mNameError\u001b[0m                                 Traceback (most recent call last)",
    "Cell \u001b[0;32mIn[18], line 2\u001b[0m\n\u001b[1;32m      1\u001b[0m values \u001b[38;5;241m=\u001b[39m [row[\u001b[38;5;124m'amount'\u001b[39m] "
    "\u001b[38;5;28;01mfor\u001b[39;00m row \u001b[38;5;129;01min\u001b[39;00m rows]\n\u001b[0;32m----> 2\u001b[0m mean \u001b[38;5;241m=\u001b[39m "
    "\u001b[38;5;28msum\u001b[39m(values) \u001b[38;5;241m/\u001b[39m count_rows\n",
    "\u001b[0;31mNameError\u001b[0m: name 'count_rows' is not defined",
]


def fix_notebook() -> dict:
    """30 cells of a small analysis, run, the 18th failing on a misspelt name."""
    cells = [{"cell_type": "markdown", "id": "title", "metadata": {}, "source": "# Monthly sales\nA small analysis."}]
    cells.append(code_cell("c01", "rows = [{'month': m, 'amount': 100 + 7 * m} for m in range(1, 13)]\nlen(rows)",
                           [{"output_type": "execute_result", "data": {"text/plain": "12"}, "metadata": {},
                             "execution_count": 1}], 1))
    for number in range(2, 17):
        cells.append(code_cell(f"c{number:02d}", f"step_{number} = sum(row['amount'] for row in rows[:{number % 12 + 1}])\n"
                               f"print('step {number}:', step_{number})",
                               [stream(f"step {number}: {100 * number}\n")], number))
    cells.append(code_cell("count", "count = len(rows)\nprint(count)", [stream("12\n")], 17))
    cells.append(code_cell("mean", "values = [row['amount'] for row in rows]\nmean = sum(values) / count_rows",
                           [{"output_type": "error", "ename": "NameError", "evalue": "name 'count_rows' is not defined",
                             "traceback": TRACEBACK}], 18))
    for number in range(19, 29):
        cells.append(code_cell(f"c{number:02d}", f"print('later step {number}', mean * {number})", [], None))
    cells.append({"cell_type": "markdown", "id": "end", "metadata": {}, "source": "## Conclusions\nTo be written."})
    assert len(cells) == 30
    return notebook(cells)


ANALYSIS = [
    ("markdown", "## Analysis"),
    ("code", "import statistics"),
    ("code", "amounts = [row['amount'] for row in rows]"),
    ("code", "print('mean', statistics.mean(amounts))"),
    ("code", "print('median', statistics.median(amounts))"),
    ("code", "print('stdev', round(statistics.stdev(amounts), 2))"),
    ("code", "best = max(rows, key=lambda row: row['amount'])\nprint('best month', best['month'])"),
    ("code", "growth = [b['amount'] - a['amount'] for a, b in zip(rows, rows[1:])]\nprint(growth)"),
    ("markdown", "Growth is steady: every month adds the same amount."),
    ("code", "assert all(step == growth[0] for step in growth)\nprint('steady')"),
]


def add_notebook() -> dict:
    return notebook([code_cell("data", "rows = [{'month': m, 'amount': 100 + 7 * m} for m in range(1, 13)]")])


def review_notebook() -> dict:
    """Eight cells and three open review threads in the stored format both extensions read."""
    cells = [code_cell(f"r{number}", f"value_{number} = {number} * 2\nprint(value_{number})", [stream(f"{number * 2}\n")],
                       number) for number in range(8)]
    human = {"kind": "human", "name": "Ada"}

    def thread(number: int, cell_id: str, body: str) -> dict:
        at = f"2026-11-0{number}T10:00:00.000Z"
        return {"id": f"t{number}", "status": "open", "createdAt": at, "updatedAt": at,
                "anchor": {"kind": "cell", "cellId": cell_id},
                "messages": [{"id": f"m{number}", "author": human, "createdAt": at, "body": body}]}

    content = notebook(cells)
    content["metadata"]["jupyterlite_webmcp_review"] = {"version": 1, "threads": [
        thread(1, "r2", "Why times two? The spec says times three."),
        thread(2, "r5", "Please print with a label, not the bare number."),
        thread(3, "r7", "Is this cell still needed?"),
    ]}
    return content


# --- the scripts -------------------------------------------------------------------------------------------


def fix(reader: Reader, path: str, bridge: bool) -> None:
    reader.call("jupyter_get_context", {})
    cells = reader.call("jupyter_get_cells", {"notebookPath": path, "startIndex": 0, "endIndex": 30,
                                              "includeOutputs": True})["cells"]
    failing = next(c for c in cells if any(o.get("outputType") == "error" for o in c.get("outputs", [])))
    if bridge:
        reader.call("jupyter_replace_in_cell", {"notebookPath": path, "cellId": failing["id"], "old": "count_rows",
                                                "new": "count", "expectedSourceHash": failing["sourceHash"]})
    else:
        reader.call("jupyter_update_cell", {"notebookPath": path, "cellId": failing["id"],
                                            "source": failing["source"].replace("count_rows", "count"),
                                            "expectedSourceHash": failing["sourceHash"]})
    ran = reader.call("jupyter_run_cells", {"notebookPath": path, "startIndex": 0, "endIndex": failing["index"] + 1})
    assert ran["status"] == "ok", ran


def add(reader: Reader, path: str, bridge: bool) -> None:
    last = reader.call("jupyter_get_cells", {"notebookPath": path})["cells"][-1]["id"]
    if bridge:
        inserted = reader.call("jupyter_insert_cell", {"notebookPath": path, "referenceCellId": last, "activate": False,
                                                       "cells": [{"cellType": kind, "source": source}
                                                                 for kind, source in ANALYSIS]})
        ids = [cell["id"] for cell in inserted["cells"]]
    else:
        ids = []
        for kind, source in ANALYSIS:
            reference = ids[-1] if ids else last
            ids.append(reader.call("jupyter_insert_cell", {"notebookPath": path, "referenceCellId": reference,
                                                           "cellType": kind, "source": source,
                                                           "activate": False})["cell"]["id"])
    ran = reader.call("jupyter_run_cells", {"notebookPath": path, "cellIds": ["data", *ids]})
    assert ran["status"] == "ok", ran


def review(reader: Reader, path: str, bridge: bool) -> None:
    threads = reader.call("jupyter_list_comments", {"notebookPath": path})["threads"]
    by_id = {thread["threadId"]: thread for thread in threads}
    for thread_id in sorted(by_id):
        reader.call("jupyter_get_comment", {"notebookPath": path, "threadId": thread_id})
    reader.call("jupyter_reply_comment", {"notebookPath": path, "threadId": "t1",
                                          "message": "The spec changed last week; times two is right now."})
    reader.call("jupyter_reply_comment", {"notebookPath": path, "threadId": "t2",
                                          "message": "Good point: I will label it in the next change."})
    reader.call("jupyter_resolve_comment", {"notebookPath": path, "threadId": "t3",
                                            "resolutionMessage": "Still needed: the summary reads value_7."})


TASKS = (("fix", fix_notebook, fix), ("add", add_notebook, add), ("review", review_notebook, review))


def run_task(playwright, chromium: str, site, name: str, content: dict, script) -> dict:
    """One task on a freshly loaded page of the site: its notebook saved and opened, then the script."""
    path = f"{FOLDER}/{name}.ipynb"
    with browser_page(playwright, chromium) as page:
        page.goto(site.url)
        page.wait_for_function(site.ready, timeout=180_000, polling=100)
        page.wait_for_function(f"() => window.__bench.registered.length >= {site.tools}", timeout=60_000)
        page.evaluate("path => window.jupyterapp.serviceManager.contents.save(path, {type: 'directory'})", FOLDER)
        page.evaluate(SAVE_NOTEBOOK, [path, content])
        page.evaluate(OPEN, path)
        page.wait_for_function(f"() => window.jupyterapp.shell.currentWidget?.context?.path === {json.dumps(path)}",
                               timeout=60_000)
        page.wait_for_function(KERNEL_IDLE, timeout=180_000, polling=100)
        reader = Reader(page)
        listed = reader.tool_list()
        script(reader, path, site.label == "bridge")
        read = listed + sum(seen for _, seen, _ in reader.calls)
        return {"toolList": listed, "results": read - listed, "read": read, "calls": len(reader.calls),
                "payload": sum(payload for _, _, payload in reader.calls),
                "perCall": [{"tool": tool, "read": seen, "payload": payload} for tool, seen, payload in reader.calls]}


def measure_tasks(playwright, chromium: str, bridge, reference) -> dict:
    return {name: {site.label: run_task(playwright, chromium, site, name, make(), script)
                   for site in (bridge, reference)}
            for name, make, script in TASKS}


def print_tasks(tasks: dict) -> None:
    print("\nAgent tasks: characters the model reads (the tool list once, then every result) and calls\n")
    print(f"{'task':8} {'site':10} {'tool list':>10} {'results':>10} {'read':>10} {'calls':>6} {'ratio':>7}")
    for name, sites in tasks.items():
        ours, theirs = sites["bridge"], sites["reference"]
        for label, figures in sites.items():
            ratio = f"{figures['read'] / theirs['read']:.2f}x" if label == "bridge" else ""
            print(f"{name:8} {label:10} {figures['toolList']:>10,} {figures['results']:>10,} {figures['read']:>10,} "
                  f"{figures['calls']:>6} {ratio:>7}")
        met = ours["read"] <= TARGET_RATIO * theirs["read"] and ours["calls"] <= theirs["calls"]
        print(f"{'':8} {'target':10} {'':>10} {'':>10} {'':>10} {'':>6} "
              f"{'met' if met else 'NOT MET'} (at most {TARGET_RATIO}x the reference, no more calls)")
