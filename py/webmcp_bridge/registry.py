"""The tool registry: a tool is one typed async function plus a decorator."""

import asyncio
import inspect
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Awaitable, Callable, Optional, get_type_hints

from .envelope import failure, success
from .errors import ErrorCode, ToolError, error_payload
from .port import AbortState, LabPort
from .schema import Arguments, input_schema, output_schema, parse_arguments


class NeverAborted:
    """The abort state of a call made without an AbortSignal."""

    @property
    def aborted(self) -> bool:
        return False

    def on_abort(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Run `callback` when the call is aborted; returns a function that cancels that."""
        return lambda: None


@dataclass
class CallContext:
    """What a tool call gets besides its arguments: the lab, the abort state and the tool's own name."""

    lab: LabPort
    abort: AbortState = field(default_factory=NeverAborted)
    tool: str = ""


Handler = Callable[[Any, CallContext], Awaitable[Any]]


@dataclass(frozen=True)
class Tool:
    name: str
    title: str
    description: str
    read_only: bool
    untrusted_content: bool
    arguments: type[Arguments]
    result: Any
    handler: Handler = field(repr=False)

    @cached_property
    def input_schema(self) -> dict[str, Any]:
        return input_schema(self.arguments)

    @cached_property
    def output_schema(self) -> dict[str, Any]:
        return output_schema(self.result)

    @property
    def annotations(self) -> dict[str, bool]:
        return {"readOnlyHint": self.read_only, "untrustedContentHint": self.untrusted_content}

    async def call(self, raw_arguments: Any, context: CallContext) -> dict[str, Any]:
        """Run the tool; always returns an envelope, never raises."""
        try:
            if context.abort.aborted:
                raise ToolError(ErrorCode.ABORTED, "The call was aborted before it started.")
            arguments = parse_arguments(self.arguments, raw_arguments)
            context.tool = self.name
            return success(await self.handler(arguments, context))
        except asyncio.CancelledError:
            return failure(error_payload(ToolError(ErrorCode.ABORTED, "The call was cancelled.")))
        except Exception as exc:  # every failure becomes a structured error
            return failure(error_payload(exc))


class Registry:
    def __init__(self) -> None:
        self._tools: dict[str, Tool] = {}

    def tool(self, name: str, title: str, *, read_only: bool, untrusted_content: bool = True):
        """Register `async def fn(args: SomeArguments, ctx) -> ResultType`.

        The docstring is the description; the argument and return annotations
        give the input and output schemas.
        """

        def register(handler: Handler) -> Handler:
            if name in self._tools:
                raise ValueError(f"duplicate tool {name}")
            hints = get_type_hints(handler)
            first_parameter = next(iter(inspect.signature(handler).parameters))
            self._tools[name] = Tool(
                name=name,
                title=title,
                description=inspect.cleandoc(handler.__doc__ or ""),
                read_only=read_only,
                untrusted_content=untrusted_content,
                arguments=hints[first_parameter],
                result=hints["return"],
                handler=handler,
            )
            return handler

        return register

    def __iter__(self):
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def get(self, name: str) -> Optional[Tool]:
        return self._tools.get(name)


REGISTRY = Registry()
tool = REGISTRY.tool
