"""The Agent panel's Log tab: every code snippet the agent ran, where, when, its output and status."""

from typing import Any, Callable

from ..lab.snippet_outputs import SnippetEntry, SnippetLog
from .dom import Listeners, element, tab_body


class LogTab:
    def __init__(self, log: SnippetLog, on_count: Callable[[int], None]):
        self._log = log
        self._on_count = on_count
        self._listen = Listeners()
        self.body, self._entries = tab_body(
            "jp-webmcp-log",
            "Code the agent ran in a kernel with jupyter_run_code, newest first. "
            "The tool is off unless the Settings Editor's WebMCP bridge settings turn it on.",
            ("Clear", "jp-webmcp-log-clear", self._listen(lambda *_: log.clear())),
            "jp-webmcp-log-entries",
        )
        log.on_change(self.render)

    def _entry(self, entry: SnippetEntry) -> Any:
        node = element(
            "div", **{"class": "jp-webmcp-log-entry", "data-status": entry.status, "data-number": str(entry.number)}
        )
        meta = f"#{entry.number} · {entry.time} · {entry.notebook_path} · {entry.status}"
        node.appendChild(element("div", meta, **{"class": "jp-webmcp-log-meta"}))
        node.appendChild(element("pre", entry.code, **{"class": "jp-webmcp-log-code"}))
        if entry.output:
            node.appendChild(element("pre", entry.output, **{"class": "jp-webmcp-log-output"}))
        return node

    def render(self) -> None:
        self._entries.replaceChildren(*(self._entry(entry) for entry in reversed(self._log.entries)))
        self._on_count(len(self._log.entries))
