"""Pure pieces of running cells: target selection and one-line result summaries."""

from dataclasses import dataclass
from typing import Any, Optional, Sequence

from typing_extensions import TypedDict

from ..base import limits
from ..base.errors import ErrorCode, ToolError
from ..base.text import clamp_chars, one_line
from ..port import CellRecord
from .access import cell_not_found, guard_cell
from .outputs import serialize_output


@dataclass(frozen=True)
class Target:
    """A cell to run, remembered by id; `reported_id` is what a vanished target reports."""

    cell_id: str
    reported_id: str


def select_targets(
    records: Sequence[CellRecord],
    active_index: Optional[int],
    cell_ids: Optional[list[str]],
    start_index: Optional[int],
    end_index: Optional[int],
    path: str,
) -> list[Target]:
    """Resolve exactly one selector form to targets, checked for write access up front.

    `active_index` is the active cell the agent may see (kit.active_cell). A range skips cells the owner
    hid (the agent cannot see them); a hidden cell named by id reads as missing.
    """
    has_range = start_index is not None or end_index is not None
    if cell_ids is not None and has_range:
        raise _invalid("Give either cellIds or startIndex/endIndex, not both.", "cellIds")
    if cell_ids is not None:
        if not cell_ids:
            raise _invalid("cellIds must name at least one cell.", "cellIds")
        if len(cell_ids) > limits.MAX_CELL_IDS_PER_CALL:
            raise _invalid(f"At most {limits.MAX_CELL_IDS_PER_CALL} cells per call.", "cellIds")
        by_id = {record.id: record for record in records}
        for cell_id in cell_ids:
            if cell_id not in by_id:
                raise cell_not_found(cell_id, path)
            guard_cell(by_id[cell_id].access, "write", cell_id, path)
        return [Target(cell_id, cell_id) for cell_id in cell_ids]
    if has_range:
        indexes = range_indexes(start_index, end_index, len(records))
        visible = [records[index] for index in indexes if not records[index].hidden]
        if not visible:
            raise _invalid(f"No cell you can see is in cells {indexes.start} to {indexes.stop - 1}.", "startIndex")
        for record in visible:
            guard_cell(record.access, "write", record.id, path)
        return [Target(record.id, "") for record in visible]
    if active_index is None:
        raise _invalid("No selector was given and there is no active cell.", "cellIds")
    active = records[active_index]
    guard_cell(active.access, "write", active.id, path)
    return [Target(active.id, "")]


def range_indexes(start_index: Optional[int], end_index: Optional[int], cell_count: int) -> range:
    """The indexes of a run range, checked: both ends given, not empty or inverted, within the per-call bound,
    and starting at a cell that exists (an end past the last cell stops there)."""
    if start_index is None or end_index is None:
        raise _invalid("startIndex and endIndex go together.", "endIndex" if end_index is None else "startIndex")
    if end_index < start_index:
        raise _invalid("endIndex must not be before startIndex.", "endIndex")
    if end_index == start_index:
        raise _invalid("The range is empty: endIndex is exclusive (startIndex + 1 runs one cell).", "endIndex")
    if end_index - start_index > limits.MAX_CELL_IDS_PER_CALL:
        raise _invalid(f"A range may hold at most {limits.MAX_CELL_IDS_PER_CALL} cells.", "endIndex")
    if start_index >= cell_count:
        raise _invalid(f"startIndex {start_index} is past the last cell: the notebook has {cell_count} cells.",
                       "startIndex")
    return range(start_index, min(end_index, cell_count))


def _invalid(message: str, field: str) -> ToolError:
    return ToolError(ErrorCode.INVALID_ARGUMENT, message, field=field)


def needs_kernel(record: CellRecord) -> bool:
    return record.type == "code" and bool(record.source.strip())


def summarize_outputs(outputs: list[dict[str, Any]]) -> str:
    """One bounded line saying what a run produced."""
    parts = []
    for output in outputs:
        shown = serialize_output(output)
        if shown["outputType"] == "error":
            parts.append(f"{shown['ename']}: {shown['evalue']}")
            continue
        text = shown.get("text") or shown.get("html") or ""
        if text:
            parts.append(one_line(text))
        parts += [f"[{media['mimeType']}, {media['bytes']} bytes]" for media in shown.get("media", [])]
    summary = " | ".join(part for part in parts if part) or "no output"
    return clamp_chars(summary, limits.MAX_SUMMARY_CHARS)[0]


class ErrorDetails(TypedDict, total=False):
    ename: str
    evalue: str
    traceback: str


def error_details(outputs: list[dict[str, Any]]) -> ErrorDetails:
    """ename/evalue/traceback of the first error output, bounded like jupyter_get_cells (none without one)."""
    for output in outputs:
        if output.get("output_type") == "error":
            shown = serialize_output(output)
            return {"ename": shown["ename"], "evalue": shown["evalue"], "traceback": shown["traceback"]}
    return {}


def add_error_details(result: ErrorDetails, details: ErrorDetails) -> None:
    """Give a run's result (any shape with an error's fields) the details of its error."""
    result.update(details)
