"""The page as the human's views use it (`ui.page.Page`): elements, listeners, timers, the clock, JupyterLab's
classes."""

from typing import Any, Callable

from js import Date, ResizeObserver, console, document, performance, setTimeout
from pyodide.ffi import create_once_callable, create_proxy

from .ffi import js_value, to_js_object


def element(tag: str, text: str = "", **attributes: str) -> Any:
    """A new element with text (never parsed as HTML) and attributes (`data_x` becomes `data-x`)."""
    node = document.createElement(tag)
    if text:
        node.textContent = text
    for name, value in attributes.items():
        node.setAttribute(name.replace("_", "-"), value)
    return node


class Listeners:
    """JS proxies for Python callbacks, kept alive until released together."""

    def __init__(self) -> None:
        self._proxies: list[Any] = []

    def __call__(self, function: Callable[..., Any]) -> Any:
        proxy = create_proxy(function)
        self._proxies.append(proxy)
        return proxy

    def release(self) -> None:
        proxies, self._proxies = self._proxies, []
        for proxy in proxies:
            proxy.destroy()


VIEW_MEASURE = "webmcp:view"
"""The User Timing measure of each of the views' tasks, not kept (a PerformanceObserver sees it: the benchmark)."""


def _guarded(callback: Callable[[], None]) -> None:
    """A view's task, measured; its failure is said in the console and never breaks the page or the tools."""
    started = performance.now()
    try:
        callback()
    except Exception as error:  # a view that fails to draw leaves the lab as it was
        console.warn("WebMCP bridge: the agent panel could not draw:", str(error))
    finally:
        performance.measure(VIEW_MEASURE, to_js_object({"start": started}))
        performance.clearMeasures(VIEW_MEASURE)


class PageDom:
    def __init__(self, host: Any):
        self.app = host.app
        self.classes = host.classes
        self.palette = js_value(host.palette)

    def element(self, tag: str, text: str = "", **attributes: str) -> Any:
        return element(tag, text, **attributes)

    def listeners(self) -> Listeners:
        return Listeners()

    def found(self, value: Any) -> Any:
        return js_value(value)

    def options(self, **values: Any) -> Any:
        return to_js_object(values)

    def later(self, callback: Callable[[], None], ms: int = 0) -> None:
        setTimeout(create_once_callable(lambda: _guarded(callback)), ms)

    def clock(self, at: str) -> str:
        when = Date.new(at)
        return "" if when.getTime() != when.getTime() else str(when.toLocaleTimeString([], to_js_object({"hour12": False})))

    def when_shown(self, node: Any, callback: Callable[[], None]) -> None:
        def seen(entries: Any, observer: Any) -> None:
            if any(entry.contentRect.width > 0 for entry in entries):
                observer.disconnect()
                proxy.destroy()
                _guarded(callback)

        proxy = create_proxy(seen)
        ResizeObserver.new(proxy).observe(node)

    def when_settled(self, promise: Any, callback: Callable[[], None]) -> None:
        def settled(*_: Any) -> None:
            proxy.destroy()
            _guarded(callback)

        proxy = create_proxy(settled)
        promise.then(proxy, proxy)

    def focused(self, node: Any) -> bool:
        return bool(document.activeElement == node)
