"""The tool reference, docs/tools.md and docs/tool-schemas.json, generated from the bridge's registry."""

import sys

from .paths import BRIDGE_SOURCE, ROOT
from .shell import log


def write_docs(check: bool) -> None:
    """Write the tool reference's files, or with `check` fail when a committed one is stale."""
    sys.path[:0] = [str(BRIDGE_SOURCE), str(ROOT / "docs")]
    from reference import rendered

    for path, text in rendered().items():
        name = path.relative_to(ROOT)
        if not check:
            path.write_text(text)
            log(f"wrote {name}")
        elif not path.exists() or path.read_text() != text:
            sys.exit(f"{name} is stale: run python3 build.py docs")
    if check:
        log("tool reference is up to date")
