"""What a site's own tool gets of its call, and the decorator that makes one.

The context holds no part of the lab: a site's tool reaches notebooks only through the kit's functions
(`read_cells`, `replace_cell_source`), which find the call they serve themselves and apply the owner's
access rules, the sourceHash guard and Propose mode on the way.
"""

from typing import Any, Callable, Optional

from ..base.errors import ErrorCode, ToolError
from ..calls import current as calls_current
from ..calls import tool as calls_tool


class CallContext:
    """The call a site's tool serves: its tool's name, and whether the caller gave up (aborted)."""

    __slots__ = ("_key",)

    def __init__(self, key: object) -> None:
        self._key = key

    @property
    def tool(self) -> str:
        return served(self).tool

    @property
    def aborted(self) -> bool:
        return served(self).abort.aborted

    def __repr__(self) -> str:
        return "<the kit's CallContext>"


def served(context: CallContext) -> calls_current.CallContext:
    """The call `context` was made for, while it runs (the kit's functions are called inside it)."""
    call = calls_current.CURRENT_CALL.get(None)
    if call is None or context._key is not call.key:
        raise ToolError(ErrorCode.INTERNAL_ERROR, "The kit's functions work only during the call of the tool "
                        "whose context they are given.")
    return call


def _narrow(call: calls_current.CallContext) -> CallContext:
    return CallContext(call.key)


def tool(
    name: str,
    title: str,
    *,
    read_only: bool,
    destructive: Optional[bool] = None,
    idempotent: Optional[bool] = None,
    consequential: bool = False,
    reviewed: bool = False,
    errors: tuple[ErrorCode, ...] = (),
) -> Callable[[Callable[[Any, CallContext], Any]], calls_tool.Tool]:
    """Make `async def fn(args: YourArguments, ctx: CallContext) -> YourResult` a tool of your site.

    The docstring is its description; the arguments' model its input schema; the return annotation (a
    TypedDict) its output schema. A tool that writes says whether it is destructive and idempotent;
    `consequential` marks what the human cannot take back; `reviewed`: its writes go through
    `replace_cell_source`, which the human reviews in Propose mode (the description says so); `errors`:
    the codes it may return besides the common ones.
    """
    return calls_tool.tool(name, title, read_only=read_only, destructive=destructive, idempotent=idempotent,
                           consequential=consequential, reviewed=reviewed, errors=errors, context=_narrow)
