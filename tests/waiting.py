"""Waiting for a condition, never for a fixed time: the one polling helper of the tests, the bench and the stress run."""

import time
from collections.abc import Callable
from typing import TypeVar

Value = TypeVar("Value")

KERNEL_IDLE = "() => window.jupyterapp?.shell.currentWidget?.sessionContext?.session?.kernel?.status === 'idle'"
"""A page predicate (for `page.wait_for_function`): the current notebook's kernel is idle."""


def wait_until(condition: Callable[[], Value], *, timeout: float = 90.0, interval: float = 0.25,
               what: str = "the condition", pause: Callable[[float], None] = time.sleep) -> Value:
    """Call `condition` until it returns a truthy value, and return that value; fail after `timeout` seconds.

    `pause(seconds)` waits between tries: a Playwright page's wait_for_timeout when the page's own events
    make the condition true (Playwright's sync API delivers events only while one of its calls runs)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} was not met in {timeout:g} s")
        pause(interval)
