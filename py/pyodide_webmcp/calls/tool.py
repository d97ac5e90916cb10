"""A tool: one typed async function plus a decorator, which makes the `Tool` its module exports; the tool owns
its wire descriptor, its schemas and the call path within the budget."""

import asyncio
import inspect
from dataclasses import dataclass, field
from functools import cached_property
from types import ModuleType, UnionType
from typing import (
    Any,
    Awaitable,
    Callable,
    Optional,
    TypeVar,
    Union,
    get_args,
    get_origin,
    get_type_hints,
)

from ..base.clock import iso_now
from ..base.errors import ErrorCode, ToolError, error_payload
from .budget import Call, wait_for
from .current import CURRENT_CALL, CallContext
from .envelope import Delivered, WithImages, failure, success, with_images
from .pending import PendingResult
from .schema import (
    Arguments,
    CutResult,
    ErrorResult,
    input_schema,
    output_schema,
    parse_arguments,
    result_variants,
)

Handler = Callable[[Any, Any], Awaitable[Any]]
"""A tool: `async def fn(args: SomeArguments, ctx) -> ResultType` (its arguments model is checked on every call)."""
AnyHandler = TypeVar("AnyHandler", bound=Handler)


def result_shape(annotation: Any) -> Any:
    """The shape of a tool's result, from its return annotation: a result wrapped to be delivered as it is
    (`Delivered[X]`) or with images (`WithImages[X]`) has the shape X."""
    members = get_args(annotation) if get_origin(annotation) in (Union, UnionType) else (annotation,)
    shapes = dict.fromkeys(
        get_args(member)[0] if get_origin(member) in (Delivered, WithImages) else member for member in members
    )
    return Union[tuple(shapes)] if len(shapes) > 1 else next(iter(shapes))


@dataclass(frozen=True)
class Tool:
    name: str
    title: str
    description: str
    hints: dict[str, bool]  # every hint with its value (HINT_DEFAULTS' keys)
    errors: tuple[ErrorCode, ...]
    arguments: type[Arguments]
    result: Any
    handler: Handler = field(repr=False)
    budgeted: bool = True  # False for the tools that wait on other calls (they bound their own waits)
    setting: Optional[str] = None  # the owner's setting (its key) that turns this opt-in tool on
    context: Optional[Callable[[CallContext], Any]] = field(default=None, repr=False)  # what the handler gets

    @property
    def module(self) -> str:
        """The module that defines it (and exports it)."""
        return self.handler.__module__

    @property
    def annotations(self) -> dict[str, bool]:
        """The hints WebMCP registers: `readOnlyHint` and `untrustedContentHint` always (a client may read a
        missing one as unknown), `consequentialHint` where true (WebMCP's default is false). MCP's write
        hints are left out: no browser passes them on, and the MCP server reads them from the catalog."""
        kept = {name: self.hints[name] for name in STATED_HINTS}
        return {**kept, "consequentialHint": True} if self.hints["consequentialHint"] else kept

    @cached_property
    def input_schema(self) -> dict[str, Any]:
        return input_schema(self.arguments)

    def descriptor(self) -> dict[str, Any]:
        """What WebMCP registers (with an `execute` added). No outputSchema: Chromium drops it, and a
        client that got one would expect the structuredContent we do not send."""
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": self.input_schema,
            "annotations": self.annotations,
        }

    @cached_property
    def output_schema(self) -> dict[str, Any]:
        """Every shape a result can take: the tool's own, pending (past the budget), an error, a last-resort cut."""
        shapes = [self.result, *([PendingResult] if self.budgeted else []), ErrorResult, CutResult]
        return result_variants(*(output_schema(shape) for shape in shapes))

    async def call(self, raw_arguments: Any, context: CallContext) -> dict[str, Any]:
        """Run the tool within the call budget; always returns an envelope, never raises.

        Work not done within the budget goes on; the call then returns a pending result.
        """
        if context.calls is None or not self.budgeted:
            return await self._run(raw_arguments, context)
        def opened(call: Call) -> None:
            context.call = call

        call = context.calls.start(self.name, lambda: self._run(raw_arguments, context), iso_now(), opened)
        if await wait_for(call, context.budget_ms / 1000):
            return call.task.result()
        call.pending_returned = True
        return success(context.pending(call))

    async def _run(self, raw_arguments: Any, context: CallContext) -> dict[str, Any]:
        try:
            if context.abort.aborted:
                raise ToolError(ErrorCode.ABORTED, "The call was aborted before it started.")
            arguments = parse_arguments(self.arguments, raw_arguments)
            context.tool = self.name
            token = CURRENT_CALL.set(context)
            try:
                result = await self.handler(arguments, context if self.context is None else self.context(context))
            finally:
                CURRENT_CALL.reset(token)
            if isinstance(result, WithImages):
                return with_images(success(result.payload), result.images)
            return result if isinstance(result, Delivered) else success(result)
        except asyncio.CancelledError:
            return failure(error_payload(ToolError(ErrorCode.ABORTED, "The call was cancelled.")))
        except Exception as exc:  # every failure becomes a structured error
            return failure(error_payload(exc))


def tool(
    name: str,
    title: str,
    *,
    read_only: bool,
    errors: tuple[ErrorCode, ...] = (),
    destructive: Optional[bool] = None,
    idempotent: Optional[bool] = None,
    consequential: bool = False,
    untrusted_content: bool = True,
    reviewed: bool = False,
    budgeted: bool = True,
    setting: Optional[str] = None,
    context: Optional[Callable[[CallContext], Any]] = None,
) -> Callable[[Handler], Tool]:
    """Make `async def fn(args: SomeArguments, ctx) -> ResultType` a tool: the `Tool` its module exports.

    The docstring is the description (`reviewed` adds the one sentence on Propose mode); the argument
    and return annotations give the input and output schemas; `errors` are the codes it may return
    besides the common ones (the reference documents them; each error result carries its own hint).
    A tool that writes must say whether it is destructive and idempotent; `consequential` marks what
    the human cannot take back. `context` makes what the handler gets of the call (the kit's narrow
    context for a site's own tools); by default, the whole `CallContext`.
    """
    if not read_only and (destructive is None or idempotent is None):
        raise ValueError(f"{name}: a tool that writes must declare destructive and idempotent")

    def make(handler: Handler) -> Tool:
        hints = get_type_hints(handler)
        first_parameter = next(iter(inspect.signature(handler).parameters))
        description = unwrapped(inspect.cleandoc(handler.__doc__ or ""))
        return Tool(
            name=name,
            title=title,
            description=f"{description} {PROPOSE_MODE}" if reviewed else description,
            hints=hints_of(read_only, destructive, idempotent, consequential, untrusted_content),
            errors=errors,
            arguments=hints[first_parameter],
            result=result_shape(hints.get("return", Any)),
            handler=handler,
            budgeted=budgeted,
            setting=setting,
            context=context,
        )

    return make


def tools_of(module: ModuleType) -> list[Tool]:
    """The tools a module exports: its module-level tools, in the order it defines them."""
    return [value for value in vars(module).values()
            if isinstance(value, Tool) and value.handler.__module__ == module.__name__]


def unwrapped(text: str) -> str:
    """A docstring's paragraphs, each on one line."""
    return "\n\n".join(" ".join(paragraph.split()) for paragraph in text.split("\n\n"))


PROPOSE_MODE = "In Propose mode the human reviews it (refused: status denied)."
"""Said once by every tool whose writes the human can review."""


def hints_of(
    read_only: bool, destructive: Optional[bool], idempotent: Optional[bool], consequential: bool, untrusted: bool
) -> dict[str, bool]:
    """Every hint of a tool, MCP's and WebMCP's. No openWorldHint: no client passes it on (the MCP server
    sets its own)."""
    return {
        "readOnlyHint": read_only,
        # MCP: the write hints mean nothing on a read-only tool (MCP's defaults, then)
        "destructiveHint": HINT_DEFAULTS["destructiveHint"] if read_only else bool(destructive),
        "idempotentHint": HINT_DEFAULTS["idempotentHint"] if read_only else bool(idempotent),
        "consequentialHint": consequential,
        "untrustedContentHint": untrusted,
    }


HINT_DEFAULTS = {
    "readOnlyHint": False,
    "destructiveHint": True,
    "idempotentHint": False,
    "consequentialHint": False,
    "untrustedContentHint": False,
}
"""What a client takes a missing hint for (MCP's defaults; WebMCP's for its own two)."""

STATED_HINTS = ("readOnlyHint", "untrustedContentHint")
"""Registered on every tool, as booleans, whatever their value."""

