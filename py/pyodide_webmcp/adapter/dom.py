"""Small DOM helpers for the human's controls: elements and the listeners they hold."""

from typing import Any, Callable

from js import document
from pyodide.ffi import create_proxy


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
