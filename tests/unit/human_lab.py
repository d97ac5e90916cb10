"""A notebook the human's revert can work on, in memory: the kit's MemoryNotebook with the two writes only taking
back needs, and the agent's changes as the page's adapter journals them."""

import itertools
from typing import Any

from pyodide_webmcp.kit.testing import MemoryNotebook, cell
from pyodide_webmcp.ui.agent_changes import AgentChange

_numbers = itertools.count(1)


class RevertableNotebook(MemoryNotebook):
    def insert_cell_json(self, index: int, cell_json: dict[str, Any]) -> None:
        self.data.insert(index, {"metadata": {}, **cell_json})

    def set_outputs(self, index: int, outputs: list[dict[str, Any]]) -> None:
        self.data[index]["outputs"] = outputs

    def index(self, cell_id: str) -> int:
        return next(i for i, c in enumerate(self.data) if c["id"] == cell_id)

    def neighbours(self, index: int) -> tuple:
        return (self.data[index - 1]["id"] if index > 0 else None,
                self.data[index + 1]["id"] if index + 1 < len(self.data) else None)

    # What an agent call does, journalled as adapter/notebook.py journals it

    def agent_edit(self, cell_id: str, source: str) -> AgentChange:
        index = self.index(cell_id)
        before, kind = self.data[index]["source"], self.data[index]["cell_type"]
        self.set_source(index, source)
        return AgentChange(next(_numbers), "2026-12-04T10:00:00.000Z", "jupyter_update_cell", "edited", cell_id, index,
                           before=before, after=source, before_type=kind, after_type=kind)

    def agent_insert(self, index: int, source: str) -> AgentChange:
        [cell_id] = self.insert_cells(index, [("code", source)])
        return AgentChange(next(_numbers), "t", "jupyter_insert_cell", "inserted", cell_id, index, after=source,
                           after_type="code", neighbours=self.neighbours(index))

    def agent_delete(self, cell_id: str) -> AgentChange:
        index = self.index(cell_id)
        change = AgentChange(next(_numbers), "t", "jupyter_delete_cell", "deleted", cell_id, index,
                             cell=dict(self.data[index]), neighbours=self.neighbours(index))
        self.delete_cell(index)
        return change

    def agent_move(self, cell_id: str, to_index: int) -> AgentChange:
        index = self.index(cell_id)
        neighbours = self.neighbours(index)
        self.move_cell(index, to_index)
        return AgentChange(next(_numbers), "t", "jupyter_move_cell", "moved", cell_id, index, to_index=to_index,
                           neighbours=neighbours)

    def agent_clear(self, cell_id: str) -> AgentChange:
        index = self.index(cell_id)
        change = AgentChange(next(_numbers), "t", "jupyter_clear_outputs", "cleared", cell_id, index,
                             cell={"outputs": self.data[index]["outputs"]})
        self.clear_outputs(index)
        return change


def notebook(*sources: str) -> RevertableNotebook:
    cells = [cell(source, cell_id=f"c{i}") for i, source in enumerate(sources)]
    for index, item in enumerate(cells):
        item["outputs"] = [{"output_type": "stream", "name": "stdout", "text": f"out {index}\n"}]
    return RevertableNotebook("n.ipynb", cells)
