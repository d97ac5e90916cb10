"""The owner's settings as JupyterLab's settings registry holds them, watched live."""

from typing import Any, Callable

from pyodide.ffi import create_proxy

from ..owner.site_settings import Settings
from .ffi import js_value, to_js_data, to_python


class SettingsWatcher:
    """The current settings (defaults without a registry), and a call back whenever they change."""

    def __init__(self, settings: Any):
        self._settings = js_value(settings)
        self.current = Settings.read(self._read())
        self._listeners: list[Callable[[Settings], object]] = []
        if self._settings is not None:
            self._proxy = create_proxy(lambda *_: self._changed())
            self._settings.changed.connect(self._proxy)

    def _read(self) -> Any:
        return to_python(self._settings.composite) if self._settings is not None else None

    def _changed(self) -> None:
        self.current = Settings.read(self._read())
        for listener in list(self._listeners):
            listener(self.current)

    def on_change(self, listener: Callable[[Settings], object]) -> None:
        self._listeners.append(listener)

    def fixed(self, key: str) -> bool:
        """Whether the site fixed this setting (the Settings Editor shows it read-only)."""
        if self._settings is None:
            return False
        prop = to_python(self._settings.schema).get("properties", {}).get(key, {})
        return bool(prop.get("readOnly"))

    def save(self, key: str, value: Any) -> None:
        """The human's choice, kept across reloads (a value the site fixed stays as the site set it)."""
        if self._settings is not None and not self.fixed(key):
            self._settings.set(key, to_js_data(value) if isinstance(value, (dict, list)) else value)
