"""calls/tool.py: the tools, their schemas, descriptions and hints, and how a call's arguments are checked."""

import json
import re

import pyodide_webmcp
import pytest
from jsonschema import Draft202012Validator
from pyodide_webmcp.calls.current import NeverAborted
from pyodide_webmcp.calls.tool import HINT_DEFAULTS, PROPOSE_MODE
from pyodide_webmcp.kit.testing import call, call_result
from pyodide_webmcp.tools import BUILT_IN

EXPECTED_TOOLS = {
    "jupyter_get_context",
    "jupyter_list_workspace",
    "jupyter_open_notebook",
    "jupyter_create_notebook",
    "jupyter_get_cells",
    "jupyter_save_notebook",
    "jupyter_insert_cell",
    "jupyter_update_cell",
    "jupyter_delete_cell",
    "jupyter_run_cells",
    "jupyter_focus_cell",
    "jupyter_kernel_action",
    "jupyter_get_cell_access",
    "jupyter_list_comments",
    "jupyter_get_comment",
    "jupyter_create_comment",
    "jupyter_reply_comment",
    "jupyter_resolve_comment",
    "jupyter_reopen_comment",
    "jupyter_focus_comment",
    "jupyter_export_notebook",
    "jupyter_get_output_selection",
    "jupyter_wait_for_result",
    "jupyter_answer_dialog",
    "jupyter_search_notebook",
    "jupyter_replace_in_cell",
    "jupyter_update_cells",
    "jupyter_move_cell",
    "jupyter_clear_outputs",
    "jupyter_start_kernel",
    "jupyter_read_file",
    "jupyter_run_code",
    "jupyter_execute_command",
    "jupyter_list_commands",
}


LIST_BUDGET = 23_000
"""Characters of the default tool list as compact JSON: what a model pays for on every turn."""


def listed(tool) -> str:
    return json.dumps(
        {"name": tool.name, "description": tool.description, "inputSchema": tool.input_schema,
         "annotations": tool.annotations},
        separators=(",", ":"),
        ensure_ascii=False,
    )


def test_the_surface_stays_small():
    """What an agent sees by default (the owner's opt-in tools come on top): few tools, a bounded list."""
    default = [tool for tool in BUILT_IN if tool.setting is None]
    assert len(default) <= 31
    size = sum(len(listed(tool)) for tool in default)
    assert size <= LIST_BUDGET, f"the default tool list is {size:,} characters; the budget is {LIST_BUDGET:,}"


@pytest.mark.parametrize("tool", list(BUILT_IN), ids=lambda tool: tool.name)
def test_descriptions_are_short(tool):
    """A lead sentence saying what the tool does and returns, then at most a few words on when to use it."""
    lead = tool.description.split("\n\n")[0]
    assert lead.endswith(".") and len(lead) <= 200, f"lead of {len(lead)} characters"
    assert len(tool.description) <= 450, f"description of {len(tool.description)} characters"
    assert "Errors:" not in tool.description  # each error result carries its own hint


# Grading the definitions by the rules a machine can check: each one must read on its own ------------------

SELF_EXPLAINING = {
    "cellId", "threadId", "pendingId", "source", "cellType", "position", "includeSource", "includeOutputs",
    "caseSensitive", "recursive", "stopOnError", "limit", "query", "code", "line", "column", "start", "end",
    "kind", "anchor", "status", "action",
}
"""Arguments whose name, type and tool say all a description would (the rest are described)."""

UNDEFINED_TERMS = ("owner", "call budget", "Agent panel", "allowlist", "provenance", "budget")
"""The bridge's own words, which a model reading one tool cannot know."""

IDENTIFIER = re.compile(r"\b[a-z]+(?:[A-Z][a-z0-9]*)+\b")
WORD = re.compile(r"\b[A-Za-z_]+\b")


def texts(tool) -> list[str]:
    """Everything a model reads of a tool: its description and every argument's."""
    return [tool.description, *(prop["description"] for _, prop in properties(tool.input_schema) if "description" in prop)]


def field_names(schema) -> set[str]:
    return {path.rsplit(".", 1)[-1] for path, _ in properties(schema)}


@pytest.mark.parametrize("tool", list(BUILT_IN), ids=lambda tool: tool.name)
def test_every_argument_is_described_or_explains_itself(tool):
    undescribed = [
        path for path, prop in properties(tool.input_schema)
        if "description" not in prop and path.rsplit(".", 1)[-1] not in SELF_EXPLAINING
    ]
    assert not undescribed, undescribed


@pytest.mark.parametrize("tool", list(BUILT_IN), ids=lambda tool: tool.name)
def test_every_tool_says_what_it_returns(tool):
    """In its lead: "returns ...", or a read-only tool that reads or lists what it returns."""
    lead = tool.description.split("\n\n")[0]
    reads = tool.hints["readOnlyHint"] and lead.startswith(("Read ", "List ", "Find "))
    assert reads or re.search(r"\b[Rr]eturns?\b", lead), lead


@pytest.mark.parametrize("tool", list(BUILT_IN), ids=lambda tool: tool.name)
def test_no_term_a_model_cannot_know_from_this_tool_alone(tool):
    """No word of the bridge's own; a sibling by its full name; an error code said to be one; every field
    name one of this tool's arguments or result fields, or a result field of a tool it names."""
    from pyodide_webmcp.base.errors import ErrorCode

    short_names = {other.name.removeprefix("jupyter_") for other in BUILT_IN}
    named = [other for other in BUILT_IN if any(other.name in text for text in texts(tool))]
    known = field_names(tool.input_schema).union(*(field_names(other.output_schema) for other in [tool, *named]))
    for text in texts(tool):
        for term in UNDEFINED_TERMS:
            assert not re.search(rf"\b{term}", text, re.IGNORECASE), (term, text)
        assert not short_names & set(WORD.findall(text)), text
        for code in ErrorCode:
            for found in re.finditer(rf"\b{code.value}\b", text):
                assert text[: found.start()].endswith("error "), (code.value, text)
        assert set(IDENTIFIER.findall(text)) <= known, (set(IDENTIFIER.findall(text)) - known, text)


def test_shared_wording_is_said_once_per_tool():
    """Propose mode is one sentence, on exactly the tools the human may review; shared arguments read the same."""
    reviewed = {tool.name for tool in BUILT_IN if PROPOSE_MODE in tool.description}
    assert reviewed == {
        "jupyter_insert_cell", "jupyter_update_cell", "jupyter_update_cells", "jupyter_delete_cell",
        "jupyter_replace_in_cell", "jupyter_move_cell", "jupyter_clear_outputs", "jupyter_run_cells",
    }
    assert all(tool.description.count(PROPOSE_MODE) <= 1 for tool in BUILT_IN)
    for name in ("notebookPath", "threadId", "overwriteUnread", "offset"):
        shapes = {
            json.dumps(prop, sort_keys=True)
            for tool in BUILT_IN if tool.name not in ("jupyter_open_notebook", "jupyter_read_file")
            for path, prop in properties(tool.input_schema) if path.rsplit(".", 1)[-1] == name
        }
        assert len(shapes) == 1, (name, shapes)


def test_a_false_default_is_said_and_an_unsaid_one_is_null_empty_or_zero():
    """A model does not take a missing default for false: every boolean argument states its default."""
    booleans = [(tool.name, path, prop) for tool in BUILT_IN for path, prop in properties(tool.input_schema)
                if prop.get("type") == "boolean"]
    assert booleans and all("default" in prop for _, _, prop in booleans), [(n, p) for n, p, prop in booleans
                                                                               if "default" not in prop]
    said = {(name, path) for name, path, prop in booleans if prop["default"] is False}
    assert {("jupyter_get_cells", ".includeOutputs"), ("jupyter_search_notebook", ".caseSensitive"),
            ("jupyter_list_workspace", ".recursive"), ("jupyter_search_notebook", ".includeOutputs")} <= said


def test_an_argument_taken_but_not_in_the_schema_is_said_in_the_tool_reference():
    """Shapes kept working for earlier callers and the reference extension's, left out of what a model reads."""
    for tool in BUILT_IN:
        unlisted = set(tool.arguments.model_fields) - set(tool.input_schema.get("properties", {}))
        assert all(f"`{name}" in tool.arguments.also_taken for name in unlisted), (tool.name, unlisted)


class AlreadyAborted(NeverAborted):
    aborted = True


def test_registry_holds_the_expected_tools():
    assert {tool.name for tool in BUILT_IN} == EXPECTED_TOOLS


@pytest.mark.parametrize("tool", list(BUILT_IN), ids=lambda tool: tool.name)
def test_schemas_are_object_rooted_ascii_and_valid(tool):
    variants = tool.output_schema["anyOf"]
    assert {variant["type"] for variant in variants} in ({"object"}, {"object", "null"})
    assert tool.output_schema.get("type", "object") == "object" or {"null"} <= {v["type"] for v in variants}
    for schema in (tool.input_schema, tool.output_schema):
        assert json.dumps(schema, ensure_ascii=False).isascii()
        assert "$ref" not in json.dumps(schema)
        Draft202012Validator.check_schema(schema)
    assert tool.input_schema["type"] == "object" and "additionalProperties" not in tool.input_schema  # said by the refusal
    # LLM tool APIs refuse combinators at the root of an input schema
    assert not {"anyOf", "oneOf", "allOf"} & set(tool.input_schema)
    assert len(tool.name) <= 64 and tool.name.replace("_", "").isalnum()


def properties(schema, path=""):
    """(path, property schema) of every property anywhere in a schema."""
    if isinstance(schema, dict):
        for name, prop in (schema.get("properties") or {}).items():
            yield f"{path}.{name}", prop
            yield from properties(prop, f"{path}.{name}")
        for key, value in schema.items():
            if key != "properties":
                yield from properties(value, path)
    elif isinstance(schema, list):
        for item in schema:
            yield from properties(item, path)


@pytest.mark.parametrize("tool", list(BUILT_IN), ids=lambda tool: tool.name)
def test_every_result_field_has_its_meaning(tool):
    undescribed = [path for path, prop in properties(tool.output_schema) if "description" not in prop]
    assert not undescribed, undescribed


def test_a_result_field_means_the_same_in_every_tool():
    """One spelling, one meaning: a field (within the property that holds it) is described alike everywhere;
    `cell` is a written cell's reference in some results (described by its type) and the cell read in others."""
    meanings: dict[str, set[str]] = {}
    for tool in BUILT_IN:
        for path, prop in properties(tool.output_schema):
            meanings.setdefault(".".join(path.split(".")[-2:]), set()).add(prop.get("description", ""))
    assert sorted(field for field, said in meanings.items() if len(said) > 1) == [".cell"]


SEED_HINTS = {  # readOnlyHint, untrustedContentHint of the reference's tools
    "jupyter_get_context": (True, True), "jupyter_list_workspace": (True, True),
    "jupyter_open_notebook": (False, True), "jupyter_create_notebook": (False, False),
    "jupyter_get_cells": (True, True), "jupyter_get_cell_access": (True, True),
    "jupyter_insert_cell": (False, True), "jupyter_update_cell": (False, True),
    "jupyter_delete_cell": (False, True), "jupyter_run_cells": (False, True),
    "jupyter_focus_cell": (False, True), "jupyter_save_notebook": (False, False),
    "jupyter_kernel_action": (False, False), "jupyter_list_comments": (True, True),
    "jupyter_get_comment": (True, True), "jupyter_create_comment": (False, True),
    "jupyter_reply_comment": (False, True), "jupyter_resolve_comment": (False, True),
    "jupyter_reopen_comment": (False, True), "jupyter_focus_comment": (False, True),
    "jupyter_export_notebook": (True, True), "jupyter_get_output_selection": (True, True),
}


@pytest.mark.parametrize("tool", list(BUILT_IN), ids=lambda tool: tool.name)
def test_the_registration_states_both_hints_and_what_else_only_where_it_differs(tool):
    """readOnlyHint and untrustedContentHint on every tool, as booleans (as the reference's tools have them);
    consequentialHint only when true; MCP's write hints are not registered (no browser passes them on)."""
    hints = tool.annotations
    assert all(type(value) is bool for value in hints.values())
    assert set(hints) - {"consequentialHint"} == {"readOnlyHint", "untrustedContentHint"}
    assert hints.get("consequentialHint", True) is True
    assert hints == {key: value for key, value in tool.hints.items() if key in hints}
    if tool.name in SEED_HINTS:
        assert (hints["readOnlyHint"], hints["untrustedContentHint"]) == SEED_HINTS[tool.name]
    assert set(tool.hints) == set(HINT_DEFAULTS) and all(type(value) is bool for value in tool.hints.values())
    if tool.hints["readOnlyHint"]:  # the write hints mean nothing on a read-only tool: MCP's defaults
        assert (tool.hints["destructiveHint"], tool.hints["idempotentHint"]) == (True, False)


def test_which_tools_are_consequential_and_which_destructive():
    consequential = {t.name for t in BUILT_IN if t.hints["consequentialHint"]}
    assert {"jupyter_delete_cell", "jupyter_run_cells", "jupyter_kernel_action", "jupyter_save_notebook"} <= consequential
    assert "jupyter_start_kernel" not in consequential
    assert BUILT_IN.get("jupyter_start_kernel").hints["destructiveHint"] is False


def test_unknown_argument_lists_accepted_ones():
    result = call_result(None, "jupyter_get_cells", {"notebook": "x.ipynb"})
    error = result["structuredContent"]
    assert result["isError"] is True
    assert error["error"] == "INVALID_ARGUMENT" and error["field"] == "notebook"
    assert "notebookPath" in error["accepted"] and '"notebookPath"' in error["message"]


def test_wrong_type_and_missing_field_name_the_field():
    wrong = call(None, "jupyter_get_cells", {"startIndex": "3"})
    assert wrong["error"] == "INVALID_ARGUMENT" and wrong["field"] == "startIndex"
    missing = call(None, "jupyter_open_notebook", {})
    assert missing["error"] == "INVALID_ARGUMENT" and missing["field"] == "path"
    assert "Missing" in missing["message"]
    negative = call(None, "jupyter_get_cells", {"endIndex": -1})
    assert negative["field"] == "endIndex"
    not_object = call(None, "jupyter_get_context", ["a"])
    assert not_object["error"] == "INVALID_ARGUMENT"


def test_a_failing_lab_becomes_internal_error():
    class BrokenLab:
        def open_documents(self):
            raise RuntimeError("lab exploded")

    result = call_result(BrokenLab(), "jupyter_get_context", {})
    assert result["isError"] is True
    assert result["structuredContent"] == {
        "error": "INTERNAL_ERROR", "message": "lab exploded", "hint": "Retry once; if it persists, tell the human.",
        "retryable": True,
    }


def test_aborted_before_start():
    result = call_result(None, "jupyter_get_context", {}, abort=AlreadyAborted())
    assert result["structuredContent"]["error"] == "ABORTED"


def test_importing_the_package_touches_no_javascript():
    import sys

    assert callable(pyodide_webmcp.start) and len(BUILT_IN) >= 31  # every tool module imported, none touched js
    assert "js" not in sys.modules and "pyodide" not in sys.modules


def test_invalid_cell_type_has_its_own_code():
    error = call(None, "jupyter_insert_cell", {"cellType": "sql"})
    assert error["error"] == "INVALID_CELL_TYPE" and error["cellType"] == "sql"
    position = call(None, "jupyter_insert_cell", {"position": "left"})
    assert position["error"] == "INVALID_ARGUMENT" and position["field"] == "position"


def test_writes_over_the_size_limit_are_refused_with_their_byte_count():
    from pyodide_webmcp.base.limits import MAX_CELL_SOURCE_WRITE_BYTES

    source = "é" * (MAX_CELL_SOURCE_WRITE_BYTES // 2 + 1)
    for name, arguments in (
        ("jupyter_insert_cell", {"source": source}),
        ("jupyter_update_cell", {"cellId": "a", "source": source, "expectedSourceHash": "h"}),
    ):
        error = call(None, name, arguments)
        assert error["error"] == "INVALID_ARGUMENT" and error["bytes"] == len(source.encode()), name


def test_update_needs_source_and_hash():
    missing_source = call(None, "jupyter_update_cell", {"cellId": "a", "expectedSourceHash": "h"})
    assert missing_source["field"] == "source"
    missing_hash = call(None, "jupyter_update_cell", {"cellId": "a", "source": ""})
    assert missing_hash["field"] == "expectedSourceHash"
    null_source = call(None, "jupyter_update_cell", {"cellId": "a", "source": None, "expectedSourceHash": "h"})
    assert null_source["field"] == "source"
    unknown_action = call(None, "jupyter_kernel_action", {"action": "shutdown"})
    assert unknown_action["error"] == "INVALID_ARGUMENT" and unknown_action["field"] == "action"


def test_reseed_replaces_a_frozen_random_state():
    import random

    random.seed(1234)
    frozen = random.getstate()
    pyodide_webmcp.reseed()
    assert random.getstate() != frozen
