"""JSON Schemas for WebMCP: object-rooted, self-contained, ASCII only."""

import json
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from pydantic.config import JsonDict
from typing_extensions import NotRequired, TypedDict

from ..base.errors import ErrorCode, ToolError
from ..base.fields import MessageField
from ..base.text import utf8_len


class ErrorResult(TypedDict):
    """A failure: one code of the closed set, a message, what to do next, and details."""

    error: Annotated[ErrorCode, Field(description="The error code (closed set; see the tool reference).")]
    message: MessageField
    hint: NotRequired[Annotated[str, Field(description="What to do next.")]]
    retryable: NotRequired[Annotated[bool, Field(description=(
        "Whether the same call may succeed later without changing its arguments."))]]


class CutResult(TypedDict):
    """A result that did not fit the size bound even after dropping list items: a prefix of its JSON."""

    truncated: Annotated[Literal[True], Field(description=(
        "Whether something was left out to fit the bounds (see omittedCount)."))]
    reason: Annotated[str, Field(description="Why (for a denied proposal: the human's reason, or null).")]
    maxBytes: Annotated[int, Field(description="The size bound in bytes.")]
    partial: Annotated[str, Field(description="The beginning of the result's JSON.")]


class Arguments(BaseModel):
    """Base of every tool's input model: strict types, unknown arguments refused."""

    model_config = ConfigDict(extra="forbid", strict=True)

    also_taken: ClassVar[str] = ""
    """Arguments still taken as earlier versions or the reference extension spelled them, which the schema no
    longer shows (a model pays for every character of it), in words for the tool reference."""


class NoArguments(Arguments):
    pass


class PositionArgument(Arguments):
    line: int = Field(ge=0)
    column: int = Field(ge=0)


class SelectionArgument(Arguments):
    """Zero-based lines and columns (in characters); end exclusive."""

    start: PositionArgument
    end: PositionArgument


def _unsaid(node: dict[str, Any], key: str) -> bool:
    """What a compact input schema leaves implicit: a null, empty or zero-from-zero default (a false one is
    said: a model does not take a missing default for false); that objects are closed (every argument
    object is checked as strictly when called)."""
    value = node[key]
    if key == "type" and "enum" in node and value == "string":
        return True  # the enum's values say it
    if key == "default":
        return value is None or value == "" or (value == 0 and value is not False and node.get("minimum") == 0)
    return key == "additionalProperties" and value is False


def _optional(options: list[Any]) -> Any:
    """`anyOf [X, null]` as X: an optional argument is left out rather than sent as null (the arguments'
    validator still takes null for it), and X alone costs a third of the characters."""
    others = [option for option in options if option != {"type": "null"}]
    if len(others) == len(options) or len(others) != 1:
        return None
    return others[0]


def _resolve(node: Any, definitions: dict[str, Any], compact: bool = False) -> Any:
    """Inline `$ref`s and drop pydantic's generated titles; `compact` also drops null defaults and
    writes `X or null` as X (what an input schema costs the model on every turn)."""
    if isinstance(node, list):
        return [_resolve(item, definitions, compact) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target = definitions[node["$ref"].rsplit("/", 1)[-1]]
        extra = {key: value for key, value in node.items() if key != "$ref"}
        return _resolve({**target, **extra}, definitions, compact)
    options = node.get("anyOf")
    if compact and isinstance(options, list):
        merged = _optional([_resolve(option, definitions, compact) for option in options])
        if merged is not None:
            extra = {key: value for key, value in node.items() if key != "anyOf"}
            return _resolve({**merged, **extra}, definitions, compact)
    resolved = {}
    for key, value in node.items():
        if key in ("title", "$defs") or (compact and _unsaid(node, key)):
            continue
        if key == "properties":
            resolved[key] = {name: _resolve(schema, definitions, compact) for name, schema in value.items()}
        else:
            resolved[key] = _resolve(value, definitions, compact)
    return resolved


def _object_rooted(schema: dict[str, Any], nullable: bool) -> bool:
    """An object, one of several objects, or (when `nullable`) also null."""
    if schema.get("type") == "object":
        return True
    kinds = {option.get("type") for option in schema.get("anyOf", [])}
    return "object" in kinds and kinds <= ({"object", "null"} if nullable else {"object"})


def _finish(schema: dict[str, Any], nullable: bool = False, compact: bool = False) -> dict[str, Any]:
    result = _resolve(schema, schema.get("$defs", {}), compact)
    if not isinstance(result, dict) or not _object_rooted(result, nullable):
        raise ValueError("tool schemas must be object-rooted")
    if not json.dumps(result, ensure_ascii=False).isascii():
        raise ValueError("tool schemas must be ASCII only")
    return result


def input_schema(model: type[Arguments]) -> dict[str, Any]:
    """The model's JSON Schema, compact. Closed objects are not said: an unknown argument is refused when
    called, with the accepted ones named."""
    return _finish(model.model_json_schema(), compact=True)


def output_schema(result_type: Any) -> dict[str, Any]:
    """An object (or one of several), or, for a result that may be null, also null."""
    return _finish(TypeAdapter(result_type).json_schema(mode="serialization"), nullable=True)


def result_variants(*schemas: dict[str, Any]) -> dict[str, Any]:
    """One output schema admitting any of several result shapes (object-rooted unless null is one of them)."""
    variants: list[dict[str, Any]] = []
    for schema in schemas:
        variants.extend(schema["anyOf"] if set(schema) == {"anyOf"} else [schema])
    combined: dict[str, Any] = {"anyOf": variants}
    if all(variant.get("type") == "object" for variant in variants):
        combined = {"type": "object", **combined}  # MCP clients expect an object-rooted output schema
    return combined


def _field_name(location: tuple[Any, ...]) -> str:
    return ".".join(str(part) for part in location) or "(arguments)"


def parse_arguments(model: type[Arguments], raw: Any) -> Arguments:
    """Validate raw input, turning the first problem into INVALID_ARGUMENT."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise ToolError(ErrorCode.INVALID_ARGUMENT, "Arguments must be a JSON object.")
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        problem = exc.errors()[0]
        field = _field_name(problem["loc"])
        if problem["type"] == "extra_forbidden":
            accepted = list(model.model_fields)
            names = ", ".join(f'"{name}"' for name in accepted) or "none"
            raise ToolError(
                ErrorCode.INVALID_ARGUMENT,
                f'Unknown argument "{field}". Accepted arguments: {names}.',
                field=field,
                accepted=accepted,
            ) from None
        if problem["type"] == "missing":
            message = f'Missing required argument "{field}".'
        else:
            message = f'Invalid argument "{field}": {problem["msg"]}.'
        raise ToolError(ErrorCode.INVALID_ARGUMENT, message, field=field) from None


def text_bound(max_bytes: int) -> JsonDict:
    """The schema's maxLength for a text argument bounded in UTF-8 bytes (the byte bound is checked on call)."""
    return {"maxLength": max_bytes}


def list_bound(max_items: int) -> JsonDict:
    return {"maxItems": max_items}


def require_max_bytes(field: str, value: str, limit: int) -> None:
    """INVALID_ARGUMENT with the UTF-8 size when a text argument is over its limit (never truncated)."""
    size = utf8_len(value)
    if size > limit:
        raise ToolError(
            ErrorCode.INVALID_ARGUMENT,
            f"{field} is {size} bytes of UTF-8; the limit is {limit}. Nothing was changed.",
            field=field,
            bytes=size,
        )
