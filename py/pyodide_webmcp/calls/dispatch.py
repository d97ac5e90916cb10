"""The one path of a call, from a tool's name and its arguments to the result envelope, in the page and in tests:
the tool looked up (its module imported on its first call), a site tool listed before its install waited for,
then the tool's own call (the budget, the arguments checked, the envelope). Never an exception."""

from typing import Any, Optional

from ..base.errors import ErrorCode, ToolError, error_payload
from .catalog import Toolbox
from .current import CallContext
from .envelope import failure
from .installing import Installing


async def dispatch(toolbox: Toolbox, name: str, arguments: Any, context: CallContext,
                   installing: Optional[Installing] = None) -> dict[str, Any]:
    """The envelope of one call of tool `name` with `arguments` (JSON data as the caller sent it)."""
    try:
        if installing is not None and name in installing.names:
            await installing.installed(name, context.budget_ms / 1000)
            tool = toolbox.get(name)
            if tool is None:
                raise installing.not_installed(name)
        else:
            tool = toolbox.get(name)
        if tool is None:
            raise ToolError(ErrorCode.INTERNAL_ERROR, f"No tool named {name} in this bridge.")
    except Exception as error:
        return failure(error_payload(error))
    return await tool.call(arguments, context)
