"""JupyterLab's command registry as the port's CommandsPort: describe a command, and run it as the human would."""

from typing import Any, Optional

from ..base.errors import ErrorCode, ToolError
from ..base.text import one_line
from ..port import CommandInfo
from .dialogs import DialogWatcher
from .ffi import js_value, to_js_object, to_python


def _as_data(value: Any) -> Any:
    """A command's result as JSON data: a widget by its id and title, anything else not JSON by its kind."""
    value = js_value(value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if js_value(getattr(value, "node", None)) is not None and hasattr(value, "title"):
        return {"widget": str(value.id), "title": str(value.title.label)}
    try:
        return to_python(value)
    except Exception:  # cyclic or not JSON (a model, a signal)
        kind = js_value(getattr(js_value(getattr(value, "constructor", None)), "name", None))
        return {"value": str(kind or type(value).__name__)}


class LabCommands:
    def __init__(self, commands: Any, dialogs: DialogWatcher):
        self._commands = commands
        self._dialogs = dialogs

    def info(self, command_id: str, args: dict[str, Any]) -> Optional[CommandInfo]:
        if not self._commands.hasCommand(command_id):
            return None
        given = to_js_object(args)
        try:
            return CommandInfo(
                label=str(self._commands.label(command_id, given) or ""),
                caption=str(self._commands.caption(command_id, given) or ""),
                enabled=bool(self._commands.isEnabled(command_id, given)),
            )
        except Exception:  # a command whose label or isEnabled throws on these arguments
            return CommandInfo(label=command_id, caption="", enabled=False)

    async def args_schema(self, command_id: str) -> Optional[dict[str, Any]]:
        try:
            described = to_python(await self._commands.describedBy(command_id))
        except Exception:
            return None
        schema = described.get("args") if isinstance(described, dict) else None
        return schema if isinstance(schema, dict) else None

    async def execute(self, command_id: str, args: dict[str, Any]) -> Any:
        result: list[Any] = []

        async def run() -> None:
            result.append(await self._commands.execute(command_id, to_js_object(args)))

        try:
            await self._dialogs.wait(run(), f"ran {command_id}")
        except ToolError:
            raise
        except Exception as exc:  # the command threw or its promise rejected
            raise ToolError(ErrorCode.LAB_ERROR, f"{command_id} failed: {one_line(str(exc))}", commandId=command_id)
        return _as_data(result[0] if result else None)
