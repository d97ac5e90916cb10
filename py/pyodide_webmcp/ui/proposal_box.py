"""Propose mode's review box: what the agent proposes, as a diff, with the human's Accept and Deny (and an
optional reason sent back on deny). Placed in the cell between its input and its output."""

from dataclasses import dataclass
from typing import Any, Sequence

from ..base.shapes import DiffKind
from .diff_view import diff_view
from .page import Page


@dataclass(frozen=True)
class ProposalBox:
    node: Any
    reason: Any  # the reason field
    accept: Any
    deny: Any


def proposal_box(page: Page, proposal_id: str, title: str, preview: Sequence[tuple[DiffKind, str]]) -> ProposalBox:
    box = page.element("section", **{"class": "jp-webmcp-proposal", "aria-label": "The agent's proposal"})
    box.dataset.proposalId = proposal_id
    box.appendChild(page.element("div", title, **{"class": "jp-webmcp-proposal-title"}))
    box.appendChild(diff_view(page, preview, "The proposed change"))
    actions = page.element("div", **{"class": "jp-webmcp-proposal-actions"})
    reason = page.element("input", **{"class": "jp-webmcp-proposal-reason jp-mod-styled", "type": "text",
                                      "aria-label": "Reason for denying (optional, sent to the agent)",
                                      "placeholder": "Reason (optional, sent to the agent on deny)"})
    accept = page.element("button", "Accept", **{"class": "jp-webmcp-proposal-accept jp-Dialog-button jp-mod-styled jp-mod-accept",
                                                  "type": "button"})
    deny = page.element("button", "Deny", **{"class": "jp-webmcp-proposal-deny jp-Dialog-button jp-mod-styled jp-mod-reject",
                                              "type": "button"})
    for node in (reason, deny, accept):
        actions.appendChild(node)
    box.appendChild(actions)
    return ProposalBox(box, reason, accept, deny)
