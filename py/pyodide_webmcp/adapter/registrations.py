"""Which tools are registered with WebMCP, following the owner's settings live (no reload).

A tool is unregistered by aborting the signal it was registered with (the
WebMCP way, which Chromium 156 and the @mcp-b/global polyfill both honour).
"""

import asyncio
import json
from typing import Any, Callable

from js import AbortController, Object

from ..base.text import to_json
from ..calls.catalog import Catalog, Entry
from ..owner.site_settings import Settings
from .ffi import to_js_object


class Registrations:
    def __init__(self, model_context: Any, catalog: Catalog, descriptor: Callable[[Entry], Any]):
        self._model_context = model_context
        self._catalog = catalog
        self._descriptor = descriptor
        self._controllers: dict[str, Any] = {}
        self._added: list[Entry] = []  # the site's own tools, registered once installed
        self._prelisted_site: dict[str, Any] = {}  # the site's prelisted tools, until their install: name -> controller

    def adopt(self, prelisted: Any, execute_for: Callable[[str], Any], site_tools: frozenset[str] = frozenset()) -> None:
        """Take over the tools the host registered from the build's copy of the descriptors (see
        prelisted.py): served from now on when they are this catalog's, or the site's own (`site_tools`, served
        once installed), withdrawn otherwise."""
        if prelisted is None:
            return
        same = prelisted.digest == self._catalog.digest
        known = set(self._catalog.modules())
        for name in Object.keys(prelisted.controllers):
            controller = getattr(prelisted.controllers, name)
            if (same and name in known) or name in site_tools:
                prelisted.serve(name, execute_for(name))
                (self._controllers if name in known else self._prelisted_site)[name] = controller
            else:
                controller.abort()

    @property
    def count(self) -> int:
        return len(self._controllers)

    async def follow(self, settings: Settings) -> list[str]:
        """Register the tools the settings allow and unregister the others; returns what failed, and why."""
        entries = [*self._catalog.entries, *self._added]
        wanted = {entry.name for entry in entries if settings.allows(entry.setting)}
        for name in [name for name in self._controllers if name not in wanted]:
            self._controllers.pop(name).abort()
        missing = [entry for entry in entries if entry.name in wanted and entry.name not in self._controllers]
        # All at once: each registration is a round trip to the browser.
        outcomes = await asyncio.gather(*(self._register(tool) for tool in missing))
        return [outcome for outcome in outcomes if outcome]

    async def add(self, entries: list[Entry], listed: dict[str, Any]) -> list[str]:
        """Register tools beyond the catalog's (the site's own), keeping those prelisted as they were when
        the descriptor is the same (`listed`: name -> the descriptor listed); returns what failed, and why."""
        self._added.extend(entries)
        fresh = []
        for entry in entries:
            controller = self._prelisted_site.pop(entry.name, None)
            if controller is not None and json.loads(to_json(entry.descriptor)) == listed.get(entry.name):
                self._controllers[entry.name] = controller
            else:
                if controller is not None:
                    controller.abort()
                fresh.append(entry)
        outcomes = await asyncio.gather(*(self._register(entry) for entry in fresh))
        return [outcome for outcome in outcomes if outcome]

    def withdraw_unserved(self, names: frozenset[str]) -> None:
        """Unregister the prelisted tools that the installed wheels did not give."""
        for name in [name for name in self._prelisted_site if name in names]:
            self._prelisted_site.pop(name).abort()

    async def _register(self, entry: Entry) -> str:
        controller = AbortController.new()
        try:
            pending = self._model_context.registerTool(
                self._descriptor(entry), to_js_object({"signal": controller.signal})
            )
            if hasattr(pending, "then"):
                await pending
        except Exception as exc:
            return f"{entry.name}: {exc}"
        self._controllers[entry.name] = controller
        return ""
