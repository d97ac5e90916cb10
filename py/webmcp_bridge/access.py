"""Owner-set agent access to cells and notebooks, as pure rules.

Access lives under one metadata key on the cell or notebook, so it travels with
the .ipynb file. Only the human sets it; no tool can.
"""

from typing import Any, Literal

from .errors import ErrorCode, ToolError

METADATA_KEY = "jupyterlite_webmcp"
ACCESS_LEVELS = ("write", "read", "none")
Access = Literal["write", "read", "none"]
Intent = Literal["read", "write"]


def access_of(metadata: Any) -> Access:
    """The access stored in a cell's or notebook's metadata; absent is write, anything unknown is none."""
    entry = metadata.get(METADATA_KEY) if isinstance(metadata, dict) else None
    if not isinstance(entry, dict) or "access" not in entry:
        return "write"
    value = entry["access"]
    return value if value in ACCESS_LEVELS else "none"


def next_access(access: Access) -> Access:
    """The human's cycle: write -> read -> none -> write."""
    return ACCESS_LEVELS[(ACCESS_LEVELS.index(access) + 1) % len(ACCESS_LEVELS)]


def with_access(metadata: Any, access: Access) -> dict[str, Any]:
    """The metadata entry (under METADATA_KEY) with `access` set, history kept."""
    entry = metadata.get(METADATA_KEY) if isinstance(metadata, dict) else None
    entry = dict(entry) if isinstance(entry, dict) else {}
    entry["access"] = access
    return entry


def cell_not_found(cell_id: str, path: str) -> ToolError:
    """The one error for a cell that does not exist or that the owner hid."""
    return ToolError(ErrorCode.CELL_NOT_FOUND, f'No cell "{cell_id}" in {path}.', cellId=cell_id)


def notebook_not_found(path: str) -> ToolError:
    """The one error for a notebook that does not exist or that the owner hid."""
    return ToolError(ErrorCode.NOTEBOOK_NOT_FOUND, f'No notebook at "{path}".', path=path)


def guard_cell(access: Access, intent: Intent, cell_id: str, path: str) -> None:
    if access == "none":
        raise cell_not_found(cell_id, path)
    if access == "read" and intent == "write":
        raise ToolError(
            ErrorCode.CELL_ACCESS_DENIED,
            f'The notebook owner made cell "{cell_id}" read-only for agents.',
            cellId=cell_id,
            access=access,
        )


def guard_notebook(access: Access, intent: Intent, path: str) -> None:
    if access == "read" and intent == "write":
        raise ToolError(
            ErrorCode.NOTEBOOK_ACCESS_DENIED,
            f"The notebook owner made {path} read-only for agents.",
            path=path,
            access=access,
        )
