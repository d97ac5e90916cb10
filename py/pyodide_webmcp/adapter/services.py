"""What a notebook handle may use of the lab: a small frozen set of services, handed out once.

A handle (notebook.py) is made for each call from a JupyterLab panel; it reaches the rest of the page
only through these, never through the whole PageLab, so the handle, the human-edit recorder and the lab
do not import each other.
"""

from dataclasses import dataclass
from typing import Any, Callable

from ..base.access_levels import AccessDefaults
from ..ui.agent_work import AgentWork
from .dialogs import DialogWatcher
from .documents import DocumentCache, EditBaselines
from .notebook_events import NotebookEvents


@dataclass(frozen=True)
class NotebookServices:
    shell: Any  # JupyterLab's shell: bringing a panel to the front
    readers: Any  # the host's bulk readers of notebook documents (see lib/index.js)
    cell_executor: Any  # the notebook cell executor the human's Run uses
    notebook_actions: Any  # JupyterLab's NotebookActions, whose signals announce a run
    dialogs: DialogWatcher  # every wait on JupyterLab that a dialog may hold up
    cell_lists: DocumentCache  # each notebook's cell records, per document version
    cell_outputs: DocumentCache  # the outputs read for comment anchors, per document version
    edit_baselines: EditBaselines  # the sources human edits are measured against
    access_defaults: Callable[[], AccessDefaults]  # the owner's defaults, read live from the settings
    contents: Any  # the lab's contents manager: where a reverted notebook's live version is kept
    work: AgentWork  # what the human's views follow of the agent's work: each change an agent call makes
    events: NotebookEvents  # what the human's views follow of the notebooks
