"""The site's own tools the page lists from the site build before their wheels are installed: a call of one
waits for the install, within the call budget, as a call of a built-in tool waits for Python to start."""

import asyncio
from typing import Any

from ..base.errors import ErrorCode, ToolError


class Installing:
    """The descriptors listed before the install, by name (what WebMCP registered: without the build's `hints`),
    and whether the install has finished (with the status line's note)."""

    def __init__(self, descriptors: list[dict[str, Any]]) -> None:
        self.descriptors = {descriptor["name"]: {key: value for key, value in descriptor.items() if key != "hints"}
                            for descriptor in descriptors}
        self.names = frozenset(self.descriptors)
        self.note = ""
        self._done = asyncio.Event()

    def finished(self, note: str) -> None:
        self.note = note
        self._done.set()

    async def installed(self, name: str, seconds: float) -> None:
        """Return once the install has finished; BRIDGE_STARTING when it has not within `seconds`."""
        try:
            await asyncio.wait_for(self._done.wait(), max(seconds, 0.0))
        except asyncio.TimeoutError:
            raise ToolError(ErrorCode.BRIDGE_STARTING, f"The site's tools are still being installed; {name} was "
                            "not run.") from None

    def not_installed(self, name: str) -> ToolError:
        """The refusal of a tool the site build listed whose wheel did not give it."""
        why = f" ({self.note})" if self.note else ""
        return ToolError(ErrorCode.BRIDGE_UNAVAILABLE, f"The site's tool {name} could not be installed{why}; "
                         "it was not run.")
