"""The stress run's page: the built lab in its own browser context, tool calls made in batches through the
browser's own WebMCP API, and every result checked against the guarantees every call must keep.

A batch runs in the page (`document.modelContext.executeTool`, as an in-page agent calls), so ten thousand
calls cost seconds of transport instead of minutes; each call still crosses the browser's WebMCP layer.
"""

import functools
import json
import re
from dataclasses import dataclass, field
from typing import Any, Optional
from urllib.parse import urlparse

from jsonschema import Draft202012Validator
from pyodide_webmcp.base.errors import COMMON_ERRORS
from pyodide_webmcp.base.limits import MAX_IMAGE_BYTES, MAX_TOTAL_RESULT_BYTES
from pyodide_webmcp.tools import BUILT_IN

from tests.kernels import SHARE_KERNEL

READY = ".jp-webmcp-status[data-state=ready]"
BOOT_TIMEOUT_MS = 180_000
SETTINGS_ID = "jupyterlite-pyodide-webmcp:bridge"
CALL_TIMEOUT_MS = 30_000  # what Playwright's call_tool and common MCP hosts wait: a call past it hangs
# Harmless commands for jupyter_execute_command: they change the view only.
COMMAND_ALLOWLIST = [
    "application:toggle-left-area",
    "notebook:toggle-all-cell-line-numbers",
    "notebook:hide-all-cell-outputs",
    "notebook:show-all-cell-outputs",
    "notebook:collapse-all-headings",
    "notebook:expand-all-headings",
]
STRESS_SETTINGS = {"runCode": True, "commands": True, "commandAllowlist": COMMAND_ALLOWLIST}

# Each call through the browser's own executeTool, never longer than CALL_TIMEOUT_MS: a call that has not
# answered by then is reported as hung (it may still answer later; nothing waits for it).
BATCH = """async ([calls, timeoutMs]) => {
    const tools = Object.fromEntries((await document.modelContext.getTools()).map(t => [t.name, t]));
    const outcomes = [];
    for (const [name, input] of calls) {
        const started = performance.now();
        let timerId;
        const timer = new Promise(resolve => { timerId = setTimeout(() => resolve({hung: true}), timeoutMs); });
        const call = tools[name]
            ? document.modelContext.executeTool(tools[name], input, {}).then(
                text => ({text}), error => ({rejected: `${error.name}: ${error.message}`}))
            : Promise.resolve({rejected: `no tool ${name} is registered`});
        const outcome = await Promise.race([call, timer]);
        clearTimeout(timerId);  // a pending timer keeps its call alive for 30 s: the growth run would count it
        outcome.ms = performance.now() - started;
        outcomes.push(outcome);
    }
    return outcomes;
}"""

SAVE_FILE = """([path, content, type]) => window.jupyterapp.serviceManager.contents.save(
    path, type === 'notebook' ? {type, format: 'json', content} : type === 'directory' ? {type}
        : {type: 'file', format: 'text', content})"""


KERNELSPEC = {"name": "python", "display_name": "Python (Pyodide)", "language": "python"}
# The notebook panel at `path`, as a JS expression
PANEL = "Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.context && w.context.path === path)"
# A call started without waiting for it (a proposal waits for the human, a run for the kernel); `key` finds it
START = """([name, input, key]) => {
    window.__started = window.__started || {};
    window.__started[key] = document.modelContext.getTools().then(tools => document.modelContext.executeTool(
        tools.find(t => t.name === name), input, {})).then(text => ({text}), error => ({rejected: `${error.name}: ${error.message}`}));
}"""

NOT_JSON = object()


@dataclass
class Outcome:
    """One call as the client saw it: the result (its payload parsed), or how it failed to answer."""

    name: str
    arguments: Any
    ms: float
    result: Optional[dict] = None  # the whole return value
    rejected: Optional[str] = None  # the browser rejected the call: an exception reached the client
    hung: bool = False

    @property
    def text(self) -> str:
        return self.result["content"][0]["text"] if self.result else ""

    @property
    def payload(self) -> Any:
        """The parsed payload; NOT_JSON when content[0].text is not JSON."""
        try:
            return json.loads(self.text)
        except (ValueError, TypeError):
            return NOT_JSON

    @property
    def is_error(self) -> bool:
        return bool(self.result and self.result.get("isError"))

    @property
    def code(self) -> Optional[str]:
        payload = self.payload
        return payload.get("error") if self.is_error and isinstance(payload, dict) else None

    @property
    def pending(self) -> bool:
        payload = self.payload
        return isinstance(payload, dict) and payload.get("status") == "pending"


@functools.cache
def output_validator(name: str) -> Draft202012Validator:
    return Draft202012Validator(BUILT_IN.get(name).output_schema)


def utf8_size(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


@dataclass
class Tally:
    """What every call must keep, counted: a failure is kept (the first few of each kind) for the report."""

    calls: int = 0
    rejected: int = 0
    hung: int = 0
    internal_errors: int = 0
    over_bound: int = 0
    schema_failures: int = 0
    largest_bytes: int = 0
    slowest_ms: float = 0.0
    examples: dict[str, list[str]] = field(default_factory=dict)

    def note(self, kind: str, outcome: Outcome, detail: str = "") -> None:
        kept = self.examples.setdefault(kind, [])
        if len(kept) < 5:
            arguments = json.dumps(outcome.arguments, ensure_ascii=True)[:300]
            kept.append(f"{outcome.name} {arguments}: {detail or outcome.text[:300]}")

    def check(self, outcome: Outcome) -> None:
        self.calls += 1
        self.slowest_ms = max(self.slowest_ms, outcome.ms)
        if outcome.hung:
            self.hung += 1
            self.note("hung", outcome, f"no answer within {CALL_TIMEOUT_MS} ms")
            return
        if outcome.rejected is not None or not _well_formed(outcome.result):
            self.rejected += 1
            self.note("rejected", outcome, outcome.rejected or f"not a tool result: {str(outcome.result)[:200]}")
            return
        size = utf8_size(outcome.text)
        self.largest_bytes = max(self.largest_bytes, size)
        images = [item for item in outcome.result["content"][1:] if item.get("type") == "image"]
        if size > MAX_TOTAL_RESULT_BYTES or any(len(item.get("data", "")) * 3 // 4 > MAX_IMAGE_BYTES for item in images):
            self.over_bound += 1
            self.note("over bound", outcome, f"{size} bytes")
        payload = outcome.payload
        if payload is NOT_JSON:
            self.schema_failures += 1
            self.note("schema", outcome, "content[0].text is not JSON")
            return
        if outcome.code == "INTERNAL_ERROR":
            self.internal_errors += 1
            self.note("INTERNAL_ERROR", outcome)
        problem = schema_problem(outcome.name, payload, outcome.is_error)
        if problem:
            self.schema_failures += 1
            self.note("schema", outcome, problem)


def _well_formed(result: Any) -> bool:
    """`{content: [{type: "text", text}, images...], isError?}` and nothing else (docs/architecture.md)."""
    try:
        return (set(result) <= {"content", "isError"} and result["content"][0]["type"] == "text"
                and isinstance(result["content"][0]["text"], str)
                and all(item["type"] == "image" for item in result["content"][1:]))
    except (KeyError, IndexError, TypeError):
        return False


def schema_problem(name: str, payload: Any, is_error: bool) -> Optional[str]:
    """Why a payload breaks its tool's own output schema (an undeclared error code included), or None."""
    tool = BUILT_IN.get(name)
    if is_error and isinstance(payload, dict) and tool.budgeted:
        declared = {code.value for code in (*tool.errors, *COMMON_ERRORS)}
        if payload.get("error") not in declared:
            return f"error code {payload.get('error')} is not declared by {name}"
    errors = sorted(output_validator(name).iter_errors(payload), key=lambda error: list(error.absolute_path))
    if errors:
        return f"{errors[0].message[:200]} at {list(errors[0].absolute_path)}"
    return None


class StressPage:
    """The lab in a fresh browser context with the power tools on, its requests recorded."""

    def __init__(self, browser, origin: str, *, settings: Optional[dict] = None, **context_options):
        self.origin = origin
        self.context = browser.new_context(**context_options)
        self.requests: list[str] = []
        self.context.on("request", lambda request: self.requests.append(request.url))
        self.page = self.context.new_page()
        self.page.set_default_timeout(120_000)
        self.settings = STRESS_SETTINGS if settings is None else settings

    def open(self, query: str = "") -> "StressPage":
        self.page.goto(f"{self.origin}/lab/index.html{query}")
        self.page.wait_for_selector(READY, timeout=BOOT_TIMEOUT_MS)
        stored = self.page.evaluate(
            "async id => JSON.parse((await window.jupyterapp.serviceManager.settings.fetch(id)).raw || '{}')",
            SETTINGS_ID)
        if self.settings and any(stored.get(key) != value for key, value in self.settings.items()):
            self.page.evaluate("([id, raw]) => window.jupyterapp.serviceManager.settings.save(id, raw)",
                               [SETTINGS_ID, json.dumps({**stored, **self.settings})])
            self.page.reload()
            self.page.wait_for_selector(READY, timeout=BOOT_TIMEOUT_MS)
        return self

    def close(self) -> None:
        self.context.close()

    def batch(self, calls: list[tuple[str, Any]], tally: Optional[Tally] = None,
              timeout_ms: int = CALL_TIMEOUT_MS) -> list[Outcome]:
        """Make the calls one after another in the page; each outcome is checked into `tally` when given."""
        raw = self.page.evaluate(BATCH, [[list(call) for call in calls], timeout_ms])
        outcomes = []
        for (name, arguments), seen in zip(calls, raw):
            result = json.loads(seen["text"]) if "text" in seen else None
            outcome = Outcome(name, arguments, seen["ms"], result, seen.get("rejected"), seen.get("hung", False))
            if tally is not None:
                tally.check(outcome)
            outcomes.append(outcome)
        return outcomes

    def call(self, name: str, arguments: Any = None, tally: Optional[Tally] = None) -> Outcome:
        return self.batch([(name, {} if arguments is None else arguments)], tally)[0]

    def share_kernel(self, path: str) -> None:
        """Let `path`'s notebook, when it opens, use a kernel already running (tests/kernels.py)."""
        self.page.evaluate(SHARE_KERNEL, path)

    def save(self, path: str, content: Any, kind: str = "notebook") -> None:
        self.page.evaluate(SAVE_FILE, [path, content, kind])

    def foreign_requests(self) -> list[str]:
        return [url for url in self.requests
                if urlparse(url).scheme not in ("data", "blob") and not url.startswith(self.origin + "/")]

    def wait_kernel_idle(self, path: str, timeout_ms: int = 180_000) -> None:
        self.page.wait_for_function(
            """path => {
                const panel = Array.from(window.jupyterapp.shell.widgets('main'))
                    .find(w => w.context && w.context.path === path);
                return panel?.sessionContext?.session?.kernel?.status === 'idle';
            }""",
            arg=path, timeout=timeout_ms, polling=250)


SECRET = re.compile(r"SECRET[0-9A-F]{10}")


def secret(rng) -> str:
    """A planted secret, drawn from the run's seeded `rng` (a replayed seed plants the same): a token no tool output
    contains unless it came from where it was planted."""
    return f"SECRET{rng.getrandbits(40):010X}"
