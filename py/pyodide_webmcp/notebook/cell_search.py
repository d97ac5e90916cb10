"""Finding text in a notebook's cells: literal or regular-expression matches, bounded, with excerpts. Pure.

Regular expressions run on the page's main thread and cannot be stopped, so
patterns that can backtrack for long (a repetition of something that itself
repeats or alternates, or many unbounded repetitions) are refused, and regex
searches look at the first MAX_SEARCHED_LINE_CHARS characters of each line.
"""

import re
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Iterator, Literal, Optional, Sequence

from pydantic import Field

if TYPE_CHECKING or sys.version_info < (3, 11):
    import sre_parse  # the regex parser's name before Python 3.11, and still its name in typeshed
else:
    from re import _parser as sre_parse

from typing_extensions import NotRequired, TypedDict

from ..base import limits
from ..base.errors import ErrorCode, ToolError
from ..base.fields import (
    CellIdField,
    ColumnField,
    LineField,
    OutputIndexField,
    PositionIndexField,
)
from ..base.text import clamp_chars, strip_ansi
from ..port import CellRecord
from .outputs import serialize_output

_REPEATS = {sre_parse.MAX_REPEAT, sre_parse.MIN_REPEAT}
_NESTING = {sre_parse.SUBPATTERN, sre_parse.BRANCH, sre_parse.ASSERT, sre_parse.ASSERT_NOT}


Where = Literal["source", "output"]


class Match(TypedDict):
    cellId: CellIdField
    index: PositionIndexField
    where: Annotated[Where, Field(description="source, or output (see outputIndex).")]
    outputIndex: NotRequired[OutputIndexField]
    line: LineField
    column: ColumnField
    excerpt: Annotated[str, Field(description="The match with some context from its line (bounded).")]


def _children(op: Any, value: Any) -> list[Any]:
    if op == sre_parse.BRANCH:
        return list(value[1])
    if op in _REPEATS or op in _NESTING:
        return [value[-1]]
    return []


def _repeats_or_alternates(items: Any) -> bool:
    for op, value in items:
        if (op in _REPEATS and value[1] > 1) or op == sre_parse.BRANCH:
            return True
        if any(_repeats_or_alternates(child) for child in _children(op, value)):
            return True
    return False


def _nested_repetition(items: Any) -> bool:
    """A repetition of something that repeats or alternates: the shape of exponential backtracking."""
    for op, value in items:
        if op in _REPEATS and value[1] > 1 and _repeats_or_alternates(value[2]):
            return True
        if any(_nested_repetition(child) for child in _children(op, value)):
            return True
    return False


def _unbounded_repeats(items: Any) -> int:
    count = 0
    for op, value in items:
        if op in _REPEATS and value[1] == sre_parse.MAXREPEAT:
            count += 1
        count += sum(_unbounded_repeats(child) for child in _children(op, value))
    return count


def compile_query(query: str, regex: bool, case_sensitive: bool) -> re.Pattern[str]:
    """The pattern to search for; INVALID_ARGUMENT for an invalid or potentially catastrophic regex."""
    if not query:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, "query must not be empty.", field="query")
    flags = 0 if case_sensitive else re.IGNORECASE
    if not regex:
        return re.compile(re.escape(query), flags)
    try:
        parsed = sre_parse.parse(query, flags)
        pattern = re.compile(query, flags)
    except re.error as error:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, f"query is not a valid regular expression: {error}.", field="query") from None
    if _nested_repetition(parsed) or _unbounded_repeats(parsed) > limits.MAX_REGEX_UNBOUNDED_REPEATS:
        raise ToolError(
            ErrorCode.INVALID_ARGUMENT,
            "query could take too long to run in the page: it repeats a group that itself repeats or alternates "
            f"(such as (a+)+ or (a|b)*), or has more than {limits.MAX_REGEX_UNBOUNDED_REPEATS} unbounded "
            "repetitions (*, +, {n,}); simplify it, or search for a literal piece of the text.",
            field="query",
        )
    return pattern


def _excerpt(line: str, start: int, end: int) -> str:
    """The match with some context around it, on one line, bounded."""
    room = max(0, (limits.MAX_EXCERPT_CHARS - (end - start)) // 2)
    left, right = max(0, start - room), min(len(line), end + room)
    text = ("…" if left else "") + line[left:right] + ("…" if right < len(line) else "")
    return clamp_chars(text, limits.MAX_EXCERPT_CHARS)[0]


def _line_matches(text: str, pattern: re.Pattern[str], literal: bool) -> Iterator[tuple[int, int, str]]:
    """(line, column, excerpt) of every match, line by line (a match never spans lines)."""
    for number, line in enumerate(text.split("\n")):
        for found in pattern.finditer(line if literal else line[: limits.MAX_SEARCHED_LINE_CHARS]):
            if found.end() > found.start():
                yield number, found.start(), _excerpt(line, found.start(), found.end())


def _output_text(output: dict[str, Any]) -> str:
    shown = serialize_output(output)
    parts = [shown.get("text", ""), shown.get("html", ""), shown.get("ename", ""), shown.get("evalue", ""),
             shown.get("traceback", "")]
    parts += [entry["text"] for entry in shown.get("textData", [])]
    return strip_ansi("\n".join(part for part in parts if part))


@dataclass(frozen=True)
class Found:
    matches: list[Match]
    total: int  # every match, beyond those returned too


def find(
    cells: Sequence[tuple[int, CellRecord, Optional[dict[str, Any]]]],
    pattern: re.Pattern[str],
    include_outputs: bool,
    offset: int,
    limit: int,
    literal: bool,
) -> Found:
    """Matches in the given (index, record, nbformat cell) in order; hidden cells must not be given."""
    kept: list[Match] = []
    total = 0
    for index, record, cell in cells:
        sources: list[tuple[Where, Optional[int], str]] = [("source", None, record.source)]
        if include_outputs and cell is not None and record.type == "code":
            sources += [("output", i, _output_text(o)) for i, o in enumerate(cell.get("outputs") or []) if isinstance(o, dict)]
        for where, output_index, text in sources:
            for line, column, excerpt in _line_matches(text, pattern, literal):
                total += 1
                if offset < total <= offset + limit:
                    match: Match = {"cellId": record.id, "index": index, "where": where, "line": line,
                                    "column": column, "excerpt": excerpt}
                    if output_index is not None:
                        match["outputIndex"] = output_index
                    kept.append(match)
    return Found(kept, total)
