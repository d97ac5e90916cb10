"""Crossing between Pyodide and the page: JS values as plain Python data, and bounded waits on promises."""

import asyncio
import json
from typing import Any

from js import JSON, Object, Promise
from pyodide.ffi import JsProxy, create_once_callable, jsnull, to_js

from ..notebook.access import METADATA_KEY


async def settled(promise: Any, wait_ms: int) -> bool:
    """Await a JS promise for at most `wait_ms`; False when it did not settle in time."""
    try:
        await asyncio.wait_for(asyncio.ensure_future(promise), wait_ms / 1000)
        return True
    except asyncio.TimeoutError:
        return False


def as_promise(task: "asyncio.Task[Any]") -> Any:
    """A task's result for JavaScript: a promise that settles with it, already settled when the task is done (no
    turn of the event loop between them)."""

    def executor(resolve: Any, reject: Any) -> None:
        def settle(done: "asyncio.Task[Any]") -> None:
            try:
                resolve(done.result())
            except BaseException as error:  # noqa: BLE001 - the caller's promise rejects with it
                reject(repr(error))

        if task.done():
            settle(task)
        else:
            task.add_done_callback(settle)

    return Promise.new(create_once_callable(executor))


def stored_metadata(owner: Any) -> dict[str, Any]:
    """`{METADATA_KEY: entry}` of a model or shared cell, or `{}` when it has none (a stored null stays None)."""
    value = owner.getMetadata(METADATA_KEY)
    if value is None:
        return {}
    return {METADATA_KEY: None if value is jsnull else to_python(value)}


def js_value(value: Any) -> Any:
    """JS null and undefined both read as None."""
    return None if value is None or value is jsnull else value


def to_js_object(value: Any) -> Any:
    """Options for a JS call; a None in it becomes undefined, so stored data goes through `to_js_data`."""
    return to_js(value, dict_converter=Object.fromEntries)


def to_js_data(value: Any) -> Any:
    """JSON-like Python data as JS, through JSON so every None stays a stored null."""
    return JSON.parse(json.dumps(value))


def to_python(value: Any) -> Any:
    """JSON-like JS data as plain Python; through JSON so every null becomes None (to_py keeps jsnull)."""
    value = js_value(value)
    return json.loads(JSON.stringify(value)) if isinstance(value, JsProxy) else value


