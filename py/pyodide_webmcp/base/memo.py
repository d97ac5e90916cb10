"""Pure functions of JSON data remembered between calls: a 100 MB print is fingerprinted once, not on every read.

Every read of a notebook hands the bridge a fresh copy of each output (the
adapter converts the live model's JSON), so neither the object nor its size
tells whether it changed. A remembered result is used only when the new value
is exactly the remembered one: the same structure, keys in the same order,
the same types (`1`, `1.0` and `true` differ) and the same strings, compared
in C (a 100 MB string costs a memory comparison, not a hash). Anything else is
computed again, so a changed output never keeps a stale fingerprint.
"""

from collections import OrderedDict
from typing import Any, Callable, Generic, Hashable, TypeVar

_SAMPLE_CHARS = 32
Result = TypeVar("Result")


def flat(value: Any) -> list[Any]:
    """The value as a flat list that equals another's only when the two values are exactly the same JSON.

    Containers become a marker with their length, followed by their items (a dict's as key, value);
    strings stay themselves (shared, not copied); every other leaf is (type, value), floats by repr
    so that 0.0 and -0.0 differ. Walked with a stack of its own: no depth is too deep.
    """
    items: list[Any] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            items.append(item)
        elif isinstance(item, dict):
            items.append(("{", len(item)))
            for key in reversed(list(item)):
                stack.extend((item[key], key))
        elif isinstance(item, (list, tuple)):
            items.append(("[" if isinstance(item, list) else "(", len(item)))
            stack.extend(reversed(item))
        else:
            items.append((type(item), repr(item) if isinstance(item, float) else item))
    return items


def _key(items: list[Any]) -> Hashable:
    """Where to look: the flat form with each string reduced to its length and its ends."""
    return tuple(
        (len(item), item[:_SAMPLE_CHARS], item[-_SAMPLE_CHARS:]) if isinstance(item, str) else item for item in items
    )


def _chars(items: list[Any]) -> int:
    return sum(len(item) for item in items if isinstance(item, str))


class JsonMemo(Generic[Result]):
    """`compute(value)` for JSON data, remembered for the most recent values (bounded in count and characters)."""

    def __init__(self, compute: Callable[[Any], Result], max_entries: int = 512, max_chars: int = 128 * 2**20):
        self.compute = compute
        self._max_entries = max_entries
        self._max_chars = max_chars
        self._entries: OrderedDict[Hashable, tuple[list[Any], Result, int]] = OrderedDict()
        self._chars = 0

    def __call__(self, value: Any) -> Result:
        items = flat(value)
        key = _key(items)
        try:
            entry = self._entries.get(key)
        except TypeError:  # a leaf JSON does not have: nothing to remember it by
            return self.compute(value)
        if entry is not None and entry[0] == items:
            self._entries.move_to_end(key)
            self._entries[key] = (items, *entry[1:])  # the newest copy: read again, it compares by identity
            return entry[1]
        result = self.compute(value)
        self._remember(key, items, result)
        return result

    def _remember(self, key: Hashable, items: list[Any], result: Result) -> None:
        self._forget(key)
        chars = _chars(items)
        if chars > self._max_chars:
            return
        self._entries[key] = (items, result, chars)
        self._chars += chars
        while len(self._entries) > self._max_entries or self._chars > self._max_chars:
            self._forget(next(iter(self._entries)))

    def _forget(self, key: Hashable) -> None:
        entry = self._entries.pop(key, None)
        if entry is not None:
            self._chars -= entry[2]

    def clear(self) -> None:
        self._entries.clear()
        self._chars = 0
