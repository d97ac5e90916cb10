"""Propose mode in the page: the agent's proposal shown in its cell (ui/proposal_box.py), decided by the human."""

import asyncio
from typing import Literal, Optional, Union

from ..base.errors import ErrorCode, ToolError
from ..base.shapes import DiffKind, OptInReview, Outcome, ReviewedAction
from ..calls.current import current_call
from ..notebook.propose import new_proposal_id
from ..port import NOTEBOOK_END, AbortState, NotebookPort
from ..ui.page import Page
from ..ui.proposal_box import proposal_box

Decision = tuple[Union[Outcome, Literal["aborted"]], Optional[str]]
"""What settles a proposal: the human's outcome (or the call's abort), and the reason for a denial."""


class ProposalBoard:
    """The human's Direct/Propose switch, which other actions they also review, and what waits (never saved)."""

    def __init__(self, page: Page) -> None:
        self._page = page
        self.enabled = False
        self.reviewed_actions: set[OptInReview] = set()
        self._pending: dict[tuple[str, str], str] = {}

    def reviews(self, action: ReviewedAction) -> bool:
        """Whether an agent action waits for the human: edits always in Propose mode, others when chosen."""
        return self.enabled and (action == "update" or action in self.reviewed_actions)

    def pending_id(self, path: str, cell_id: str) -> Optional[str]:
        return self._pending.get((path, cell_id))

    async def decide(
        self, notebook: NotebookPort, cell_id: str, title: str, preview: list[tuple[DiffKind, str]], abort: AbortState
    ) -> tuple[Outcome, Optional[str], str]:
        """Show the proposal under the cell (NOTEBOOK_END: at the notebook's end) and wait: (accepted|denied,
        reason, proposal id), or raise ABORTED."""
        proposal_id = new_proposal_id()
        call = current_call()
        if call is not None:
            if cell_id == NOTEBOOK_END:
                call.wait_on(notebook, kind="human", proposalId=proposal_id)
            else:
                call.wait_on(notebook, kind="human", proposalId=proposal_id, cellId=cell_id)
        key = (notebook.path, cell_id)
        self._pending[key] = proposal_id
        decision: asyncio.Future[Decision] = asyncio.get_event_loop().create_future()

        def settle(outcome: Decision) -> None:
            if not decision.done():
                decision.set_result(outcome)

        box = proposal_box(self._page, proposal_id, title, preview)
        listen = self._page.listeners()
        box.accept.addEventListener("click", listen(lambda *_: settle(("accepted", None))))
        box.deny.addEventListener("click", listen(lambda *_: settle(("denied", str(box.reason.value)))))
        stop_watching = notebook.watch_proposal(cell_id, lambda why: settle(("denied", why)))
        stop_abort = abort.on_abort(lambda: settle(("aborted", None)))
        stop_following = notebook.keep_below_cell(cell_id, box.node)
        try:
            outcome, detail = await decision
        finally:
            stop_following()
            stop_abort()
            stop_watching()
            box.node.remove()
            listen.release()
            self._pending.pop(key, None)
        if outcome == "aborted":
            raise ToolError(ErrorCode.ABORTED, "The call was aborted; the proposal was withdrawn.", proposalId=proposal_id)
        return outcome, detail if outcome == "denied" else None, proposal_id
