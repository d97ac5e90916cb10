"""Code snippets the agent runs in a kernel (jupyter_run_code): their outputs, collected within bounds as
they arrive, and the log the human sees. Pure.

A snippet may print 10 MB; what is kept never grows past the bounds, whatever
the kernel sends: streams to MAX_SNIPPET_STREAM_BYTES each, at most
MAX_OUTPUTS_PER_CELL outputs, and the rest counted.
"""

from typing import Any, Callable, Literal, Optional, get_args

from ..base import limits
from ..base.text import clamp_utf8, utf8_len

OutputMessage = Literal["stream", "execute_result", "display_data", "error", "clear_output"]
"""The kernel's messages that make or clear a snippet's outputs (SnippetOutputs.add ignores others)."""
OUTPUT_MESSAGES: tuple[OutputMessage, ...] = get_args(OutputMessage)


class SnippetOutputs:
    """nbformat outputs built from a snippet's IOPub messages."""

    def __init__(self) -> None:
        self.outputs: list[dict[str, Any]] = []
        self.dropped = 0  # messages or characters left out to stay within the bounds
        self.execution_count: Any = None

    def add(self, message_type: str, content: Any) -> None:
        if not isinstance(content, dict):
            return
        if message_type == "stream":
            self._stream(str(content.get("name", "stdout")), str(content.get("text", "")))
        elif message_type in ("execute_result", "display_data", "error"):
            output = {key: value for key, value in content.items() if key != "transient"}
            output["output_type"] = message_type
            if message_type == "execute_result":
                self.execution_count = content.get("execution_count")
            self._append(output)
        elif message_type == "clear_output":
            self.outputs.clear()

    def _stream(self, name: str, text: str) -> None:
        last = self.outputs[-1] if self.outputs else None
        if last is not None and last.get("output_type") == "stream" and last.get("name") == name:
            room = limits.MAX_SNIPPET_STREAM_BYTES - utf8_len(last["text"])
            kept, cut = clamp_utf8(text, max(0, room), "")
            last["text"] += kept
            self.dropped += int(cut)
            return
        kept, cut = clamp_utf8(text, limits.MAX_SNIPPET_STREAM_BYTES, "")
        self.dropped += int(cut)
        self._append({"output_type": "stream", "name": name, "text": kept})

    def _append(self, output: dict[str, Any]) -> None:
        if len(self.outputs) >= limits.MAX_OUTPUTS_PER_CELL:
            self.dropped += 1
        else:
            self.outputs.append(output)


SnippetStatus = Literal["running", "ok", "error", "kernel died", "kernel restarted"]


class SnippetEntry:
    """One snippet as the human sees it in the log."""

    def __init__(self, number: int, time: str, notebook_path: str, code: str):
        self.number = number
        self.time = time
        self.notebook_path = notebook_path
        self.code = clamp_utf8(code, limits.MAX_LOGGED_CODE_BYTES)[0]
        self.status: SnippetStatus = "running"
        self.output = ""


class SnippetLog:
    """Every snippet the agent ran (the latest MAX_LOGGED_SNIPPETS), for the human to see; listeners redraw it."""

    def __init__(self) -> None:
        self.entries: list[SnippetEntry] = []
        self._numbers = 0
        self._listeners: list[Callable[[], None]] = []

    def on_change(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    def _changed(self) -> None:
        for listener in list(self._listeners):
            listener()

    def add(self, time: str, notebook_path: str, code: str) -> SnippetEntry:
        self._numbers += 1
        entry = SnippetEntry(self._numbers, time, notebook_path, code)
        self.entries.append(entry)
        del self.entries[: -limits.MAX_LOGGED_SNIPPETS]
        self._changed()
        return entry

    def finish(self, entry: SnippetEntry, status: SnippetStatus, output: str) -> None:
        entry.status = status
        entry.output = clamp_utf8(output, limits.MAX_LOGGED_CODE_BYTES)[0]
        self._changed()

    @property
    def count(self) -> int:
        """How many snippets were ever logged."""
        return self._numbers

    def since(self, count: int) -> Optional[SnippetEntry]:
        """The newest snippet logged after the log had `count` (the one a call just ran), or None."""
        return self.entries[-1] if self._numbers > count and self.entries else None
