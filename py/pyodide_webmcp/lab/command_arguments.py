"""Checking a JupyterLab command's arguments against the schema the command declares. Pure.

JupyterLab commands describe their arguments with a JSON Schema (`describedBy`);
this checks what an agent passes against the part of it that matters for a
call: known names, required ones, and the JSON types and enums of each.
"""

from typing import Any, Optional

from ..base.errors import ErrorCode, ToolError
from ..base.text import json_object

_TYPES = {
    "string": str,
    "boolean": bool,
    "object": dict,
    "array": list,
    "null": type(None),
}


def _is(value: Any, kind: str) -> bool:
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    expected = _TYPES.get(kind)
    return expected is None or isinstance(value, expected)


def _invalid(message: str, **details: Any) -> ToolError:
    return ToolError(ErrorCode.INVALID_ARGUMENT, message, **details)


def check_arguments(args: dict[str, Any], schema: Optional[dict[str, Any]]) -> None:
    """INVALID_ARGUMENT naming the accepted arguments when `args` do not fit the command's schema."""
    if not isinstance(schema, dict) or schema.get("type") not in (None, "object"):
        return  # the command declares nothing to check against
    properties = json_object(schema.get("properties"))
    accepted = sorted(properties)
    if schema.get("additionalProperties", True) is False or properties:
        unknown = sorted(set(args) - set(properties))
        if unknown:
            names = ", ".join(f'"{name}"' for name in accepted) or "none"
            raise _invalid(
                f'Unknown argument "{unknown[0]}" for this command. Accepted arguments: {names}.',
                field=f"args.{unknown[0]}",
                accepted=accepted,
            )
    for name in schema.get("required") or []:
        if name not in args:
            raise _invalid(f'Missing required argument "{name}" for this command.', field=f"args.{name}", accepted=accepted)
    for name, value in args.items():
        declared = json_object(properties.get(name))
        kinds = declared.get("type")
        kinds = [kinds] if isinstance(kinds, str) else kinds if isinstance(kinds, list) else []
        if kinds and not any(_is(value, kind) for kind in kinds):
            raise _invalid(f'Argument "{name}" must be {" or ".join(kinds)}.', field=f"args.{name}", accepted=accepted)
        if isinstance(declared.get("enum"), list) and value not in declared["enum"]:
            raise _invalid(
                f'Argument "{name}" must be one of {declared["enum"]}.', field=f"args.{name}", accepted=accepted
            )
