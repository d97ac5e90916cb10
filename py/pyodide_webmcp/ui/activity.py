"""What the human is told of the agent's calls: one feed line per call, and the agent's presence (what it does
now, and its last action). Pure; kept for the page's life, bounded, never saved.
"""

import itertools
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable, Literal, Optional, Sequence

from ..base.clock import parse_iso
from ..base.errors import ErrorCode
from ..lab.snippet_outputs import SnippetEntry

AGENT_NAME = "Browser agent"
"""How the human's views name the agent (as JupyterLab names a collaborator)."""

MAX_FEED_LINES = 300
"""The Activity feed's lines kept; the oldest go first."""

Verb = Literal["read", "edited", "inserted", "deleted", "moved", "cleared", "ran", "kernel", "commented",
               "resolved", "opened", "showed", "created", "saved", "command", "waited", "answered", "used"]
Outcome = Literal["done", "pending", "denied", "refused", "failed"]
PresenceState = Literal["working", "waiting", "idle"]

VERBS: dict[str, Verb] = {
    "jupyter_get_context": "read", "jupyter_get_cells": "read", "jupyter_get_cell_access": "read",
    "jupyter_list_workspace": "read", "jupyter_search_notebook": "read", "jupyter_list_comments": "read",
    "jupyter_get_comment": "read", "jupyter_export_notebook": "read", "jupyter_get_output_selection": "read",
    "jupyter_read_file": "read", "jupyter_list_commands": "read",
    "jupyter_update_cell": "edited", "jupyter_update_cells": "edited", "jupyter_replace_in_cell": "edited",
    "jupyter_insert_cell": "inserted", "jupyter_delete_cell": "deleted", "jupyter_move_cell": "moved",
    "jupyter_clear_outputs": "cleared", "jupyter_run_cells": "ran", "jupyter_run_code": "ran",
    "jupyter_kernel_action": "kernel", "jupyter_start_kernel": "kernel",
    "jupyter_create_comment": "commented", "jupyter_reply_comment": "commented", "jupyter_reopen_comment": "commented",
    "jupyter_resolve_comment": "resolved", "jupyter_focus_comment": "showed", "jupyter_focus_cell": "showed",
    "jupyter_open_notebook": "opened", "jupyter_create_notebook": "created", "jupyter_save_notebook": "saved",
    "jupyter_execute_command": "command", "jupyter_wait_for_result": "waited", "jupyter_answer_dialog": "answered",
}
"""The verb of each built-in tool; a site's own tools are "used"."""

REFUSALS = {ErrorCode.CELL_ACCESS_DENIED, ErrorCode.NOTEBOOK_ACCESS_DENIED, ErrorCode.STALE_CELL,
            ErrorCode.INVALID_ARGUMENT, ErrorCode.PROPOSAL_ALREADY_PENDING, ErrorCode.CELL_NOT_FOUND,
            ErrorCode.NOTEBOOK_NOT_FOUND, ErrorCode.COMMENT_NOT_FOUND}
"""Error codes that say the bridge refused the call (the owner's rules, a stale read, a bad argument)."""

INTENT: dict[Verb, str] = {"read": "read", "edited": "edit", "inserted": "add cells", "deleted": "delete", "moved": "move",
                          "cleared": "clear outputs", "ran": "run", "kernel": "kernel action", "commented": "comment",
                          "resolved": "resolve", "opened": "open", "showed": "show", "created": "create", "saved": "save",
                          "command": "command", "waited": "wait for a result", "answered": "answer a dialog", "used": "use"}
"""What a call tried to do, for a line whose call did not do it (denied, refused, failed)."""

NO_TARGET: dict[Verb, str] = {"read": "the lab", "waited": "for a result", "answered": "a dialog",
                              "kernel": "the kernel", "command": "a command"}
"""What a line names when its call named no cell, notebook or file."""

DOING: dict[Verb, str] = {"read": "reading", "edited": "editing", "inserted": "adding cells",
                          "deleted": "deleting", "moved": "moving", "cleared": "clearing outputs", "ran": "running",
                          "kernel": "working on the kernel", "commented": "commenting", "resolved": "resolving",
                          "opened": "opening", "showed": "showing", "created": "creating", "saved": "saving",
                          "command": "running a command", "waited": "waiting for a result",
                          "answered": "answering a dialog", "used": "using"}


@dataclass(frozen=True)
class Touch:
    """A cell a call changed, ran or waits on: its notebook, id and 0-based place then."""

    path: str
    cell_id: str
    index: int


@dataclass(frozen=True)
class FeedLine:
    number: int
    at: str
    tool: str
    verb: Verb
    target: str  # "cell 5", "3 cells", "report.ipynb"
    outcome: Outcome
    notebook: Optional[str] = None
    cell_id: Optional[str] = None  # the cell a click shows
    detail: str = ""  # the error, or why the human said no
    code: str = ""  # what jupyter_run_code ran
    output: str = ""
    count: int = 1  # the same line again and again (an agent polling get_context) is one line

    def same_as(self, other: "FeedLine") -> bool:
        return (self.tool, self.verb, self.target, self.outcome, self.notebook, self.cell_id, self.detail) == (
            other.tool, other.verb, other.target, other.outcome, other.notebook, other.cell_id, other.detail
        ) and not (self.code or other.code) and self.outcome != "pending"  # a pending line gets its outcome later

    @property
    def action(self) -> str:
        """The verb as the line says it: what was done, or what was tried."""
        return self.verb if self.outcome in ("done", "pending") else INTENT[self.verb]

    @property
    def text(self) -> str:
        said = f"{self.action} {self.target}".strip()
        return said if self.outcome == "done" else f"{said} ({self.outcome})"


def _cells_text(touches: Sequence[Touch]) -> str:
    cells = list(dict.fromkeys((touch.path, touch.cell_id, touch.index) for touch in touches))
    if len(cells) == 1:
        return f"cell {cells[0][2] + 1}"
    return f"{len(cells)} cells"


def _notebook_of(arguments: Any, payload: Any) -> Optional[str]:
    for source in (arguments, payload):
        if not isinstance(source, dict):
            continue
        for key in ("notebookPath", "path"):
            if isinstance(source.get(key), str) and source[key].endswith(".ipynb"):
                return str(source[key])
        notebook = source.get("notebook")
        if isinstance(notebook, dict) and isinstance(notebook.get("path"), str):
            return str(notebook["path"])
    return None


def _read_target(payload: Any, notebook: Optional[str]) -> str:
    if isinstance(payload, dict):
        for key, noun in (("cells", "cell"), ("threads", "thread"), ("matches", "match"), ("entries", "entry")):
            items = payload.get(key)
            if isinstance(items, list):
                plural = {"match": "matches", "entry": "entries"}.get(noun, noun + "s")
                return f"{len(items)} {noun if len(items) == 1 else plural}"
    return _file_name(notebook) if notebook else ""


def _file_name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def outcome_of(envelope: dict[str, Any], payload: Any) -> tuple[Outcome, str]:
    """The call's outcome for the human, and what to say of it."""
    if envelope.get("isError"):
        code = payload.get("error") if isinstance(payload, dict) else None
        message = payload.get("message", "") if isinstance(payload, dict) else ""
        kind: Outcome = "refused" if code in {c.value for c in REFUSALS} else "failed"
        return kind, f"{code}: {message}" if code else str(message)
    status = payload.get("status") if isinstance(payload, dict) else None
    if status == "denied":
        reason = payload.get("reason")
        return "denied", f"You said no: {reason}" if reason else "You said no."
    if status == "pending":
        return "pending", "Still running; the agent collects the result later."
    if isinstance(payload, dict) and payload.get("ename"):  # the code it ran raised
        return "failed", f"{payload['ename']}: {payload.get('evalue', '')}"
    results = payload.get("results") if isinstance(payload, dict) else None
    raised = [r for r in results if isinstance(r, dict) and r.get("status") == "error"] if isinstance(results, list) else []
    if raised:
        return "failed", f"{len(raised)} of {len(results or [])} cells raised an error"
    return "done", ""


def asked_cells(arguments: Any) -> list[str]:
    """The cell ids a call's arguments name, whatever the arguments are."""
    if not isinstance(arguments, dict):
        return []
    anchor, ids, edits = arguments.get("anchor"), arguments.get("cellIds"), arguments.get("cells")
    named = [arguments.get("cellId"), anchor.get("cellId") if isinstance(anchor, dict) else None]
    named += ids if isinstance(ids, list) else []  # arguments as the agent sent them: any JSON at all
    named += [edit.get("cellId") for edit in edits if isinstance(edit, dict)] if isinstance(edits, list) else []
    return [cell_id for cell_id in named if isinstance(cell_id, str)]


def feed_line(number: int, at: str, tool: str, arguments: Any, envelope: dict[str, Any], payload: Any,
              touches: Sequence[Touch], snippet: Optional[SnippetEntry] = None,
              place: Callable[[str, str], Optional[int]] = lambda path, cell_id: None) -> FeedLine:
    """The feed's line for one finished call (`snippet`: the code jupyter_run_code ran, as the log keeps it; `place`:
    a named cell's index in its notebook now, to name a cell the call did not touch)."""
    verb = VERBS.get(tool, "used")
    notebook = _notebook_of(arguments, payload) or (touches[0].path if touches else None)
    if not touches and notebook:
        touches = [Touch(notebook, cell_id, index) for cell_id in asked_cells(arguments)
                   if (index := place(notebook, cell_id)) is not None]
    outcome, detail = outcome_of(envelope, payload)
    if verb == "waited" and outcome == "pending":  # it waited; the call it waits for goes on
        outcome, detail = "done", "The call it waits for is still running."
    if touches:
        target = _cells_text(touches)
    elif verb == "read":
        target = _read_target(payload, notebook)
    elif verb == "used":
        target = tool
    elif verb == "command" and isinstance(arguments, dict) and isinstance(arguments.get("commandId"), str):
        target = arguments["commandId"][:80]
    else:
        target = _file_name(notebook) if notebook else ""
    target = target or NO_TARGET.get(verb, "")
    line = FeedLine(number, at, tool, verb, target, outcome, notebook, touches[0].cell_id if touches else None, detail)
    if snippet is not None:
        line = FeedLine(**{**line.__dict__, "code": snippet.code, "output": snippet.output})
    return line


@dataclass
class ActivityLog:
    """The feed's lines, newest last, at most MAX_FEED_LINES; listeners hear of each line added, counted again or
    given its outcome."""

    lines: "deque[FeedLine]" = field(default_factory=lambda: deque(maxlen=MAX_FEED_LINES))
    _numbers: Any = field(default_factory=lambda: itertools.count(1))
    _listeners: list[Callable[[FeedLine], None]] = field(default_factory=list)

    def new_number(self) -> int:
        return int(next(self._numbers))

    def add(self, line: FeedLine) -> None:
        """Add the line; one the same as the newest adds to its count instead (and takes its time)."""
        last = self.last()
        if last is not None and last.same_as(line):
            line = self.lines[-1] = FeedLine(**{**last.__dict__, "at": line.at, "count": last.count + 1})
        else:
            self.lines.append(line)
        self._tell(line)

    def replace(self, line: FeedLine) -> None:
        """Put `line` in the place of the kept line of its number (a pending call's, now settled)."""
        for place, kept in enumerate(self.lines):
            if kept.number == line.number:
                self.lines[place] = line
                self._tell(line)
                return

    def _tell(self, line: FeedLine) -> None:
        for listener in list(self._listeners):
            listener(line)

    def on_change(self, listener: Callable[[FeedLine], None]) -> None:
        self._listeners.append(listener)

    def notebooks(self) -> list[str]:
        return sorted({line.notebook for line in self.lines if line.notebook})

    def last(self) -> Optional[FeedLine]:
        return self.lines[-1] if self.lines else None


@dataclass(frozen=True)
class Doing:
    """One call in flight: its tool, the cells it touched so far, and what it waits for (`waitingFor`'s kind)."""

    tool: str
    touches: tuple[Touch, ...] = ()
    waiting: Optional[str] = None  # kernel, input, human, dialog, work
    done: int = 0
    total: int = 0


def doing_text(doing: Doing) -> tuple[PresenceState, str]:
    """What the agent is doing, in a few words: "editing cell 5", "running 3 cells", "waiting for you: a proposal"."""
    if doing.waiting == "human":
        return "waiting", "waiting for you: a proposal"
    if doing.waiting == "dialog":
        return "waiting", "waiting for you: a dialog"
    if doing.waiting == "input":
        return "waiting", "waiting for you: an input() prompt"
    verb = VERBS.get(doing.tool, "used")
    if doing.waiting == "kernel" and doing.total > 1:
        return "working", f"running {doing.total} cells ({doing.done} done)"
    where = f" {_cells_text(doing.touches)}" if doing.touches else ""
    return "working", f"{DOING[verb]}{where}" if verb != "used" else f"using {doing.tool}"


def since_text(at: str, now: datetime) -> str:
    """How long ago, in words: "just now", "3 min ago", "2 h ago"."""
    then = parse_iso(at)
    if then is None:
        return ""
    seconds = max(0.0, (now - then).total_seconds())
    if seconds < 45:
        return "just now"
    if seconds < 3600:
        return f"{round(seconds / 60)} min ago"
    return f"{round(seconds / 3600)} h ago"


def utc_now() -> datetime:
    return datetime.now(timezone.utc)
