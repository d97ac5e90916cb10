"""Work started at once: a task whose first step runs now, up to its first wait (Python 3.12 and later).

The page's event loop gives every task step a turn of the browser's own (a `setTimeout`), and on a busy page
each turn waits behind the page's work, 0.1 s and more; a call whose work never waits then needs none.
"""

import asyncio
import sys
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def started_task(work: Coroutine[Any, Any, T]) -> "asyncio.Task[T]":
    """`work` as a task, already run up to its first wait (CPython before 3.12: scheduled, as ensure_future does)."""
    loop = asyncio.get_event_loop()
    if sys.version_info >= (3, 12):
        return asyncio.Task(work, loop=loop, eager_start=True)
    return loop.create_task(work)
