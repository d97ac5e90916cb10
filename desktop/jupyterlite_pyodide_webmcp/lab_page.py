"""The lab in a Chromium-based browser, driven with Playwright: its WebMCP tools, listed and called.

Nothing here hands anyone the page: the server asks only for the page's registered tools
(`page.webmcp.tools()`) and calls them (`page.webmcp.call_tool`). A tab that crashed is reloaded;
a tab, window or browser the human closed is opened again on the next call (not at once: the
human may have closed it on purpose).
"""

import asyncio
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from .stdio import log

# Chromium's flags: WebMCP on, and nothing reaching the network behind the human's back.
CHROMIUM_FLAGS = ["--enable-features=WebMCP", "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run"]
WATCH_INTERVAL_S = 1.0
STATUS_READ_S = 2.0
PROFILE_IN_USE = ("ProcessSingleton", "SingletonLock", "profile is already in use", "user data directory is already")


def runs_as_root() -> bool:
    return getattr(os, "geteuid", lambda: 1)() == 0


class LabPage:
    """One lab page in a browser of its own; `on_tools` is told each new tool list the page registers."""

    def __init__(self, url: str, chromium: str, *, headless: bool, profile: Path | None,
                 on_tools: Callable[[list[dict[str, Any]]], Awaitable[None]]):
        self.url = url
        self.chromium = chromium
        self.headless = headless
        self.profile = profile
        self.on_tools = on_tools
        self.tools: list[dict[str, Any]] = []  # what the page registers now; [] while it loads or is closed
        self.changed = asyncio.Event()  # set whenever `tools` is replaced
        self._playwright: Any = None
        self._browser: Any = None
        self._context: Any = None
        self._page: Any = None
        self._opening: asyncio.Lock | None = None
        self._watcher: asyncio.Task[None] | None = None
        self._context_closed: Callable[..., None] = self._forget_context

    async def start(self) -> None:
        from playwright.async_api import async_playwright

        self._opening = asyncio.Lock()
        self._playwright = await async_playwright().start()
        await self.open()
        self._watcher = asyncio.create_task(self._watch())

    async def close(self) -> None:
        self._context_closed = lambda *_: None  # the browser closing now is ours, not the human's
        if self._watcher:
            self._watcher.cancel()
        for closing in (self._context, self._browser, self._playwright):
            if closing is not None:
                try:
                    await (closing.stop() if closing is self._playwright else closing.close())
                except Exception:  # noqa: BLE001 - already gone
                    pass

    @property
    def is_open(self) -> bool:
        return self._page is not None and not self._page.is_closed()

    async def open(self) -> None:
        """Open the lab: in the browser as it is, or in a new window, or in a browser started again."""
        assert self._opening is not None
        async with self._opening:
            if self.is_open:
                return
            if self._context is None:
                await self._launch()
            try:
                page = self._context.pages[0] if self._context.pages else await self._context.new_page()
            except Exception:  # noqa: BLE001 - the browser went away with its last window
                await self._launch()
                page = await self._context.new_page()
            page.on("crash", lambda _: asyncio.ensure_future(self._reload_crashed(page)))
            self._page = page
            await self._set_tools([])
            await page.goto(self.url, wait_until="commit")
            log(f"lab opened at {self.url.split('#')[0]}")  # the fragment holds the run's secret: never logged

    async def _launch(self) -> None:
        options: dict[str, Any] = {"executable_path": self.chromium, "headless": self.headless,
                                   "args": CHROMIUM_FLAGS,
                                   "chromium_sandbox": not runs_as_root()}
        chromium = self._playwright.chromium
        context = None
        if self.profile is not None:
            self.profile.mkdir(parents=True, exist_ok=True)
            try:
                context = await chromium.launch_persistent_context(str(self.profile), **options)
            except Exception as error:  # noqa: BLE001 - only a profile in use is recovered from
                if not any(text in str(error) for text in PROFILE_IN_USE):
                    raise
                log(f"the browser profile {self.profile} is in use by another server: this one uses a fresh "
                    "profile (its lab starts with the site's files, not the other's edits)")
                self.profile = None
        if context is None:
            self._browser = await chromium.launch(**options)
            context = await self._browser.new_context()
        context.on("close", lambda _: self._context_closed(context))
        self._context = context

    def _forget_context(self, context: Any) -> None:
        if self._context is context:
            log("the browser was closed: the lab opens again on the next call")
            self._context = self._page = None
            if self._browser is not None:
                asyncio.ensure_future(self._browser.close())
                self._browser = None

    async def _reload_crashed(self, page: Any) -> None:
        log("the lab's tab crashed: reloading it")
        await self._set_tools([])
        try:
            await page.reload(wait_until="commit")
        except Exception as error:  # noqa: BLE001 - then the next call opens a new one
            log(f"could not reload the crashed tab ({error}); the lab opens again on the next call")
            await page.close()

    async def _set_tools(self, tools: list[dict[str, Any]]) -> None:
        if tools != self.tools:
            self.tools = tools
            self.changed.set()
            self.changed = asyncio.Event()
            if tools:
                await self.on_tools(tools)

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(WATCH_INTERVAL_S)
            page = self._page
            if page is None or page.is_closed():
                await self._set_tools([])
                continue
            try:
                tools = await page.webmcp.tools(timeout=10_000)
            except Exception:  # noqa: BLE001 - the page is navigating, crashed or closing
                tools = []
            if page is self._page:
                await self._set_tools([dict(tool) for tool in tools])

    async def wait_for(self, name: str, seconds: float) -> bool:
        """Whether the page registers `name` within `seconds`, opening the lab again if it was closed."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        if not self.is_open:
            try:
                await asyncio.wait_for(self.open(), seconds)
            except asyncio.TimeoutError:  # still opening: the next call finds it further on
                return False
        while not any(tool["name"] == name for tool in self.tools):
            remaining = deadline - loop.time()
            if remaining <= 0:
                return False
            try:
                await asyncio.wait_for(self.changed.wait(), remaining)
            except asyncio.TimeoutError:
                return False
        return True

    async def call(self, name: str, arguments: dict[str, Any], seconds: float) -> Any:
        """The page tool's own return value (raises Playwright's errors, TimeoutError past `seconds`)."""
        return await self._page.webmcp.call_tool(name, arguments, timeout=seconds * 1000)

    async def evaluate(self, script: str) -> Any:
        """A script's value in the lab's page (its origin's storage): the server's own upkeep, never a call's."""
        await self.open()
        return await self._page.evaluate(script)

    async def status(self) -> str:
        """The lab's WebMCP status text, or why there is none (within STATUS_READ_S)."""
        if not self.is_open:
            return "the lab's tab is closed"
        try:
            text = await self._page.locator(".jp-webmcp-status").first.text_content(timeout=STATUS_READ_S * 1000)
        except Exception:  # noqa: BLE001 - loading, or an app without a status bar item
            return "the lab is loading"
        return (text or "").strip() or "the lab is loading"
