"""The first call of every tool on a page just restored (build.py bench): each imports its tool's module
and builds its argument model, so each is timed on its own row."""

import time

from bench_loads import browser_page, load
from first_calls import (
    FOLDER,
    NOTES,
    PATH,
    SETUP,
    every_first_call,
    notebook,
    payload_of,
)

from tests.waiting import KERNEL_IDLE

FIRST_CALL_TARGET_MS = 150


def measure_first_calls(playwright, chromium: str, bridge) -> dict:
    """{tool: ms around page.webmcp.call_tool} for the first call of each tool on a freshly loaded page."""
    timings = {}

    def timed(name: str, arguments: dict) -> dict:
        started = time.perf_counter()
        result = page.webmcp.call_tool(name, arguments)
        timings[name] = (time.perf_counter() - started) * 1000
        return payload_of(result)

    with browser_page(playwright, chromium) as page:
        load(page, bridge, reload=False, trace=False, memory=False)
        page.evaluate(SETUP, [FOLDER, PATH, notebook(), NOTES])
        every_first_call(timed, lambda: page.wait_for_function(KERNEL_IDLE, timeout=180_000, polling=50))
    return timings


def print_first_calls(timings: dict) -> None:
    print(f"\nThe first call of each tool after a restore (ms around call_tool; target under {FIRST_CALL_TARGET_MS} ms, "
          "run_cells, open_notebook, save and create include the lab's own work)\n")
    for name, ms in timings.items():
        print(f"{name:32} {ms:8.1f}  {'' if ms < FIRST_CALL_TARGET_MS else 'over'}")
