"""The tool reference, docs/tools.md, generated from the bridge's registry."""

import sys

from .paths import BRIDGE_SOURCE, ROOT
from .shell import log

TOOL_DOCS = ROOT / "docs" / "tools.md"


def write_docs(check: bool) -> None:
    """Write docs/tools.md, or with `check` fail when the committed one is stale."""
    sys.path[:0] = [str(BRIDGE_SOURCE), str(ROOT / "docs")]
    from reference import render_reference

    text = render_reference()
    if check:
        if not TOOL_DOCS.exists() or TOOL_DOCS.read_text() != text:
            sys.exit(f"{TOOL_DOCS.relative_to(ROOT)} is stale: run python3 build.py docs")
        log("tool reference is up to date")
        return
    TOOL_DOCS.write_text(text)
    log(f"wrote {TOOL_DOCS.relative_to(ROOT)}")
