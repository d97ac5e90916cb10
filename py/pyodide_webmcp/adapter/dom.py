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


def tab_body(css_class: str, intro: str, button: tuple[str, str, Any], list_class: str) -> tuple[Any, Any]:
    """A panel tab's body: an intro line, one action button (label, class, listener) and the list it shows."""
    body = element("div", **{"class": css_class})
    body.appendChild(element("p", intro))
    label, button_class, listener = button
    action = element("button", label, **{"class": f"{button_class} jp-mod-styled"})
    action.addEventListener("click", listener)
    body.appendChild(action)
    items = element("div", **{"class": list_class})
    body.appendChild(items)
    return body, items
