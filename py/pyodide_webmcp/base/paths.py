"""Workspace path rules: relative, forward slashes, never above the root."""

from .errors import ErrorCode, ToolError

NOTEBOOK_SUFFIX = ".ipynb"


def _invalid(path: str, why: str) -> ToolError:
    return ToolError(ErrorCode.INVALID_PATH, f'Invalid path "{path}": {why}.', path=path)


def normalize_path(path: str) -> str:
    """Return the canonical workspace path ("" is the root) or raise INVALID_PATH."""
    if "\\" in path:
        raise _invalid(path, "use forward slashes")
    if path.startswith("/") or (len(path) > 1 and path[1] == ":" and path[0].isalpha()):
        raise _invalid(path, "paths are relative to the workspace root")
    if any(ord(char) < 32 for char in path):
        raise _invalid(path, "control characters are not allowed")
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                raise _invalid(path, "it leaves the workspace root")
            parts.pop()
        else:
            parts.append(part)
    return "/".join(parts)


def join_path(directory: str, name: str) -> str:
    return f"{directory}/{name}" if directory else name


def base_name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def is_notebook_path(path: str) -> bool:
    return path.endswith(NOTEBOOK_SUFFIX)
