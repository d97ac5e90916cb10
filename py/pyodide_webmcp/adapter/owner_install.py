"""The site's own tool wheels installed into this Pyodide with micropip, after the built-in tools serve."""

import asyncio
import importlib
from typing import Any, Awaitable, Callable

from ..calls.catalog import Entry, Toolbox
from ..calls.installing import Installing
from ..host import Host
from ..owner.site_settings import Settings
from ..owner.site_tools import load_tools, problem, status_note, wheel_url
from .registrations import Registrations
from .settings import SettingsWatcher

FIRST_CALLS_ROOM_S = 1.0
"""How long the built-in tools serve alone first: the calls that waited for the start are answered before
the site's wheels are fetched and installed beside them."""


async def serve_site_tools(host: Host, toolbox: Toolbox, registrations: Registrations, settings: SettingsWatcher,
                           notes: list[str], show: Callable[[Settings], Awaitable[None]],
                           installing: Installing) -> None:
    """Install the site's tools and register them, saying so in the status (`notes`, shown by `show`); the
    calls of those prelisted wait until then."""
    notes[:] = ["installing site tools"]
    await show(settings.current)
    await asyncio.sleep(FIRST_CALLS_ROOM_S)
    try:
        note = await install_owner_tools(host.page, toolbox, registrations, settings.current.owner_tools,
                                         installing.descriptors)
    except Exception as error:  # never leaves the built-in tools without a status
        note = problem("site tools", error)
    notes[:] = [note] if note else []
    installing.finished(note)
    registrations.withdraw_unserved(installing.names)
    await show(settings.current)


async def install_owner_tools(page: Any, toolbox: Toolbox, registrations: Registrations,
                              wheels: tuple[str, ...], listed: dict[str, Any]) -> str:
    """Install the wheels (each on its own: one that fails does not stop the others; no dependency is
    fetched, so a wheel's own dependencies must be listed too), serve their tools; returns the
    status note."""
    import pyodide_js

    problems: list[str] = []
    try:
        await pyodide_js.loadPackage("micropip")
        import micropip
    except Exception as error:  # the Pyodide in use has no micropip
        return status_note(load_tools(toolbox.known(), ()), [problem("micropip", error)])
    from pyodide.http import pyfetch

    for path in wheels:
        try:
            url = wheel_url(path, page.siteUrl)
            found = await pyfetch(url, method="HEAD")
            if not found.ok:  # else micropip reads the host's error page as a broken wheel
                problems.append(f"{path}: HTTP {found.status} (no such file in the site)")
                continue
            await micropip.install(url, deps=False)
        except Exception as error:  # a broken wheel, a path outside the site
            problems.append(problem(path, error))
    importlib.invalidate_caches()
    loaded = load_tools(toolbox.known())
    toolbox.add(loaded.tools)
    entries = [Entry(tool.name, tool.module, None, tool.descriptor(), tool.hints) for tool in loaded.tools]
    failed = await registrations.add(entries, listed)
    return status_note(loaded, [*problems, *failed])
