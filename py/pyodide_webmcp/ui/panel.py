"""The Agent panel, in the right sidebar: Propose mode and what else the human reviews, who works in the lab, and
the tabs (Activity first, then Changes, Comments, Access). Its contents are built the first time it is shown, so a
lab where nobody opens it pays nothing for them."""

from typing import Any, Callable, Optional, Sequence

from ..base.shapes import OPT_IN_REVIEWS, OptInReview
from ..owner.site_settings import Settings
from .access_tab import AccessTab
from .activity import ActivityLog, Doing
from .activity_tab import ActivityTab
from .agent_changes import ChangeJournal
from .changes_tab import ChangesTab
from .comments_tab import CommentsTab
from .controls import switch
from .page import HumanLab, HumanNotebook, Page
from .presence_view import PresenceView

PANEL_ID = "jp-webmcp-agent-panel"
TABS = ("activity", "changes", "comments", "access")
TAB_LABELS = {"activity": "Activity", "changes": "Changes", "comments": "Comments", "access": "Access"}
REVIEW_LABELS: dict[OptInReview, str] = {"insert": "Also review new cells", "delete": "Also review deletions",
                                         "run": "Also review runs"}


class AgentPanel:
    def __init__(self, page: Page, lab: HumanLab, log: ActivityLog, journal: ChangeJournal,
                 doing: Callable[[], Sequence[Doing]], show_cell: Callable[[str, str], None],
                 redraw_marks: Callable[[HumanNotebook], None], propose_changed: Callable[[], None]):
        self._page = page
        self._lab = lab
        self._log = log
        self._journal = journal
        self._doing = doing
        self._show_cell = show_cell
        self._redraw_marks = redraw_marks
        self._propose_changed = propose_changed  # menus and the palette redraw the toggle
        self._listen = page.listeners()
        self.widget = page.classes.Panel.new()
        self.widget.id = PANEL_ID
        self.widget.title.label = "Agent"
        self.widget.title.caption = "What the agent does and did, what it may see and change, and review comments"
        self.widget.addClass("jp-webmcp-panel")
        self.tabs: Optional[Any] = None
        self._applying = False  # the switches follow the settings: not the human's choice
        self.presence: Optional[PresenceView] = None
        self.activity: Optional[ActivityTab] = None
        self.changes: Optional[ChangesTab] = None
        self.comments: Optional[CommentsTab] = None
        self.access: Optional[AccessTab] = None
        page.app.shell.add(self.widget, "right", page.options(rank=900))
        page.when_shown(self.widget.node, self.build)

    @property
    def built(self) -> bool:
        return self.tabs is not None

    def build(self) -> None:
        if self.built:
            return
        page = self._page
        header = page.classes.Panel.new()
        header.addClass("jp-webmcp-panel-header")
        self._propose = switch(page, "Propose mode", "Review the agent's edits before they apply: each waits under its "
                               "cell for your Accept or Deny.", "jp-webmcp-propose-toggle", self._listen, self.set_propose_mode)
        header.addWidget(self._propose)
        self._reviews: dict[OptInReview, Any] = {}
        for action in OPT_IN_REVIEWS:
            option = switch(page, REVIEW_LABELS[action], f"In Propose mode, the agent's {action}s wait for you too.",
                            f"jp-webmcp-review-{action}", self._listen, self._chooser(action))
            option.addClass("jp-webmcp-review-option")
            self._reviews[action] = option
            header.addWidget(option)
        self.presence = PresenceView(page, self._log, self._doing)
        header.addWidget(page.classes.Widget.new(page.options(node=self.presence.node)))
        tabs = page.classes.TabPanel.new()
        tabs.addClass("jp-webmcp-tabs")
        bodies = {}
        for name in TABS:
            body = page.classes.Widget.new()
            body.id = f"jp-webmcp-tab-{name}"
            body.title.label = TAB_LABELS[name]
            body.addClass("jp-webmcp-tab-body")
            body.node.dataset.tab = name
            tabs.addWidget(body)
            bodies[name] = body.node
        self.activity = ActivityTab(page, bodies["activity"], self._log, self._show_cell)
        self.changes = ChangesTab(page, self._lab, bodies["changes"], self._journal, self._redraw_marks)
        self.comments = CommentsTab(page, self._lab, bodies["comments"], lambda: self.reveal("comments"))
        self.access = AccessTab(page, self._lab, bodies["access"])
        tabs.currentChanged.connect(self._listen(lambda *_: self.refresh()))
        self.widget.addWidget(header)
        self.widget.addWidget(tabs)
        self.tabs = tabs
        self.apply_settings(self._lab.settings.current)
        self.presence.draw()
        self.refresh()

    def current_tab(self) -> str:
        return TABS[int(self.tabs.currentIndex)] if self.tabs is not None else ""

    def reveal(self, tab: str) -> None:
        self._page.app.shell.activateById(PANEL_ID)
        self.build()
        if self.tabs is not None:
            self.tabs.currentIndex = TABS.index(tab)
        self.refresh()

    def refresh(self) -> None:
        """Draw the tab in view again (the others are drawn when shown)."""
        tab = self.current_tab()
        if tab == "access" and self.access is not None:
            self.access.refresh()
        elif tab == "comments" and self.comments is not None:
            self.comments.render()
        elif tab == "changes" and self.changes is not None:
            self.changes.render()

    # Propose mode: the human's switch, kept in the settings (tools can read it, never change it)

    def set_propose_mode(self, enabled: bool) -> None:
        """The human's switch: applies at once, and is kept in the settings for the next visit."""
        if self._applying:
            return
        self._lab.proposals.enabled = enabled
        if self.built:
            self._applying = True
            try:
                self._propose.value = enabled
            finally:
                self._applying = False
        self._propose_changed()
        self._lab.settings.save("proposeMode", enabled)

    def _chooser(self, action: OptInReview) -> Callable[[bool], None]:
        return lambda chosen: self._choose_review(action, chosen)

    def _choose_review(self, action: OptInReview, chosen: bool) -> None:
        if self._applying:
            return
        reviewed = self._lab.proposals.reviewed_actions
        reviewed.add(action) if chosen else reviewed.discard(action)
        self._lab.settings.save("proposeActions", sorted(reviewed))

    def apply_settings(self, settings: Settings) -> None:
        """The switches as the settings say (a value the site fixed cannot be switched here)."""
        if not self.built:
            return
        self._applying = True
        try:
            self._propose.value = settings.propose_mode
            self._propose.node.querySelector("button").disabled = self._lab.settings.fixed("proposeMode")
            for action, option in self._reviews.items():
                option.value = action in settings.propose_actions
                option.node.querySelector("button").disabled = self._lab.settings.fixed("proposeActions")
        finally:
            self._applying = False
