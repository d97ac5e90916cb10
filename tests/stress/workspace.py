"""The privacy workspace: notebooks with random cell and notebook access, secrets planted wherever the owner
hid something, reshuffled every round.

A secret is a `SECRET` + 10 hex token (harness.SECRET). Everything hidden carries one: hidden cells'
ids, sources, outputs, metadata and review threads (ids, bodies, selected text, author names), the
cells and name of every hidden notebook. Nothing visible does, so any SECRET token in a result that
the call did not itself pass in is a leak.
"""

import json
import random
import uuid
from dataclasses import dataclass, field

from pyodide_webmcp.access import METADATA_KEY
from pyodide_webmcp.hashing import source_hash
from pyodide_webmcp.review_threads import REVIEW_KEY

from .arguments import Pools
from .harness import KERNELSPEC, StressPage, secret

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


def _hex(length: int = 10) -> str:
    return uuid.uuid4().hex[:length]


@dataclass
class Round:
    pools: Pools
    hidden: set[str] = field(default_factory=set)  # strings that name something hidden: ids, paths


class PrivacyWorkspace:
    def __init__(self, stress: StressPage, rng: random.Random):
        self.stress = stress
        self.rng = rng
        self.hidden_open = f"{DIRECTORY}/{secret()}.ipynb"
        self.created: list[str] = []

    def setup(self) -> None:
        stress = self.stress
        stress.save(DIRECTORY, None, "directory")
        stress.save(f"{DIRECTORY}/data.csv", "a,b\n1,2\n3,4\n", "file")
        stress.save(f"{DIRECTORY}/mod.py", "def f():\n    return 1\n", "file")
        for path in (*OPEN_VISIBLE, self.hidden_open):
            stress.save(path, self._notebook(path, "write" if path != self.hidden_open else "none")[0])
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
        for path in paths:
            access = "none" if path == self.hidden_open else rng.choices(["write", "read", "none"], [6, 2, 2])[0]
            notebook, cells, thread_ids = self._notebook(path, access)
            stress.page.evaluate(SET_NOTEBOOK, [path, notebook, [METADATA_KEY, REVIEW_KEY]])
            if access == "none":
                current.hidden.add(path)
            for cell_id, source, hidden in cells:
                (hidden_cells if hidden else visible_cells).append((cell_id, source))
            threads.extend(thread_ids)
        closed_hidden = f"{DIRECTORY}/closed-{secret()}.ipynb"
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
        pools.cell_ids = [cell_id for cell_id, _ in visible_cells + hidden_cells] + ["made-up", "v" + _hex()]
        pools.thread_ids = threads + ["thread-made-up"]
        pools.hashes += [source_hash(source) for _, source in visible_cells + hidden_cells]
        pools.sources = [source for _, source in visible_cells]
        hidden_name = self.hidden_open.split("/")[-1].removesuffix(".ipynb")
        pools.names = ["alpha", "alpha.ipynb", hidden_name, "", "a/b", ".ipynb", "x" * 300, "bad:name?",
                       *(["new-" + _hex(6)] if rng.random() < 0.3 else [])]
        pools.cell_count = 12
        return current

    def _notebook(self, path: str, access: str) -> tuple[dict, list[tuple[str, str, bool]], list[str]]:
        """A notebook with `access`, its cells (id, source, hidden) and its thread ids."""
        rng = self.rng
        cells, described, thread_ids, threads = [], [], [], []
        for _ in range(rng.randint(3, 10)):
            cell_access = "none" if access == "none" else rng.choices(["write", "read", "none"], [5, 2, 3])[0]
            cell = self._hidden_cell() if cell_access == "none" else self._visible_cell(cell_access)
            cells.append(cell)
            described.append((cell["id"], cell["source"], cell_access == "none"))
        for cell in rng.sample(cells, k=min(len(cells), rng.randint(0, 4))):
            hidden = cell["id"].startswith("SECRET")
            thread = self._thread(cell, hidden)
            threads.append(thread)
            thread_ids.append(thread["id"])
        metadata: dict = {"kernelspec": KERNELSPEC}
        if access != "write":
            metadata[METADATA_KEY] = {"notebookAccess": access} if rng.random() < 0.8 or access != "none" else {
                "notebookAccess": "everyone"}  # a damaged setting fails closed, as hidden
        if threads:
            metadata[REVIEW_KEY] = {"version": 1, "threads": threads}
        return {"nbformat": 4, "nbformat_minor": 5, "metadata": metadata, "cells": cells}, described, thread_ids

    def _visible_cell(self, access: str) -> dict:
        token = _hex()
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
            "cell_type": kind, "id": secret(),
            "source": f"{secret()} = 1  # {secret()}\n" if kind == "code" else f"# {secret()}\n\n{secret()}",
            "metadata": {METADATA_KEY: entry, "tags": [secret()], "custom": {"note": secret()}},
        }
        if kind == "code":
            cell.update(execution_count=7, outputs=[
                {"output_type": "stream", "name": "stdout", "text": f"{secret()}\n"},
                {"output_type": "execute_result", "execution_count": 7, "metadata": {},
                 "data": {"text/plain": secret(), "text/html": f"<b>{secret()}</b>", "application/json": {"k": secret()}}},
                {"output_type": "error", "ename": "ValueError", "evalue": secret(), "traceback": [secret()]},
            ])
        return cell

    def _thread(self, cell: dict, hidden: bool) -> dict:
        mark = secret if hidden else (lambda: "visible " + _hex())
        if hidden and self.rng.random() < 0.5:
            text = cell["source"][:16]
            anchor = {"kind": "source-range", "cellId": cell["id"],
                      "sourceRange": {"start": {"line": 0, "column": 0}, "end": {"line": 0, "column": len(text)}},
                      "selectedText": text, "prefix": "", "suffix": cell["source"][16:40]}
        else:
            anchor = {"kind": "cell", "cellId": cell["id"]}
        message = {"id": "m" + _hex(), "author": {"kind": "human", "name": mark()}, "createdAt": NOW, "body": mark()}
        return {"id": secret() if hidden else "t" + _hex(), "status": self.rng.choice(["open", "resolved"]),
                "createdAt": NOW, "updatedAt": NOW, "anchor": anchor, "messages": [message]}


def substitute(value, pairs: list[tuple[str, str]]):
    """`value` (JSON data) with every hidden string replaced by its missing twin."""
    text = json.dumps(value)
    for hidden, twin in pairs:
        text = text.replace(json.dumps(hidden)[1:-1], json.dumps(twin)[1:-1])
    return json.loads(text)
