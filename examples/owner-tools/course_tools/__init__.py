"""A course site's own tools: the exercises of a notebook, and a solution marked for review.

An exercise is a markdown cell whose first line starts with "## Exercise", answered in the code cell
after it, which starts as a stub holding "# TODO".
"""

from pydantic import Field
from pyodide_webmcp.kit import (
    Arguments,
    CallContext,
    CellId,
    ErrorCode,
    ExpectedSourceHash,
    NotebookPath,
    SourceWritten,
    ToolError,
    cell_not_found,
    read_cells,
    replace_cell_source,
    tool,
)
from typing_extensions import TypedDict

HEADING = "## Exercise"
STUB = "# TODO"
MARK = "# ready for review"


class ExercisesArguments(Arguments):
    notebookPath: NotebookPath = None


class Exercise(TypedDict):
    title: str
    answerCellId: str | None
    answered: bool


class Exercises(TypedDict):
    exercises: list[Exercise]


@tool("course_list_exercises", "List the exercises", read_only=True)
async def list_exercises(args: ExercisesArguments, ctx: CallContext) -> Exercises:
    """List a notebook's exercises: each title, the code cell that answers it, and whether that cell was answered (no longer holds "# TODO").

    Use it before helping with an exercise; read the answer cell with jupyter_get_cells.
    """
    cells = await read_cells(ctx, args.notebookPath)
    exercises: list[Exercise] = []
    for index, cell in enumerate(cells):
        if cell.type == "markdown" and cell.source.startswith(HEADING):
            answer = next((c for c in cells[index + 1:] if c.type == "code"), None)
            exercises.append({"title": cell.source.splitlines()[0].lstrip("# ").strip(),
                              "answerCellId": answer.id if answer else None,
                              "answered": answer is not None and STUB not in answer.source})
    return {"exercises": exercises}


class MarkArguments(Arguments):
    notebookPath: NotebookPath = None
    cellId: CellId = Field(description="The answer cell (answerCellId of course_list_exercises).")
    expectedSourceHash: ExpectedSourceHash


@tool("course_mark_for_review", "Mark an answer for review", read_only=False, destructive=False, idempotent=True,
      reviewed=True, errors=(ErrorCode.CELL_NOT_FOUND, ErrorCode.STALE_CELL, ErrorCode.CELL_ACCESS_DENIED))
async def mark_for_review(args: MarkArguments, ctx: CallContext) -> SourceWritten:
    """Put "# ready for review" at the top of an answer cell, if it still matches the sourceHash you read; returns the cell with its new sourceHash.

    Only once the human says the answer is done.
    """
    cell = next((c for c in await read_cells(ctx, args.notebookPath) if c.id == args.cellId), None)
    if cell is None or cell.type != "code":  # hidden, missing or not code: the same error
        raise cell_not_found(args.cellId, args.notebookPath or "the current notebook")
    if cell.source.startswith(MARK):
        raise ToolError(ErrorCode.INVALID_ARGUMENT, "This answer is marked already.", field="cellId")
    return await replace_cell_source(ctx, args.notebookPath, args.cellId, f"{MARK}\n{cell.source}",
                                     args.expectedSourceHash)
