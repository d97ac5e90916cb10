"""Kernel specs as the tools name them."""

from typing import Optional


def match_kernel(requested: Optional[str], specs: list[tuple[str, str]]) -> Optional[str]:
    """The kernel a requested name or language means (case-insensitive), or None."""
    if not requested:
        return None
    wanted = requested.strip().lower()
    for name, _language in specs:
        if name.lower() == wanted:
            return name
    for name, language in specs:
        if language.lower() == wanted:
            return name
    return None
