"""Which tools are registered with WebMCP, following the owner's settings live (no reload).

A tool is unregistered by aborting the signal it was registered with (the
WebMCP way, which Chromium 156 and the @mcp-b/global polyfill both honour).
"""

import asyncio
from typing import Any, Callable

from js import AbortController, Object

from ..registry import Registry, Tool
from ..settings import Settings
from .ffi import to_js_object


class Registrations:
    def __init__(self, model_context: Any, registry: Registry, descriptor: Callable[[Tool], Any]):
        self._model_context = model_context
        self._registry = registry
        self._descriptor = descriptor
        self._controllers: dict[str, Any] = {}

    def adopt(self, early: Any, digest: str, execute_for: Callable[[Tool], Any]) -> None:
        """Take over the tools the host registered from the build's copy of the descriptors (see
        early.py): served from now on when they are this registry's, withdrawn otherwise."""
        if early is None:
            return
        same = early.digest == digest
        for name in Object.keys(early.controllers):
            controller, tool = getattr(early.controllers, name), self._registry.get(name)
            if same and tool is not None:
                early.serve(name, execute_for(tool))
                self._controllers[name] = controller
            else:
                controller.abort()

    @property
    def count(self) -> int:
        return len(self._controllers)

    async def follow(self, settings: Settings) -> list[str]:
        """Register the tools the settings allow and unregister the others; returns what failed, and why."""
        wanted = {tool.name for tool in self._registry if settings.allows(tool.setting)}
        for name in [name for name in self._controllers if name not in wanted]:
            self._controllers.pop(name).abort()
        missing = [tool for tool in self._registry if tool.name in wanted and tool.name not in self._controllers]
        # All at once: each registration is a round trip to the browser.
        outcomes = await asyncio.gather(*(self._register(tool) for tool in missing))
        return [outcome for outcome in outcomes if outcome]

    async def _register(self, tool: Tool) -> str:
        controller = AbortController.new()
        try:
            pending = self._model_context.registerTool(
                self._descriptor(tool), to_js_object({"signal": controller.signal})
            )
            if hasattr(pending, "then"):
                await pending
        except Exception as exc:
            return f"{tool.name}: {exc}"
        self._controllers[tool.name] = controller
        return ""
