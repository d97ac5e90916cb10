"""The build's copy of the tool descriptors, so the page lists the tools before Python has started.

Made when the extension is built, from the tools' catalog (catalog.py), and shipped in its manifest.
The host registers these descriptors as soon as the manifest arrives; each call waits for Python (at
most the default call budget, then `BRIDGE_STARTING`; `BRIDGE_UNAVAILABLE` if Python never starts) and
is then served by it. Python keeps those registrations only when their digest is its catalog's, and
registers its own otherwise (see adapter/registrations.py). The two refusals are made here, so their
shape has one home (the envelope).
"""

from typing import Any, Iterable

from ..base import limits
from ..base.errors import ErrorCode, ToolError, error_payload
from ..base.hashing import sha256_hex
from ..base.text import to_json
from .envelope import failure, wire

STARTING_MESSAGE = "The bridge's Python is still starting; this call was not run."
UNAVAILABLE_MESSAGE = "The bridge could not start on this page; this call was not run."


def descriptors_digest(descriptors: Iterable[dict[str, Any]]) -> str:
    """Changes with any tool's name, description, schema or annotations."""
    return sha256_hex(to_json(list(descriptors)))


def _refusal(code: ErrorCode, message: str) -> dict[str, Any]:
    return wire(failure(error_payload(ToolError(code, message))))


def prelisted_tools(tools: Iterable[tuple[dict[str, Any], Any, dict[str, bool]]], digest: str) -> dict[str, Any]:
    """What the host needs to list the tools before Python starts: each (descriptor, opt-in setting, every hint), the digest
    Python checks, how long a call waits for Python, and the two refusals. The host registers the descriptor
    alone; the hints are the MCP server's (desktop/), which reads this manifest."""
    return {
        "digest": digest,
        "budgetMs": limits.CALL_BUDGET_MS,
        "tools": [{**descriptor, "setting": setting, "hints": hints} for descriptor, setting, hints in tools],
        "starting": _refusal(ErrorCode.BRIDGE_STARTING, STARTING_MESSAGE),
        "unavailable": _refusal(ErrorCode.BRIDGE_UNAVAILABLE, UNAVAILABLE_MESSAGE),
    }
