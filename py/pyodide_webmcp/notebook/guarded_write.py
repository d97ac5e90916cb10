"""The guarded, reviewable write, written once for every tool that changes a notebook.

A write is planned against the notebook as it is now (cells found, access and sourceHash checked),
shown to the human when they review that kind of action (Propose mode), planned again once they
accept (a human edit made while they decided still wins), then applied at once: between the last
check and the change nothing else runs.
"""

import inspect
from dataclasses import dataclass
from typing import Awaitable, Callable, Generic, Mapping, Optional, TypeVar, Union, cast

from ..base import limits
from ..base.errors import ErrorCode, ToolError
from ..base.hashing import parse_read_hash, read_hash
from ..base.shapes import DiffKind, ReviewedAction
from ..base.text import clamp_chars, utf8_len
from ..calls.current import CallContext
from ..port import CellRecord, NotebookPort
from .propose import Denial, ask_human, denied
from .resolve import resolve_notebook

Result = TypeVar("Result", bound=Mapping[str, object])
"""A written result's shape: a TypedDict holding the fields of a review too (`shapes.ProposalOutcome`)."""


def check_source(record: CellRecord, expected: str, stale_message: str, *, replaces_all: bool = False,
                 overwrite_unread: bool = False) -> None:
    """STALE_CELL unless the cell holds exactly the source the agent read; PARTIAL_READ when a write
    replacing the whole source was built on a read that showed only part of it."""
    source_hash, partial = parse_read_hash(expected)
    if source_hash != record.source_hash:
        raise ToolError(
            ErrorCode.STALE_CELL,
            stale_message,
            cellId=record.id,
            expectedSourceHash=expected,
            currentSourceHash=read_hash(record.source, whole=utf8_len(record.source) <= limits.MAX_CELL_SOURCE_BYTES),
            currentSourcePreview=clamp_chars(record.source, limits.MAX_PREVIEW_CHARS)[0],
        )
    if partial and replaces_all and not overwrite_unread:
        raise ToolError(
            ErrorCode.PARTIAL_READ,
            f"You read only part of this cell's {len(record.source):,} characters; this source would replace "
            "all of them. Nothing was written.",
            cellId=record.id,
            sourceLength=len(record.source),
        )


@dataclass(frozen=True)
class Plan(Generic[Result]):
    """A write checked against the notebook as it is now, ready to apply."""

    anchor: Optional[str]  # the cell the human's review box sits under, or NOTEBOOK_END; None: nothing changes
    title: str
    preview: Callable[[], list[tuple[DiffKind, str]]]
    apply: Callable[[], Union[Result, Awaitable[Result]]]


@dataclass(frozen=True)
class Applied(Generic[Result]):
    """The write happened: its result, and the proposal the human accepted (None: not reviewed)."""

    result: Result
    proposal_id: Optional[str] = None

    def payload(self) -> Result:
        """The result, with the accepted proposal's id; `status: "accepted"` unless the result has a status
        of its own (a run's ok / error / aborted)."""
        if self.proposal_id is None:
            return self.result
        accepted = {"status": "accepted", **self.result, "proposalId": self.proposal_id}
        return cast(Result, accepted)  # a TypeVar cannot say that Result holds the review's fields


@dataclass(frozen=True)
class Denied:
    """The human said no: a normal result, not an error."""

    proposal_id: str
    cell_id: str
    reason: Optional[str]

    def payload(self) -> Denial:
        return denied(self.proposal_id, self.cell_id, self.reason)


async def review_then(
    ctx: CallContext,
    notebook_path: Optional[str],
    action: ReviewedAction,
    plan: Callable[[NotebookPort], Plan[Result]],
) -> Union[Applied[Result], Denied]:
    """Check, let the human decide if they review `action`, check again, apply."""
    notebook = await resolve_notebook(ctx.lab, notebook_path, "write")
    planned = plan(notebook)
    proposal_id = None
    if planned.anchor is not None and ctx.lab.proposals.reviews(action):
        outcome, reason, proposal_id = await ask_human(ctx, notebook, planned.anchor, planned.title, planned.preview())
        if outcome == "denied":
            return Denied(proposal_id, planned.anchor, reason)
        notebook = await resolve_notebook(ctx.lab, notebook_path, "write")
        planned = plan(notebook)
    result = planned.apply()
    if inspect.isawaitable(result):
        result = await result
    return Applied(result, proposal_id)


async def reviewed_write(
    ctx: CallContext,
    notebook_path: Optional[str],
    action: ReviewedAction,
    plan: Callable[[NotebookPort], Plan[Result]],
) -> Result:
    """`review_then`, as the tool's result: what was applied (with the accepted proposal), or the denial."""
    outcome = await review_then(ctx, notebook_path, action, plan)
    if isinstance(outcome, Denied):
        return cast(Result, outcome.payload())  # a TypeVar cannot say that Result holds the denial's fields
    return outcome.payload()
