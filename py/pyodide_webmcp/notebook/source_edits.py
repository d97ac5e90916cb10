"""The one guarded write of cell sources: every edit checked before any applies, then applied together.

jupyter_update_cell, jupyter_update_cells and a kit tool's `replace_cell_source` all write sources
through it, so each is refused unless the source is one an agent may write (within its bound, checked once
before anything is looked up, and markdown that loads nothing from another origin), the
cell still has the sourceHash the agent read and the agent may write it, and in Propose mode the human sees
the diff first.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Annotated, TypeVar

from pydantic import Field
from typing_extensions import NotRequired

from ..base import limits
from ..base.errors import ErrorCode, ToolError
from ..base.fields import STATUS_MEANING
from ..base.shapes import (
    CellRef,
    CellSnapshot,
    CellType,
    DiffKind,
    NotebookField,
    Outcome,
    ProposalOutcome,
)
from ..calls.current import CallContext
from ..calls.schema import require_max_bytes
from ..port import NotebookPort
from .guarded_write import Plan, check_source, reviewed_write
from .propose import diff_lines
from .provenance import record_history
from .resolve import find_cell, info_of
from .same_origin import require_same_origin
from .views import cell_ref, cell_snapshot


def check_written_source(field: str, source: str, cell_type: str) -> None:
    """A source an agent may write: within the write bound (INVALID_ARGUMENT with its bytes, never cut), and
    markdown that loads nothing from another origin as it renders."""
    require_max_bytes(field, source, limits.MAX_CELL_SOURCE_WRITE_BYTES)
    require_same_origin(field, source, cell_type)


STALE_SOURCE = "Cell changed since it was read."
"""What STALE_CELL says when a write's expected sourceHash no longer matches."""
Written = TypeVar("Written", bound=ProposalOutcome)


class CellResult(ProposalOutcome):
    """One written cell, its source included (clients read it back), or the human's denial."""

    notebook: NotRequired[NotebookField]
    cell: NotRequired[Annotated[CellSnapshot, Field(description="The cell as it is now.")]]
    status: NotRequired[Annotated[Outcome, Field(description=STATUS_MEANING)]]


class CellsResult(ProposalOutcome):
    """Several written cells, without the sources just sent, or the human's denial."""

    notebook: NotRequired[NotebookField]
    cells: NotRequired[Annotated[list[CellRef], Field(description="The cells, in notebook order.")]]
    status: NotRequired[Annotated[Outcome, Field(description=STATUS_MEANING)]]


def written(notebook: NotebookPort, cell_id: str) -> CellResult:
    """The written cell found again by id (the human may have moved it meanwhile), as a read shows it."""
    records = notebook.cells()
    index = find_cell(records, cell_id, notebook.path)
    return {"notebook": info_of(notebook, records), "cell": cell_snapshot(notebook.cell_json(index), index)}


def written_refs(notebook: NotebookPort, cell_ids: list[str]) -> CellsResult:
    records = notebook.cells()
    return {"notebook": info_of(notebook, records), "cells": [cell_ref(records, cell_id) for cell_id in cell_ids]}


@dataclass(frozen=True)
class SourceEdit:
    """A cell's complete new source, guarded by the sourceHash the agent read; `field` prefixes the argument
    names an error points at ("" for a tool's own arguments, "cells.0." for an item of a list)."""

    cell_id: str
    source: str
    expected_source_hash: str
    cell_type: CellType | None = None
    overwrite_unread: bool = False
    field: str = ""


def source_edit_plan(ctx: CallContext, edits: Sequence[SourceEdit],
                     result: Callable[[NotebookPort, list[str]], Written]) -> Callable[[NotebookPort], Plan[Written]]:
    """Every edit checked before any is applied (its size was, by `write_sources`); applied together, one undo step
    for the human."""

    def plan(notebook: NotebookPort) -> Plan[Written]:
        records = notebook.cells()
        indexes: list[int] = []
        for edit in edits:
            index = find_cell(records, edit.cell_id, notebook.path, "write")
            if index in indexes:
                raise ToolError(ErrorCode.INVALID_ARGUMENT, f'Cell "{edit.cell_id}" is given twice.', field=edit.field + "cellId")
            check_source(records[index], edit.expected_source_hash, STALE_SOURCE, replaces_all=True,
                         overwrite_unread=edit.overwrite_unread)
            require_same_origin(edit.field + "source", edit.source, edit.cell_type or records[index].type)
            indexes.append(index)

        def apply() -> Written:
            def change() -> None:
                for edit, index in zip(edits, indexes):
                    if edit.cell_type is not None and records[index].type != edit.cell_type:
                        notebook.set_cell_type(index, edit.cell_type)
                    notebook.set_source(index, edit.source)

            notebook.transact(change)
            for edit in edits:
                record_history(notebook, edit.cell_id, "agent", "edited", ctx.tool)
            return result(notebook, [edit.cell_id for edit in edits])

        def preview() -> list[tuple[DiffKind, str]]:
            lines: list[tuple[DiffKind, str]] = []
            for edit, index in zip(edits, indexes):
                if len(edits) > 1:
                    lines.append(("same", f"--- cell {index + 1}"))
                lines.extend(diff_lines(records[index].source, edit.source))
            return lines

        title = "The agent proposes this change:" if len(edits) == 1 else f"The agent proposes changing {len(edits)} cells:"
        return Plan(edits[0].cell_id, title, preview, apply)

    return plan


async def write_sources(ctx: CallContext, notebook_path: str | None, edits: Sequence[SourceEdit],
                        result: Callable[[NotebookPort, list[str]], Written]) -> Written:
    """Apply the edits through the guarded, reviewable write (Propose mode reviews every update); a source over
    the bound is refused first, before anything is looked up."""
    for edit in edits:
        require_max_bytes(edit.field + "source", edit.source, limits.MAX_CELL_SOURCE_WRITE_BYTES)
    return await reviewed_write(ctx, notebook_path, "update", source_edit_plan(ctx, edits, result))
