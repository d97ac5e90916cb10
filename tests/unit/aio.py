"""Run a coroutine on a fresh event loop in its own thread (Playwright may own this thread's loop)."""

import asyncio
from concurrent.futures import ThreadPoolExecutor


def run(coroutine):
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()
