"""The opt-in power tools that run JupyterLab commands the owner allowlisted, and list them."""

from typing import Annotated, Any, Optional

from pydantic import Field
from typing_extensions import NotRequired, TypedDict

from ..base import limits
from ..base.errors import ErrorCode, ToolError
from ..base.text import clamp_chars, clamp_utf8, json_size, one_line
from ..calls.current import CallContext
from ..calls.schema import Arguments, NoArguments, text_bound
from ..calls.tool import tool
from ..lab.command_arguments import check_arguments


def not_allowed(command_id: str) -> ToolError:
    """The one error for a command off the allowlist or that does not exist: it never says which."""
    return ToolError(
        ErrorCode.COMMAND_NOT_ALLOWED,
        f'"{command_id}" is not a command the owner allows; jupyter_list_commands lists the ones you may run.',
        commandId=command_id,
    )


class ExecuteCommandArguments(Arguments):
    commandId: str = Field(description="From jupyter_list_commands.", json_schema_extra=text_bound(limits.MAX_COMMAND_ID_CHARS))
    args: Optional[dict[str, Any]] = Field(None, description="As jupyter_list_commands describes them.")


class ExecuteCommandResult(TypedDict):
    commandId: Annotated[str, Field(description="The JupyterLab command's id.")]
    result: Annotated[Any, Field(description=(
        "What the command returned, as JSON data (a widget as its id and title; null for nothing)."))]
    resultTruncated: NotRequired[Annotated[bool, Field(description="The result was over 8 KiB: its text is cut.")]]
    warning: NotRequired[Annotated[str, Field(description="Something to know about a call that still ran.")]]


def _bounded(value: Any) -> tuple[Any, bool]:
    """A command's result as JSON data within MAX_COMMAND_RESULT_BYTES, else its text cut."""
    if json_size(value) <= limits.MAX_COMMAND_RESULT_BYTES:
        return value, False
    return clamp_utf8(str(value), limits.MAX_COMMAND_RESULT_BYTES)[0], True


@tool(
    "jupyter_execute_command",
    "Run a JupyterLab command",
    read_only=False,
    destructive=True,
    idempotent=False,
    consequential=True,
    errors=(ErrorCode.COMMAND_NOT_ALLOWED, ErrorCode.LAB_ERROR, ErrorCode.DIALOG_CANCELLED),
    setting="commands",
)
async def execute_command(args: ExecuteCommandArguments, ctx: CallContext) -> ExecuteCommandResult:
    """Run a JupyterLab command the human allowed, its arguments checked against its schema; returns its result (and a warning if it was not enabled).

    A dialog it opens belongs to this call (jupyter_answer_dialog).
    """
    command_id = args.commandId
    if command_id not in ctx.lab.command_allowlist:
        raise not_allowed(command_id)
    given = args.args or {}
    info = ctx.lab.commands.info(command_id, given)
    if info is None:
        raise not_allowed(command_id)
    check_arguments(given, await ctx.lab.commands.args_schema(command_id))
    result, cut = _bounded(await ctx.lab.commands.execute(command_id, given))
    outcome: ExecuteCommandResult = {"commandId": command_id, "result": result}
    if cut:
        outcome["resultTruncated"] = True
    if not info.enabled:
        outcome["warning"] = "The command was not enabled when it ran (for example, no active notebook): it may have done nothing."
    return outcome


class CommandEntry(TypedDict):
    id: Annotated[str, Field(description="The command's id, for jupyter_execute_command.")]
    label: Annotated[str, Field(description="The command's label, as JupyterLab's menus show it.")]
    caption: Annotated[str, Field(description="The command's longer description (may be empty).")]
    enabled: Annotated[bool, Field(description=(
        "Whether JupyterLab says the command can run now (for example, some need an active notebook)."))]
    argsSchema: Annotated[Optional[dict[str, Any]], Field(description=(
        "JSON Schema of the command's arguments, or null when it declares none (or it is over 4 KiB)."))]


class ListCommandsResult(TypedDict):
    commands: Annotated[list[CommandEntry], Field(description=(
        "The commands the owner allows you to run, in their allowlist's order."))]


@tool("jupyter_list_commands", "List the commands you may run", read_only=True, setting="commands")
async def list_commands(args: NoArguments, ctx: CallContext) -> ListCommandsResult:
    """List the JupyterLab commands the human lets you run with jupyter_execute_command: id, label, caption, enabled, argument schema."""
    commands: list[CommandEntry] = []
    for command_id in ctx.lab.command_allowlist:
        info = ctx.lab.commands.info(command_id, {})
        if info is None:
            continue
        schema = await ctx.lab.commands.args_schema(command_id)
        commands.append(
            {
                "id": command_id,
                "label": clamp_chars(one_line(info.label), limits.MAX_COMMAND_LABEL_CHARS)[0],
                "caption": clamp_chars(one_line(info.caption), limits.MAX_COMMAND_CAPTION_CHARS)[0],
                "enabled": info.enabled,
                "argsSchema": schema if schema is None or json_size(schema) <= limits.MAX_COMMAND_SCHEMA_BYTES else None,
            }
        )
    return {"commands": commands}
