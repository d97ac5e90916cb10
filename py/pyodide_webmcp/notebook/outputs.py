"""Bounded, ANSI-free serialization of nbformat outputs for agents."""

import re
from html.parser import HTMLParser
from typing import Any

from ..base import limits
from ..base.mime import is_text_like, joined, media_size
from ..base.shapes import MediaEntry, OutputSnapshot, TextDataEntry
from ..base.text import TRUNCATION_MARK, clamp_utf8, one_line, strip_ansi, utf8_len

_SKIPPED_HTML_TAGS = {"script", "style"}


class _TextExtractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skipping = 0

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag in _SKIPPED_HTML_TAGS:
            self._skipping += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED_HTML_TAGS and self._skipping:
            self._skipping -= 1

    def handle_data(self, data: str) -> None:
        if not self._skipping:
            self.parts.append(data)


def html_to_text(html: str) -> str:
    extractor = _TextExtractor()
    extractor.feed(html)
    extractor.close()
    return one_line(" ".join(extractor.parts))


_CLASS_REPR = re.compile(r"^<class '([^']+)'>$")


def exception_name(ename: Any) -> str:
    """The exception's name as Python prints it: the Pyodide kernel reports "<class 'ValueError'>"."""
    text = str(ename)
    match = _CLASS_REPR.match(text.strip())
    if match is None:
        return text
    name = match.group(1)
    return name.removeprefix("builtins.")


def bounded(text: str, max_bytes: int) -> tuple[str, bool]:
    return clamp_utf8(strip_ansi(text), max_bytes)


def _serialize_bundle(data: dict[str, Any], result: OutputSnapshot) -> bool:
    """Fill text/html/textData/media from a MIME bundle; True when anything was cut."""
    cut = False
    text_data: list[TextDataEntry] = []
    media: list[MediaEntry] = []
    budget = limits.MAX_TEXT_DATA_BYTES
    for mime_type, value in data.items():
        if mime_type == "text/plain":
            result["text"], was_cut = bounded(joined(value), limits.MAX_TEXT_OUTPUT_BYTES)
        elif mime_type == "text/html":
            result["html"], was_cut = bounded(html_to_text(joined(value)), limits.MAX_HTML_OUTPUT_BYTES)
        elif is_text_like(mime_type):
            if budget <= utf8_len(TRUNCATION_MARK):
                cut = True
                continue
            text, was_cut = bounded(joined(value), budget)
            budget -= utf8_len(text)
            entry: TextDataEntry = {"mimeType": mime_type, "text": text}
            if was_cut:
                entry["truncated"] = True
            text_data.append(entry)
        else:
            media.append({"mimeType": mime_type, "bytes": media_size(value), "included": False})
            continue
        cut = cut or was_cut
    if text_data:
        result["textData"] = text_data
    if media:
        result["media"] = media
    return cut


def serialize_output(output: dict[str, Any]) -> OutputSnapshot:
    """One nbformat output as the agent sees it, every field bounded."""
    output_type = str(output.get("output_type", "unknown"))
    result: OutputSnapshot = {"outputType": output_type}
    cut = False
    if output_type == "stream":
        result["name"] = str(output.get("name", "stdout"))
        result["text"], cut = bounded(joined(output.get("text", "")), limits.MAX_TEXT_OUTPUT_BYTES)
    elif output_type == "error":
        result["ename"], ename_cut = bounded(exception_name(output.get("ename", "")), limits.MAX_ENAME_BYTES)
        result["evalue"], evalue_cut = bounded(str(output.get("evalue", "")), limits.MAX_TEXT_OUTPUT_BYTES)
        traceback = "\n".join(joined(line) for line in output.get("traceback") or [])
        result["traceback"], traceback_cut = bounded(traceback, limits.MAX_TEXT_OUTPUT_BYTES)
        cut = ename_cut or evalue_cut or traceback_cut
    elif output_type in ("execute_result", "display_data"):
        if output_type == "execute_result":
            result["executionCount"] = output.get("execution_count")
        data = output.get("data")
        cut = _serialize_bundle(data if isinstance(data, dict) else {}, result)
    if cut:
        result["truncated"] = True
    return result


def serialize_outputs(outputs: list[dict[str, Any]]) -> tuple[list[OutputSnapshot], bool]:
    """At most MAX_OUTPUTS_PER_CELL serialized outputs, and whether some were left out."""
    kept = [serialize_output(output) for output in outputs[: limits.MAX_OUTPUTS_PER_CELL]]
    return kept, len(outputs) > limits.MAX_OUTPUTS_PER_CELL
