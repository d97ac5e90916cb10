"""The privacy workspace: notebooks with random cell and notebook access, secrets planted wherever the owner
hid something, reshuffled every round.

A secret is a `SECRET` + 10 hex token (harness.SECRET). Everything hidden carries one: hidden cells'
ids, sources, outputs, metadata and review threads (ids, bodies, selected text, author names), the
cells and name of every hidden notebook. Nothing visible does, so any SECRET token in a result that
the call did not itself pass in is a leak. Every token comes from the run's seeded generator: a seed
replays the same workspace.

Each round also puts the human where the owner hid something: the cursor, a text selection and the
selected cells on hidden cells (often), a notebook whose only cell is hidden, a hidden notebook as the
current one; and a proposal waiting in Propose mode on a cell that the owner then hides (that cell's id
joins the round's hidden names, and any result that names it unasked is a leak too).
"""

import json
import random
from dataclasses import dataclass, field
from typing import Optional

from pyodide_webmcp.base.hashing import source_hash
from pyodide_webmcp.notebook.access import METADATA_KEY
from pyodide_webmcp.review.store import REVIEW_KEY

from .arguments import Pools
from .harness import KERNELSPEC, START, StressPage, secret

DIRECTORY = "priv"
OPEN_VISIBLE = ["priv/alpha.ipynb", "priv/bravo.ipynb"]
CLOSED_VISIBLE = "priv/charlie.ipynb"  # read from its file until an agent call opens it
NOW = "2026-11-30T12:00:00.000Z"

# Replace a notebook's cells and metadata: through its live model when open, else in its file.
SET_NOTEBOOK = """async ([path, notebook, keys]) => {
    const panel = Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.context && w.context.path === path);
    if (!panel) {
        await window.jupyterapp.serviceManager.contents.save(path, {type: 'notebook', format: 'json', content: notebook});
        return;
    }
    const model = panel.content.model;
    model.sharedModel.transact(() => {
        model.sharedModel.deleteCellRange(0, model.sharedModel.cells.length);
        model.sharedModel.insertCells(0, notebook.cells);
    });
    for (const key of keys) {
        if (key in notebook.metadata) { model.setMetadata(key, notebook.metadata[key]); } else { model.deleteMetadata(key); }
    }
}"""

OPEN_AS_HUMAN = """async path => {
    const widget = await window.jupyterapp.commands.execute('docmanager:open', {path});
    await widget.context.ready;
    return widget.id;
}"""

# The human's active cell, cells selected from it to `extend`, and a text selection in the active cell's editor.
HUMAN_FOCUS = """async ([path, active, extend]) => {
    const panel = Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.context && w.context.path === path);
    if (!panel || panel.content.widgets.length === 0) return;
    const notebook = panel.content;
    notebook.activeCellIndex = active;
    notebook.deselectAll();
    notebook.extendContiguousSelectionTo(extend);
    notebook.activeCellIndex = active;
    const cell = notebook.activeCell;
    await Promise.race([cell.ready, new Promise(resolve => setTimeout(resolve, 1000))]);  // a cell out of view may not render
    const lines = cell.model.sharedModel.getSource().split('\\n');
    cell.editor?.setSelection({start: {line: 0, column: 0}, end: {line: lines.length - 1, column: lines.at(-1).length}});
}"""

# Propose mode, switched as the human does (the command the Agent panel's toggle runs)
PROPOSE_MODE = """on => {
    const id = 'jupyterlite-pyodide-webmcp:toggle-propose-mode';
    if (window.jupyterapp.commands.isToggled(id) !== on) return window.jupyterapp.commands.execute(id);
}"""
HIDE_CELL = """([path, id]) => {
    const panel = Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.context && w.context.path === path);
    panel.content.model.sharedModel.cells.find(c => c.id === id).setMetadata('jupyterlite_webmcp', {access: 'none'});
}"""

ACTIVATE = """path => {
    const panel = Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.context && w.context.path === path);
    if (panel) window.jupyterapp.shell.activateById(panel.id);
}"""

# Close every notebook but the ones kept, shutting their kernels down (an agent may create notebooks).
CLOSE_OTHERS = """async keep => {
    for (const widget of Array.from(window.jupyterapp.shell.widgets('main'))) {
        if (!widget.context || keep.includes(widget.context.path)) continue;
        await widget.sessionContext?.shutdown().catch(() => {});
        widget.context.model.dirty = false;
        widget.dispose();
    }
}"""


@dataclass
class Round:
    pools: Pools
    hidden: set[str] = field(default_factory=set)  # strings that name something hidden: ids, paths
    hidden_later: set[str] = field(default_factory=set)  # ids of cells the owner hid after the agent saw them
    proposal: Optional[dict] = None  # what the agent got for an edit waiting on a cell the owner then hid


class PrivacyWorkspace:
    def __init__(self, stress: StressPage, rng: random.Random):
        self.stress = stress
        self.rng = rng
        self.hidden_open = f"{DIRECTORY}/{self._secret()}.ipynb"
        self.created: list[str] = []
        self.focus: list[tuple[str, int, int]] = []  # (path, active, selected to) where the human is, per round
        self.writable: dict[str, list[tuple[str, str]]] = {}  # (id, source) of the cells an agent may edit, per path

    def _secret(self) -> str:
        return secret(self.rng)

    def _hex(self, length: int = 10) -> str:
        return f"{self.rng.getrandbits(4 * length):0{length}x}"

    def setup(self) -> None:
        stress = self.stress
        stress.save(DIRECTORY, None, "directory")
        stress.save(f"{DIRECTORY}/data.csv", "a,b\n1,2\n3,4\n", "file")
        stress.save(f"{DIRECTORY}/mod.py", "def f():\n    return 1\n", "file")
        for path in (*OPEN_VISIBLE, self.hidden_open):
            stress.save(path, self._notebook(path, "write" if path != self.hidden_open else "none")[0])
            stress.share_kernel(path)
            stress.page.evaluate(OPEN_AS_HUMAN, path)
        stress.save(CLOSED_VISIBLE, self._notebook(CLOSED_VISIBLE, "write")[0])

    def keep(self) -> list[str]:
        return [*OPEN_VISIBLE, CLOSED_VISIBLE, self.hidden_open]

    def shuffle(self) -> Round:
        """New cells, access and threads everywhere; a new closed hidden notebook; a random current notebook."""
        rng, stress = self.rng, self.stress
        stress.page.evaluate(CLOSE_OTHERS, self.keep())
        current = Round(Pools())
        visible_cells: list[tuple[str, str]] = []
        hidden_cells: list[tuple[str, str]] = []
        threads: list[str] = []
        paths = [*OPEN_VISIBLE, CLOSED_VISIBLE, self.hidden_open]
        ranges: list[tuple[int, int]] = []
        self.focus = []
        for path in paths:
            access = "none" if path == self.hidden_open else rng.choices(["write", "read", "none"], [6, 2, 2])[0]
            notebook, cells, thread_ids = self._notebook(path, access)
            stress.page.evaluate(SET_NOTEBOOK, [path, notebook, [METADATA_KEY, REVIEW_KEY]])
            if path != CLOSED_VISIBLE:
                self._put_the_human(path, [hidden for _, _, hidden in cells])
            if access == "none":
                current.hidden.add(path)
            for cell_id, source, hidden in cells:
                (hidden_cells if hidden else visible_cells).append((cell_id, source))
            threads.extend(thread_ids)
            ranges += self._ranges([hidden for _, _, hidden in cells])
        closed_hidden = f"{DIRECTORY}/closed-{self._secret()}.ipynb"
        notebook, cells, thread_ids = self._notebook(closed_hidden, "none")
        stress.save(closed_hidden, notebook)
        current.hidden.add(closed_hidden)
        hidden_cells += [(cell_id, source) for cell_id, source, _ in cells]
        current.hidden |= {cell_id for cell_id, _ in hidden_cells} | {t for t in threads if t.startswith("SECRET")}
        stress.page.evaluate(ACTIVATE, rng.choice([*OPEN_VISIBLE, self.hidden_open]))

        pools = current.pools
        pools.notebook_paths = [*paths, closed_hidden, f"{DIRECTORY}/missing.ipynb", "nope.ipynb", DIRECTORY,
                                f"{DIRECTORY}/data.csv", None]
        pools.directories = ["", DIRECTORY, "missing-folder", f"{DIRECTORY}/data.csv", None]
        pools.files = [f"{DIRECTORY}/data.csv", f"{DIRECTORY}/mod.py", f"{DIRECTORY}/none.txt", DIRECTORY]
        pools.cell_ids = [cell_id for cell_id, _ in visible_cells + hidden_cells] + ["made-up", "v" + self._hex()]
        pools.thread_ids = threads + ["thread-made-up"]
        pools.hashes += [source_hash(source) for _, source in visible_cells + hidden_cells]
        pools.sources = [source for _, source in visible_cells]
        hidden_name = self.hidden_open.split("/")[-1].removesuffix(".ipynb")
        pools.names = ["alpha", "alpha.ipynb", hidden_name, "", "a/b", ".ipynb", "x" * 300, "bad:name?",
                       *(["new-" + self._hex(6)] if rng.random() < 0.3 else [])]
        pools.cell_count = 12
        pools.ranges = ranges
        self._hide_under_a_proposal(current)
        return current

    def _put_the_human(self, path: str, hidden: list[bool]) -> None:
        """The active cell, mostly a hidden one when there is one, and a few cells selected from it."""
        rng = self.rng
        hidden_at = [index for index, is_hidden in enumerate(hidden) if is_hidden]
        active = rng.choice(hidden_at) if hidden_at and rng.random() < 0.7 else rng.randrange(len(hidden))
        extend = max(0, min(len(hidden) - 1, active + rng.choice([-2, -1, 0, 0, 1, 2])))
        self.stress.page.evaluate(HUMAN_FOCUS, [path, active, extend])
        self.focus.append((path, active, extend))

    def _ranges(self, hidden: list[bool]) -> list[tuple[int, int]]:
        """Index ranges an agent may try: empty, inverted, past the end, and those covering only hidden cells."""
        count = len(hidden)
        found = [(index, index) for index in range(0, count + 2, 3)] + [(2, 1), (count, count + 1), (count + 5, count + 9)]
        start = None
        for index, is_hidden in enumerate([*hidden, False]):
            if is_hidden and start is None:
                start = index
            elif not is_hidden and start is not None:
                found.append((start, index))
                start = None
        return found

    def _hide_under_a_proposal(self, current: Round) -> None:
        """Propose mode on, an agent's edit waiting on a visible cell of the current notebook, then the owner hides
        that cell: the proposal is withdrawn as for a deleted cell, and the cell is hidden from then on."""
        stress, rng = self.stress, self.rng
        path = rng.choice(OPEN_VISIBLE)
        writable = self.writable.get(path, [])
        if not writable or rng.random() < 0.5:
            return
        cell_id, source = rng.choice(writable)
        stress.page.evaluate(PROPOSE_MODE, True)
        try:
            stress.page.evaluate(START, ["jupyter_update_cell", {"notebookPath": path, "cellId": cell_id,
                                         "source": "proposed = 1", "expectedSourceHash": source_hash(source)}, "proposal"])
            stress.page.wait_for_selector(".jp-webmcp-proposal", state="attached", timeout=10_000)
            stress.page.evaluate(HIDE_CELL, [path, cell_id])
            outcome = stress.page.evaluate("() => window.__started.proposal")
        finally:
            stress.page.evaluate(PROPOSE_MODE, False)
        current.hidden_later.add(cell_id)
        current.hidden.add(cell_id)
        current.proposal = outcome

    def _notebook(self, path: str, access: str) -> tuple[dict, list[tuple[str, str, bool]], list[str]]:
        """A notebook with `access`, its cells (id, source, hidden) and its thread ids; sometimes its only cell is
        a hidden one."""
        rng = self.rng
        cells, described, thread_ids, threads = [], [], [], []
        only_hidden = rng.random() < 0.15
        for _ in range(1 if only_hidden else rng.randint(3, 10)):
            cell_access = "none" if access == "none" or only_hidden else rng.choices(["write", "read", "none"], [5, 2, 3])[0]
            cell = self._hidden_cell() if cell_access == "none" else self._visible_cell(cell_access)
            cells.append(cell)
            described.append((cell["id"], cell["source"], cell_access == "none"))
        for cell in rng.sample(cells, k=min(len(cells), rng.randint(0, 4))):
            hidden = cell["id"].startswith("SECRET")
            thread = self._thread(cell, hidden)
            threads.append(thread)
            thread_ids.append(thread["id"])
        self.writable[path] = [(cell["id"], cell["source"]) for cell in cells if access == "write"
                               and not cell["id"].startswith("SECRET") and not cell["metadata"].get(METADATA_KEY)]
        metadata: dict = {"kernelspec": KERNELSPEC}
        if access != "write":
            metadata[METADATA_KEY] = {"notebookAccess": access} if rng.random() < 0.8 or access != "none" else {
                "notebookAccess": "everyone"}  # a damaged setting fails closed, as hidden
        if threads:
            metadata[REVIEW_KEY] = {"version": 1, "threads": threads}
        return {"nbformat": 4, "nbformat_minor": 5, "metadata": metadata, "cells": cells}, described, thread_ids

    def _visible_cell(self, access: str) -> dict:
        token = self._hex()
        kind = self.rng.choice(["code", "code", "markdown", "raw"])
        source = f"v_{token} = {self.rng.randint(0, 99)}\nprint(v_{token})" if kind == "code" else f"## Visible {token}"
        cell = {"cell_type": kind, "id": f"v{token}", "metadata": {}, "source": source}
        if access != "write":
            cell["metadata"][METADATA_KEY] = {"access": access}
        if kind == "code":
            cell.update(execution_count=1, outputs=[{"output_type": "stream", "name": "stdout", "text": "visible\n"}])
        return cell

    def _hidden_cell(self) -> dict:
        rng = self.rng
        kind = rng.choice(["code", "code", "markdown", "raw"])
        entry = rng.choice([{"access": "none"}, {"access": "none"}, {"access": "Write"}, 5, None])
        cell = {
            "cell_type": kind, "id": self._secret(),
            "source": f"{self._secret()} = 1  # {self._secret()}\n" if kind == "code" else f"# {self._secret()}\n\n{self._secret()}",
            "metadata": {METADATA_KEY: entry, "tags": [self._secret()], "custom": {"note": self._secret()}},
        }
        if kind == "code":
            cell.update(execution_count=7, outputs=[
                {"output_type": "stream", "name": "stdout", "text": f"{self._secret()}\n"},
                {"output_type": "execute_result", "execution_count": 7, "metadata": {},
                 "data": {"text/plain": self._secret(), "text/html": f"<b>{self._secret()}</b>",
                          "application/json": {"k": self._secret()}}},
                {"output_type": "error", "ename": "ValueError", "evalue": self._secret(), "traceback": [self._secret()]},
            ])
        return cell

    def _thread(self, cell: dict, hidden: bool) -> dict:
        mark = self._secret if hidden else (lambda: "visible " + self._hex())
        if hidden and self.rng.random() < 0.5:
            text = cell["source"][:16]
            anchor = {"kind": "source-range", "cellId": cell["id"],
                      "sourceRange": {"start": {"line": 0, "column": 0}, "end": {"line": 0, "column": len(text)}},
                      "selectedText": text, "prefix": "", "suffix": cell["source"][16:40]}
        else:
            anchor = {"kind": "cell", "cellId": cell["id"]}
        message = {"id": "m" + self._hex(), "author": {"kind": "human", "name": mark()}, "createdAt": NOW, "body": mark()}
        return {"id": self._secret() if hidden else "t" + self._hex(), "status": self.rng.choice(["open", "resolved"]),
                "createdAt": NOW, "updatedAt": NOW, "anchor": anchor, "messages": [message]}


def substitute(value, pairs: list[tuple[str, str]]):
    """`value` (JSON data) with every hidden string replaced by its missing twin."""
    text = json.dumps(value)
    for hidden, twin in pairs:
        text = text.replace(json.dumps(hidden)[1:-1], json.dumps(twin)[1:-1])
    return json.loads(text)
