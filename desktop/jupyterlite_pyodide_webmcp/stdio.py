"""Only MCP on stdout: every other byte the process or its children write goes to stderr."""

import io
import os
import sys

STDOUT_FD_ENV = "JUPYTERLITE_WEBMCP_MCP_STDOUT"


def keep_stdout_for_mcp() -> None:
    """Point fd 1 at stderr for everything else, keeping the real stdout for MCP in a descriptor of its own.

    The kept descriptor is inherited (its number in `STDOUT_FD_ENV`), so `build.py mcp` can call this
    before pip, npm and the site's build print anything and still hand MCP the real stdout after it
    re-runs itself in its venv. Calling it again does nothing.
    """
    if STDOUT_FD_ENV in os.environ:
        return
    kept = os.dup(1)
    os.set_inheritable(kept, True)
    sys.stdout.flush()
    os.dup2(2, 1)
    os.environ[STDOUT_FD_ENV] = str(kept)


def mcp_stdout() -> io.TextIOWrapper:
    """The real stdout, kept by `keep_stdout_for_mcp`, as UTF-8 text written through at once."""
    keep_stdout_for_mcp()
    raw = os.fdopen(int(os.environ[STDOUT_FD_ENV]), "wb", buffering=0)
    return io.TextIOWrapper(raw, encoding="utf-8", newline="\n", write_through=True)


def log(message: str) -> None:
    """One line for the host's log (stderr)."""
    print(f"[jupyterlite-webmcp] {message}", file=sys.stderr, flush=True)
