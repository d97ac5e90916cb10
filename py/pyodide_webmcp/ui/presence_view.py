"""Who works in this lab: you, and the browser agent once it has made a call, with what it does now ("editing
cell 5", "waiting for you: a proposal") or its last action and when."""

from typing import Callable, Sequence

from .activity import AGENT_NAME, ActivityLog, Doing, doing_text, since_text, utc_now
from .page import Page


class PresenceView:
    def __init__(self, page: Page, log: ActivityLog, doing: Callable[[], Sequence[Doing]]):
        self._page = page
        self._log = log
        self._doing = doing
        self.node = page.element("ul", **{"class": "jp-webmcp-presence", "aria-label": "Who works in this lab"})
        you = page.element("li", **{"class": "jp-webmcp-participant", "data-who": "human"})
        you.appendChild(page.element("span", "", **{"class": "jp-webmcp-dot", "aria-hidden": "true"}))
        you.appendChild(page.element("span", "You", **{"class": "jp-webmcp-name"}))
        self._agent = page.element("li", **{"class": "jp-webmcp-participant", "data-who": "agent", "data-state": "idle"})
        self._agent.appendChild(page.element("span", "", **{"class": "jp-webmcp-dot", "aria-hidden": "true"}))
        self._agent.appendChild(page.element("span", AGENT_NAME, **{"class": "jp-webmcp-name"}))
        self._status = page.element("span", **{"class": "jp-webmcp-presence-status", "role": "status"})
        self._agent.appendChild(self._status)
        self._agent.hidden = True
        for node in (you, self._agent):
            self.node.appendChild(node)

    def draw(self) -> None:
        now = self._doing()
        last = self._log.last()
        if not now and last is None:
            return
        self._agent.hidden = False
        if now:
            state, text = doing_text(now[0])
            if len(now) > 1:
                text += f" (+{len(now) - 1} more call{'s' if len(now) > 2 else ''})"
        else:
            state = "idle"
            text = f"{last.text} · {since_text(last.at, utc_now())}" if last is not None else ""
        self._agent.dataset.state = state
        self._status.textContent = text
