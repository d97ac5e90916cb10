"""Kernels as the tools name them: the kernel a name or language means, and what each status JupyterLab
reports means for the tools. Pure."""

from typing import Literal, Optional, get_args

from ..base.errors import ErrorCode, ToolError
from ..base.shapes import KernelStatus

KernelLoss = Literal["died", "restarted"]
"""The kernel went away under an execution: it died, or it restarted (its state is gone)."""
KERNEL_LOSSES: tuple[KernelLoss, ...] = get_args(KernelLoss)

_REPORTED: dict[str, KernelStatus] = {
    "idle": "idle",
    "busy": "busy",
    "starting": "starting",
    "restarting": "restarting",
    "autorestarting": "restarting",
    "dead": "dead",
    "terminating": "dead",
    "unknown": "unknown",
}
UP: tuple[KernelStatus, ...] = ("idle", "busy")
"""A kernel that answers."""
STARTING: tuple[KernelStatus, ...] = ("starting", "unknown")
"""A kernel on its way up: one that was up passes through these again only when it restarted."""


def kernel_status(reported: str) -> KernelStatus:
    """A status JupyterLab reports, as the tools report it (autorestarting is restarting, terminating is dead)."""
    return _REPORTED.get(reported, "unknown")


def kernel_loss(status: KernelStatus) -> Optional[KernelLoss]:
    """What a status seen while an execution runs means for it: the kernel died, restarted, or neither."""
    if status == "dead":
        return "died"
    if status == "restarting":
        return "restarted"
    return None


def match_kernel(requested: Optional[str], specs: list[tuple[str, str]]) -> Optional[str]:
    """The kernel a requested name or language means (case-insensitive), or None."""
    if not requested:
        return None
    wanted = requested.strip().lower()
    for name, _language in specs:
        if name.lower() == wanted:
            return name
    for name, language in specs:
        if language.lower() == wanted:
            return name
    return None


def no_kernel(path: str) -> ToolError:
    """A notebook that needs a kernel to run and has none attached."""
    return ToolError(ErrorCode.KERNEL_UNAVAILABLE, f"{path} has no kernel attached.", path=path)
