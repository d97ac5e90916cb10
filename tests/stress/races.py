"""Scenario 3: the human and the agent on the same cells at once.

The human types real keystrokes into a cell's editor (Playwright's keyboard, letters no command-mode
shortcut uses) and edits through the model (inserts, as another extension or collaborator would),
while an agent in the page runs read-modify-write cycles with `sourceHash` (jupyter_get_cells, then
jupyter_update_cell or jupyter_replace_in_cell). A recorder in the page logs every change to every
cell's shared text, in order. Afterwards:

- every keystroke typed is in the final text (agent writes append, so none may remove one): lost = typed
  letters missing from the final texts;
- every agent write that was applied found the very text the agent had read (else it was applied over a
  newer human edit);
- replaying the log from the initial texts gives the final texts, and every change in it is one of the
  accepted operations: a keystroke, a model edit, or an accepted agent write with exactly its result.
"""

import random
from dataclasses import dataclass, field

from .harness import KERNELSPEC, PANEL, StressPage

PATH = "race.ipynb"
CELLS = 4
HUMAN_LETTERS = "eghnpqtuw"  # bound to nothing in command mode, so a keystroke is never a command

START_RECORDER = """path => {
    const panel = Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.context && w.context.path === path);
    const log = [];
    const stops = panel.content.model.sharedModel.cells.map(cell => {
        const observer = event => log.push({cell: cell.id, delta: event.delta});
        cell.ysource.observe(observer);
        return () => cell.ysource.unobserve(observer);
    });
    window.__raceLog = {log, stop: () => stops.forEach(stop => stop())};
}"""

STOP_RECORDER = """path => {
    window.__raceLog.stop();
    const panel = Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.context && w.context.path === path);
    const final = Object.fromEntries(panel.content.model.sharedModel.cells.map(c => [c.id, c.getSource()]));
    const editors = Object.fromEntries(panel.content.widgets.map(w => [w.model.id, w.editor.model.sharedModel.getSource()]));
    return {log: window.__raceLog.log, final, editors};
}"""

# The agent: read a cell, think a little, write it back with the hash it read.
AGENT = """([path, cycles, seed]) => {
    let state = seed;
    const random = () => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648);
    const run = async () => {
        const tools = Object.fromEntries((await document.modelContext.getTools()).map(t => [t.name, t]));
        const call = async (name, input) => JSON.parse(JSON.parse(
            await document.modelContext.executeTool(tools[name], input, {})).content[0].text);
        const panel = Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.context && w.context.path === path);
        const records = [];
        for (let i = 0; i < cycles; i++) {
            const active = panel.content.activeCell?.model.id;
            const ids = panel.content.model.sharedModel.cells.map(c => c.id);
            const id = random() < 0.5 && active ? active : ids[Math.floor(random() * ids.length)];
            const cell = (await call('jupyter_get_cells', {notebookPath: path, cellIds: [id]})).cells[0];
            await new Promise(resolve => setTimeout(resolve, Math.floor(random() * 25)));
            const token = `[A${i}]`;
            const anchor = (cell.source.match(/#[0-9]+:/) || [null])[0];  // a keystroke may have split it
            const replace = anchor !== null && random() < 0.5;
            const result = replace
                ? await call('jupyter_replace_in_cell', {notebookPath: path, cellId: id, expectedSourceHash: cell.sourceHash,
                                                        old: anchor, new: anchor + token})
                : await call('jupyter_update_cell', {notebookPath: path, cellId: id, expectedSourceHash: cell.sourceHash,
                                                     source: cell.source + token});
            records.push({id, read: cell.source, expected: replace ? cell.source.replace(anchor, anchor + token)
                          : cell.source + token, accepted: !result.error, error: result.error || null});
        }
        return records;
    };
    window.__agent = {done: false};
    run().then(records => Object.assign(window.__agent, {done: true, records}),
               error => Object.assign(window.__agent, {done: true, failed: String(error)}));
}"""

# Resolves once the page has drawn two more frames: whatever the editor deferred to the next frame is done.
NEXT_FRAMES = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"

MODEL_EDIT = """([path, index, fraction, text]) => {
    const panel = Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.context && w.context.path === path);
    const cell = panel.content.model.sharedModel.cells[index];
    const source = cell.getSource();
    const at = Math.max(source.indexOf(':') + 1, Math.floor(source.length * fraction));  // the anchor stays whole
    cell.updateSource(at, at, text);
}"""


@dataclass
class RaceFigures:
    races: int = 0
    accepted: int = 0
    stale: int = 0
    other_errors: int = 0
    keystrokes: int = 0
    model_edits: int = 0
    keystrokes_lost: int = 0
    applied_over_newer_edit: int = 0
    unexplained_changes: int = 0
    editor_model_mismatch: int = 0
    examples: list[str] = field(default_factory=list)

    def note(self, text: str) -> None:
        if len(self.examples) < 8:
            self.examples.append(text[:500])


def setup(stress: StressPage) -> None:
    cells = [{"cell_type": "code", "id": f"race{k}", "metadata": {}, "source": f"#{k}:", "outputs": [],
              "execution_count": None} for k in range(CELLS)]
    stress.save(PATH, {"nbformat": 4, "nbformat_minor": 5, "cells": cells, "metadata": {"kernelspec": KERNELSPEC}})
    stress.call("jupyter_open_notebook", {"path": PATH})


def run_races(stress: StressPage, rng: random.Random, races: int, chunk: int = 100) -> RaceFigures:
    """`races` agent read-modify-write cycles against a human typing and editing, in chunks."""
    figures = RaceFigures()
    setup(stress)
    page = stress.page
    done = 0
    while done < races:
        cycles = min(chunk, races - done)
        initial = {f"race{k}": source for k, source in enumerate(_sources(stress))}
        page.evaluate(START_RECORDER, PATH)
        typed = _focus(stress, rng.randrange(CELLS))
        page.evaluate(AGENT, [PATH, cycles, rng.randrange(1, 2**31)])
        while not page.evaluate("() => window.__agent.done"):
            roll = rng.random()
            if roll < 0.75:
                burst = "".join(rng.choice(HUMAN_LETTERS) for _ in range(rng.randint(1, 6)))
                page.keyboard.type(burst)
                typed += len(burst)
            elif roll < 0.9:
                figures.model_edits += 1
                page.evaluate(MODEL_EDIT, [PATH, rng.randrange(CELLS), rng.random(), f"<M{figures.model_edits}>"])
            else:
                typed += _focus(stress, rng.randrange(CELLS))
        page.evaluate(NEXT_FRAMES)  # the editor has handled the last keystrokes
        agent = page.evaluate("() => window.__agent")
        recorded = page.evaluate(STOP_RECORDER, PATH)
        if "failed" in agent:
            raise RuntimeError(f"the agent loop failed: {agent['failed']}")
        figures.keystrokes += typed
        _check(figures, initial, agent["records"], recorded, typed)
        done += cycles
    return figures


def _sources(stress: StressPage) -> list[str]:
    return stress.page.evaluate(
        """path => Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.context && w.context.path === path)
            .content.model.sharedModel.cells.map(c => c.getSource())""", PATH)


def _focus(stress: StressPage, index: int) -> int:
    """Click into a cell's editor, at the end of its text, as the human would. Returns keystrokes typed (0)."""
    panel = stress.page.evaluate(f"path => {PANEL}.id", PATH)  # other notebooks may be open in the page
    editor = stress.page.locator(f"#{panel} .jp-Cell .cm-content").nth(index)
    editor.click()
    stress.page.keyboard.press("Control+End")
    return 0


def _apply(text: str, delta: list[dict]) -> str:
    out, at = [], 0
    for op in delta:
        if "retain" in op:
            out.append(text[at:at + op["retain"]])
            at += op["retain"]
        elif "insert" in op:
            out.append(op["insert"])
        elif "delete" in op:
            at += op["delete"]
    return "".join(out) + text[at:]


def _is_typing(delta: list[dict]) -> bool:
    inserted = "".join(op.get("insert", "") for op in delta)
    return all("delete" not in op for op in delta) and len(inserted) == 1 and inserted in HUMAN_LETTERS


def _is_model_edit(delta: list[dict]) -> bool:
    inserted = "".join(op.get("insert", "") for op in delta)
    return all("delete" not in op for op in delta) and inserted.startswith("<M") and inserted.endswith(">")


def _check(figures: RaceFigures, initial: dict, records: list[dict], recorded: dict, typed: int) -> None:
    texts = dict(initial)
    accepted = [r for r in records if r["accepted"]]
    figures.races += len(records)
    figures.accepted += len(accepted)
    figures.stale += sum(r["error"] == "STALE_CELL" for r in records)
    figures.other_errors += sum(not r["accepted"] and r["error"] != "STALE_CELL" for r in records)
    waiting = {}  # cell id -> accepted writes not yet seen in the log, in order
    for record in accepted:
        waiting.setdefault(record["id"], []).append(record)
    for event in recorded["log"]:
        cell, delta = event["cell"], event["delta"]
        before = texts[cell]
        after = _apply(before, delta)
        texts[cell] = after
        if _is_typing(delta) or _is_model_edit(delta):
            continue
        write = next((w for w in waiting.get(cell, []) if w["expected"] == after), None)
        if write is None:
            figures.unexplained_changes += 1
            figures.note(f"a change no accepted operation explains in {cell}: {before!r} -> {after!r}")
            continue
        waiting[cell].remove(write)
        if write["read"] != before:
            figures.applied_over_newer_edit += 1
            figures.note(f"agent write applied over a newer edit in {cell}: read {write['read']!r}, found {before!r}")
    for cell, writes in waiting.items():
        if writes:
            figures.unexplained_changes += len(writes)
            figures.note(f"{len(writes)} accepted write(s) to {cell} never reached the model")
    for cell, final in recorded["final"].items():
        if texts[cell] != final:
            figures.unexplained_changes += 1
            figures.note(f"replaying the log does not give {cell}'s final text: {texts[cell]!r} vs {final!r}")
        if recorded["editors"].get(cell) != final:
            figures.editor_model_mismatch += 1
    present = sum(final.count(letter) for final in recorded["final"].values() for letter in HUMAN_LETTERS)
    before = sum(text.count(letter) for text in initial.values() for letter in HUMAN_LETTERS)
    lost = typed - (present - before)
    if lost:
        figures.keystrokes_lost += max(lost, 0)
        figures.note(f"{typed} letters typed, {present - before} arrived")
