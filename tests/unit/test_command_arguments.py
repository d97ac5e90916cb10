"""lab/command_arguments.py: a command's arguments checked against the schema it declares."""

import pytest
from pyodide_webmcp.base.errors import ToolError
from pyodide_webmcp.lab.command_arguments import check_arguments

SCHEMA = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "count": {"type": "integer"}, "mode": {"enum": ["a", "b"]}},
    "required": ["path"],
}


@pytest.mark.parametrize(
    ("args", "field"),
    [({"path": "x", "colour": 1}, "args.colour"), ({}, "args.path"), ({"path": 3}, "args.path"),
     ({"path": "x", "count": True}, "args.count"), ({"path": "x", "mode": "c"}, "args.mode")],
)
def test_command_arguments_are_checked_against_the_declared_schema(args, field):
    with pytest.raises(ToolError) as refused:
        check_arguments(args, SCHEMA)
    assert refused.value.details["field"] == field and refused.value.details["accepted"] == ["count", "mode", "path"]


def test_command_arguments_pass_when_they_fit_or_nothing_is_declared():
    check_arguments({"path": "x", "count": 2, "mode": "b"}, SCHEMA)
    check_arguments({"anything": 1}, None)
    check_arguments({"anything": 1}, {"type": "object"})  # open schema, no properties
    with pytest.raises(ToolError):
        check_arguments({"anything": 1}, {"type": "object", "additionalProperties": False})
