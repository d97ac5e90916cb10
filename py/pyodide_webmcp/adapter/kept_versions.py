"""A version of a file the lab would lose, kept beside it under a free name (name.<label>.ipynb)."""

from typing import Any, Optional

from .ffi import to_js_object


async def free_path(contents: Any, path: str, label: str) -> str:
    """The first `name.<label>.ext` (then `-2`, `-3`...) beside `path` that no file has."""
    folder, _, name = path.rpartition("/")
    stem, dot, suffix = name.rpartition(".") if "." in name else (name, "", "")
    for number in range(1, 1000):
        candidate = f"{stem}.{label}{'' if number == 1 else f'-{number}'}{dot}{suffix}"
        candidate = f"{folder}/{candidate}" if folder else candidate
        try:
            await contents.get(candidate, to_js_object({"content": False}))
        except Exception:  # noqa: BLE001 - no such file: the name is free
            return candidate
    raise FileExistsError(f"no free name beside {path}")


async def keep_version(contents: Any, path: str, label: str, content: Any) -> Optional[str]:
    """Write `content` (a notebook's JSON, as JupyterLab gives it) beside `path`; its path, or None if it failed."""
    try:
        kept = await free_path(contents, path, label)
        await contents.save(kept, to_js_object({"type": "notebook", "format": "json", "content": content}))
    except Exception:  # noqa: BLE001 - the save's own outcome stands; only the copy is missing
        return None
    return kept
