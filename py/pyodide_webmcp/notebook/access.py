"""Owner-set agent access to cells and notebooks, as pure rules.

Access lives under one metadata key on the cell or notebook, so it travels with
the .ipynb file. Only the human sets it; no tool can. A cell stores it as
`access`; a notebook as `notebookAccess` (the reference extension's field), and notebooks
written by earlier versions of this bridge carry `access`: both are read and
the stricter wins. Absent means the owner's default (write unless the settings
say otherwise); anything unreadable means none.
"""

from typing import Any, Literal, get_args

from typing_extensions import TypeIs

from ..base.errors import ErrorCode, ToolError

METADATA_KEY = "jupyterlite_webmcp"
CELL_FIELD = "access"
NOTEBOOK_FIELD = "notebookAccess"
LEGACY_NOTEBOOK_FIELD = "access"
VisibleAccess = Literal["write", "read"]
"""What the agent may do with a cell or notebook it can see."""
Access = Literal[VisibleAccess, "none"]
"""The owner's choice, from the most the agent may do to the least (none: hidden from it)."""
ACCESS_LEVELS: tuple[Access, ...] = get_args(Access)
ACCESS_LABELS: dict[Access, str] = {"write": "write", "read": "read only", "none": "hidden"}  # as the menus say them
Intent = Literal["read", "view", "write"]  # view: read, in an open notebook

_ABSENT = object()


def is_access(value: object) -> TypeIs[Access]:
    return value in ACCESS_LEVELS


def _entry(metadata: Any) -> Any:
    """The stored entry under METADATA_KEY, or _ABSENT."""
    return metadata.get(METADATA_KEY, _ABSENT) if isinstance(metadata, dict) else _ABSENT


def _level(entry: Any, field: str, default: Access) -> Access:
    if entry is _ABSENT:
        return default
    if not isinstance(entry, dict):
        return "none"  # a damaged entry fails closed
    value = entry.get(field, _ABSENT)
    if value is _ABSENT:
        return default
    return value if is_access(value) else "none"


def stricter(*levels: Access) -> Access:
    return max(levels, key=ACCESS_LEVELS.index)


def cell_access(metadata: Any, default: Access = "write") -> Access:
    """A cell's access from its metadata; `default` (the owner's setting) when it has none."""
    return _level(_entry(metadata), CELL_FIELD, default)


def notebook_access(metadata: Any, default: Access = "write") -> Access:
    """A notebook's access from its metadata: the reference extension's field and the legacy one, the stricter winning;
    `default` (the owner's setting) when it has neither."""
    entry = _entry(metadata)
    if entry is _ABSENT or (isinstance(entry, dict) and NOTEBOOK_FIELD not in entry and LEGACY_NOTEBOOK_FIELD not in entry):
        return default
    return stricter(_level(entry, NOTEBOOK_FIELD, "write"), _level(entry, LEGACY_NOTEBOOK_FIELD, "write"))


def next_access(access: Access) -> Access:
    """The human's cycle: write -> read -> none -> write."""
    return ACCESS_LEVELS[(ACCESS_LEVELS.index(access) + 1) % len(ACCESS_LEVELS)]


def _entry_copy(metadata: Any) -> dict[str, Any]:
    entry = _entry(metadata)
    return dict(entry) if isinstance(entry, dict) else {}


def with_cell_access(metadata: Any, access: Access) -> dict[str, Any]:
    """The cell's entry (under METADATA_KEY) with `access` set; history and unknown fields kept."""
    entry = _entry_copy(metadata)
    entry[CELL_FIELD] = access
    return entry


def with_notebook_access(metadata: Any, access: Access) -> dict[str, Any]:
    """The notebook's entry with the reference extension's field set; the legacy field goes, so it cannot override the choice."""
    entry = _entry_copy(metadata)
    entry.pop(LEGACY_NOTEBOOK_FIELD, None)
    entry[NOTEBOOK_FIELD] = access
    return entry


def cell_not_found(cell_id: str, path: str) -> ToolError:
    """The one error for a cell that does not exist or that the owner hid."""
    return ToolError(
        ErrorCode.CELL_NOT_FOUND, f'No cell with id "{cell_id}" in "{path}".', cellId=cell_id, notebookPath=path
    )


def notebook_not_found(path: str) -> ToolError:
    """The one error for a notebook that does not exist or that the owner hid."""
    return ToolError(ErrorCode.NOTEBOOK_NOT_FOUND, f'No file exists at "{path}".', path=path)


def not_a_notebook(path: str) -> ToolError:
    return ToolError(ErrorCode.NOTEBOOK_NOT_FOUND, f'"{path}" is not a notebook JupyterLab can open.', path=path)


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
