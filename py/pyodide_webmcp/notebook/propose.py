"""Propose mode, pure parts: the before/after diff a human reviews, and the denial result."""

import difflib
import uuid
from typing import Literal, Optional

from typing_extensions import TypedDict

from ..base import limits
from ..base.errors import ErrorCode, ToolError
from ..base.shapes import DiffKind, Outcome
from ..base.text import clamp_utf8
from ..calls.current import CallContext
from ..port import NotebookPort


def diff_lines(before: str, after: str) -> list[tuple[DiffKind, str]]:
    """Line diff of a change, in reading order: a replaced run of lines reads as removed, then added."""
    old, new = before.split("\n"), after.split("\n")
    lines: list[tuple[DiffKind, str]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            lines.extend(("same", line) for line in old[i1:i2])
        else:
            lines.extend(("removed", line) for line in old[i1:i2])
            lines.extend(("added", line) for line in new[j1:j2])
    return lines


def new_proposal_id() -> str:
    return f"p-{uuid.uuid4().hex[:12]}"


class Denial(TypedDict):
    """A proposal the human said no to."""

    status: Literal["denied"]
    code: Literal["PROPOSAL_DENIED"]
    proposalId: str
    cellId: str
    reason: Optional[str]


def denied(proposal_id: str, cell_id: str, reason: Optional[str]) -> Denial:
    """The normal (non-error) result of a proposal the human said no to."""
    text = clamp_utf8(reason, limits.MAX_DENY_REASON_BYTES)[0] if reason and reason.strip() else None
    return {"status": "denied", "code": "PROPOSAL_DENIED", "proposalId": proposal_id, "cellId": cell_id, "reason": text}


async def ask_human(
    ctx: CallContext, notebook: NotebookPort, cell_id: str, title: str, preview: list[tuple[DiffKind, str]]
) -> tuple[Outcome, Optional[str], str]:
    """Put a proposal in front of the human (one per cell at a time) and wait for their decision."""
    proposals = ctx.lab.proposals
    existing = proposals.pending_id(notebook.path, cell_id)
    if existing is not None:
        raise ToolError(
            ErrorCode.PROPOSAL_ALREADY_PENDING,
            "This cell already has a proposal waiting for the human.",
            cellId=cell_id,
            existingProposalId=existing,
        )
    return await proposals.decide(notebook, cell_id, title, preview, ctx.abort)
