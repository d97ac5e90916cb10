"""Random tool arguments drawn from each tool's input schema, with values an agent could know or guess.

A field is filled from a pool when its name says what it holds (`cellId` from the notebooks' real ids,
hidden ones and made-up ones; `notebookPath` from real, hidden and missing paths; `threadId`,
`pendingId`, ...), else from its schema. `fuzz` is the chance that a field gets a value of the wrong
kind (another type, an out-of-range number, a huge or hostile string), that a required one is left out,
or that an unknown one is added.
"""

import random
from dataclasses import dataclass, field
from typing import Any

from pyodide_webmcp.tools import BUILT_IN

from .harness import SECRET

# Text an agent writes. No SECRET token (planted secrets must only come from where they were planted), and
# nothing that would stall the shared kernel (input(), sleeps, endless loops).
TEXTS = [
    "", "x = 1", "print('hello')", "1 +", "# note", "a\nb\nc", "\t  indented", "é ü 中文 🙂", "\u200b\u200d",
    "<b>bold</b>", "<script>window.__stressScript = (window.__stressScript || 0) + 1</script>",
    "[link](javascript:alert(1))", "\x1b[31mred\x1b[0m", "\x00\x01\x7f", "line\r\nbreak", "```\nfence\n```",
    "raise ValueError('stress')", "import math\nmath.sqrt(2)", "x" * 3000, "🙂" * 500, "\ud800 lone", "null",
    "{\"json\": true}", "%%timeit\npass", "!ls", "?", "def f(:\n", "1/0",
]
SNIPPETS = ["print(1 + 1)", "x = 40 + 2", "import sys; print(sys.version_info[:2])", "sorted(dir())[:3]", "1/0",
            "print('\\x1b[1mbold\\x1b[0m')", "for i in range(3): print(i)", "'é' * 3", ""]
QUERIES = ["x", "print", "SECRET", r"SECRET\w+", "(a+)+$", "[", "é", "\\", ".*", "1", "hello", "🙂", "SECRET0"]
BUTTONS = ["OK", "Ok", "Cancel", "Overwrite", "Revert", "No Kernel", "Select", 0, 1, 2, -1, 99]
KERNELS = ["python", "Python", "pyodide", "r", "", "javascript"]
NOT_ALLOWED_COMMANDS = ["notebook:run-all-cells", "docmanager:delete", "no:such-command", ""]

# Values of the wrong kind, for fuzzing
WRONG = [None, True, False, 0, -1, 2**31, 2**53 + 1, -(2**63), 1.5, 1e308, -0.0, "", " ", "-1", "null", [],
         [None], {}, {"a": {"b": {"c": []}}}, "x" * 70_000, "\ud800", "\x00", "../../etc", "/", "💥" * 2000,
         ["x"] * 200, list(range(150)), {"__proto__": {"polluted": True}}, "<img src=x onerror=alert(1)>"]


@dataclass
class Pools:
    """What an agent could know or guess: real ids (visible and hidden), made-up ids, paths, threads."""

    notebook_paths: list[str] = field(default_factory=list)
    directories: list[str] = field(default_factory=lambda: ["", "missing-folder"])
    files: list[str] = field(default_factory=list)
    cell_ids: list[str] = field(default_factory=list)
    thread_ids: list[str] = field(default_factory=list)
    pending_ids: list[str] = field(default_factory=lambda: ["call-999999"])
    hashes: list[str] = field(default_factory=lambda: ["0" * 16, "nothash"])
    sources: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    queries: list[str] = field(default_factory=lambda: list(QUERIES))
    commands: list[str] = field(default_factory=list)
    cell_count: int = 10
    ranges: list[tuple[int, int]] = field(default_factory=list)  # empty, inverted, past the end, only hidden cells


class ArgumentMaker:
    def __init__(self, rng: random.Random, pools: Pools, fuzz: float = 0.0):
        self.rng = rng
        self.pools = pools
        self.fuzz = fuzz

    def arguments(self, tool_name: str) -> dict:
        schema = BUILT_IN.get(tool_name).input_schema
        value = self._object(schema, schema, tool_name)
        if {"startIndex", "endIndex"} <= set(schema.get("properties", {})) and self.pools.ranges:
            if self.rng.random() < 0.4 and "cellIds" not in value:
                value["startIndex"], value["endIndex"] = self.rng.choice(self.pools.ranges)
        return value

    # The schema walk

    def _object(self, schema: dict, root: dict, tool_name: str) -> dict:
        value = {}
        required = set(schema.get("required", []))
        for name, sub in schema.get("properties", {}).items():
            if name in required:
                if self.rng.random() < self.fuzz / 4:
                    continue  # a required field left out
            elif self.rng.random() < 0.5:
                continue  # optional: mostly left to its default
            value[name] = self._field(name, sub, root, tool_name)
        if self.rng.random() < self.fuzz / 4:
            value[self.rng.choice(["unknown", "cellid", "notebook_path", "__proto__"])] = self._wrong()
        return value

    def _field(self, name: str, schema: dict, root: dict, tool_name: str) -> Any:
        if self.rng.random() < self.fuzz:
            return self._wrong()
        known = self._known(name, tool_name)
        if known is not _UNKNOWN:
            return known
        return self._from_schema(schema, root, tool_name, name)

    def _from_schema(self, schema: dict, root: dict, tool_name: str, name: str) -> Any:
        rng = self.rng
        if "$ref" in schema:
            schema = root["$defs"][schema["$ref"].split("/")[-1]]
        if "anyOf" in schema:
            branches = [b for b in schema["anyOf"] if b.get("type") != "null"]
            if not branches or rng.random() < 0.15:
                return None
            return self._from_schema({**rng.choice(branches), **{k: v for k, v in schema.items() if k == "maxLength"}},
                                     root, tool_name, name)
        if "const" in schema:
            return schema["const"]
        if "enum" in schema:
            return rng.choice(schema["enum"])
        kind = schema.get("type")
        if kind == "object":
            if "properties" not in schema:
                return {}
            return self._object(schema, root, tool_name)
        if kind == "array":
            count = rng.choice([0, 1, 1, 2, 3, min(schema.get("maxItems", 5), 5)])
            return [self._field(name.rstrip("s") if name.endswith("Ids") else name, schema.get("items", {}), root,
                                tool_name) for _ in range(count)]
        if kind == "boolean":
            return rng.random() < 0.5
        if kind == "integer":
            low = schema.get("minimum", 0)
            high = schema.get("maximum", max(low, self.pools.cell_count + 3))
            return rng.choice([low, rng.randint(low, high), high])
        if kind == "number":
            low, high = schema.get("minimum", 0), schema.get("maximum", 10)
            return round(rng.uniform(low, min(high, 2)), 2)
        if kind == "string":
            return rng.choice(TEXTS)[: schema.get("maxLength", 10**9)]
        return rng.choice(TEXTS)

    def _wrong(self) -> Any:
        return self.rng.choice(WRONG)

    # Values that come from the notebooks

    def _known(self, name: str, tool_name: str) -> Any:
        rng, pools = self.rng, self.pools
        choose = rng.choice
        if name == "notebookPath" or (name == "path" and tool_name == "jupyter_open_notebook"):
            return choose(pools.notebook_paths)
        if name == "path" and tool_name == "jupyter_list_workspace":
            return choose([*pools.directories, None])
        if name == "path" and tool_name == "jupyter_read_file":
            return choose(pools.files + pools.notebook_paths)
        if name == "directory":
            return choose(pools.directories)
        if name == "name" and tool_name == "jupyter_create_notebook":
            return choose(pools.names)
        if name in ("cellId", "referenceCellId"):
            return choose(pools.cell_ids)
        if name == "threadId":
            return choose(pools.thread_ids)
        if name == "pendingId":
            return choose(pools.pending_ids)
        if name == "dialogId":
            return choose(["dialog-1", "dialog-2", None])
        if name == "button":
            return choose(BUTTONS)
        if name == "expectedSourceHash":
            return choose(pools.hashes)
        if name == "old":
            source = choose(pools.sources or [""])
            start = rng.randint(0, len(source))
            return source[start:start + rng.randint(1, 12)] or choose(TEXTS)
        if name == "query":
            return choose(pools.queries)
        if name == "code":
            return choose(SNIPPETS)
        if name == "commandId":
            return choose(pools.commands + NOT_ALLOWED_COMMANDS)
        if name == "args":
            return choose([None, {}, {"unknown": 1}])
        if name == "kernelName" or (name == "kernel" and tool_name == "jupyter_create_notebook"):
            return choose(KERNELS)
        if name == "timeoutSeconds":
            return choose([0, 0.5, 1, None])  # bounded: a wait never holds the run up for long
        if name in ("line", "column"):
            return rng.randint(0, 4)
        return _UNKNOWN


_UNKNOWN = object()


def weighted_tools(weights: dict[str, float], registered: set[str]) -> tuple[list[str], list[float]]:
    """Every registered tool, with its weight (1 unless given)."""
    names = sorted(registered)
    return names, [weights.get(name, 1.0) for name in names]


def pick(rng: random.Random, tools: tuple[list[str], list[float]]) -> str:
    return rng.choices(tools[0], tools[1])[0]


def missing_twin(value: str, rng: random.Random) -> str:
    """A made-up value of the same length: each SECRET token another one, else one letter changed."""
    if SECRET.search(value):
        return SECRET.sub(lambda _: "SECRET" + "".join(rng.choice("0123456789ABCDEF") for _ in range(10)), value)
    stem, dot, extension = value.rpartition(".")
    if not dot or "/" in extension:
        stem, extension = value, ""
    changed = stem[:-1] + ("q" if stem[-1:] != "q" else "z")
    return changed + (f".{extension}" if extension else "")
