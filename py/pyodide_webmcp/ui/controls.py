"""JupyterLab's own controls, made for the human's views: the styled select, dialog-styled buttons, a switch,
a tab panel. Every one is labelled."""

from typing import Any, Callable, Sequence

from .page import Listeners, Page

ButtonKind = str  # "" (plain), "accept", "reject", "warn"


def button(page: Page, label: str, css: str, listen: Listeners, action: Callable[[], object], kind: ButtonKind = "",
           title: str = "") -> Any:
    """A button styled as JupyterLab's dialog buttons."""
    classes = f"{css} jp-Dialog-button jp-mod-styled" + (f" jp-mod-{kind}" if kind else "")
    node = page.element("button", label, **{"class": classes, "type": "button", **({"title": title} if title else {})})
    node.addEventListener("click", listen(lambda *_: action()))
    return node


def styled_select(page: Page, label: str, css: str, options: Sequence[tuple[str, str]]) -> tuple[Any, Any]:
    """JupyterLab's styled select (its wrapper and caret) under a visible label; (the labelled field, the select)."""
    field = page.element("label", **{"class": f"jp-webmcp-field {css}"})
    field.appendChild(page.element("span", label, **{"class": "jp-webmcp-field-label"}))
    wrapper = page.element("div", **{"class": "jp-HTMLSelect jp-DefaultStyle"})
    select = page.element("select")
    for value, text in options:
        select.appendChild(page.element("option", text, value=value))
    wrapper.appendChild(select)
    wrapper.appendChild(page.classes.caretDownEmptyIcon.element(page.options(tag="span", stylesheet="select",
                                                                             right="4px", top="4px")))
    field.appendChild(wrapper)
    return field, select


def switch(page: Page, label: str, caption: str, css: str, listen: Listeners, changed: Callable[[bool], None]) -> Any:
    """JupyterLab's switch widget (a button with role switch); `changed` hears the human's choice."""
    widget = page.classes.Switch.new()
    widget.label = label
    widget.caption = caption
    widget.addClass(css)
    widget.valueChanged.connect(listen(lambda _sender, change: changed(bool(change.newValue))))
    return widget


def set_options(page: Page, select: Any, options: Sequence[tuple[str, str]]) -> None:
    """Replace a select's options, keeping its value when it is still one of them."""
    value = str(select.value)
    select.replaceChildren(*(page.element("option", text, value=option) for option, text in options))
    if any(option == value for option, _ in options):
        select.value = value
