"""The owner's access levels, from the most an agent may do with a notebook or cell to the least, and the
defaults for those that carry none. The rules that read and apply them are `notebook/access.py`'s."""

from dataclasses import dataclass
from typing import Literal, get_args

from typing_extensions import TypeIs

VisibleAccess = Literal["write", "read"]
"""What the agent may do with a cell or notebook it can see."""
Access = Literal[VisibleAccess, "none"]
"""The owner's choice, from the most the agent may do to the least (none: hidden from it)."""
ACCESS_LEVELS: tuple[Access, ...] = get_args(Access)
ACCESS_LABELS: dict[Access, str] = {"write": "write", "read": "read only", "none": "hidden"}
"""Each level as the human's menus and the owner's tools say it."""


def is_access(value: object) -> TypeIs[Access]:
    return value in ACCESS_LEVELS


@dataclass(frozen=True)
class AccessDefaults:
    """Access of notebooks and cells that carry none in their metadata (the owner's settings)."""

    notebook: Access = "write"
    cell: Access = "write"
