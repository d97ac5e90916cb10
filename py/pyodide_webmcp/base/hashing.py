"""Every hash the bridge computes: write guards, change tokens and the stored review fingerprints.

`source_hash` and `revision` are this bridge's own opaque tokens. The stored
review formats follow the JupyterLite WebMCP reference extension (jupyterlite-webmcp): `stable_hash` (two FNV-1a passes over UTF-16
code units) gives `selectedTextHash` and, over the output's canonical JSON,
`outputFingerprint`, so notebooks written by the reference extension (jupyterlite-webmcp) and by
this bridge agree.
"""

import hashlib
import json
import math
import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

HASH_HEX_CHARS = 16
_FNV_PRIME = 0x01000193
_FNV_OFFSET = 0x811C9DC5
_INLINED_PAYLOAD_UNITS = 1024
FNV_FINGERPRINT_CHARS = 16_384
MAX_FINGERPRINT_DEPTH = 64
_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]*")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:HASH_HEX_CHARS]


@lru_cache(maxsize=20_000)  # a pure function of the text: large notebooks re-hash nothing unchanged
def source_hash(source: str) -> str:
    """The sourceHash a writer must echo back; depends only on the text."""
    return sha256_hex(source)


PART_MARK = ":part"
"""Ends the sourceHash of a read that showed only part of the source (see `read_hash`)."""


def read_hash(source: str, whole: bool) -> str:
    """The sourceHash a read returns: the source's own, marked when the read showed only part of it,
    so that a write built on that part cannot silently drop the rest."""
    return source_hash(source) if whole else source_hash(source) + PART_MARK


def parse_read_hash(token: str) -> tuple[str, bool]:
    """(the source's hash, whether the read showed only part of it)."""
    return (token[: -len(PART_MARK)], True) if token.endswith(PART_MARK) else (token, False)


def revision(cells: Iterable[tuple[str, str, str]]) -> str:
    """A change token over (id, type, sourceHash) of the cells the agent can see."""
    digest = hashlib.sha256()
    for cell_id, cell_type, cell_hash in cells:
        digest.update(f"{cell_id}\0{cell_type}\0{cell_hash}\n".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:HASH_HEX_CHARS]


def utf16_units(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _fnv1a(data: bytes, basis: int) -> int:
    value = basis
    for index in range(0, len(data), 2):
        value ^= data[index] | data[index + 1] << 8
        value = (value * _FNV_PRIME) & 0xFFFFFFFF
    return value


def stable_hash(text: str) -> str:
    """The reference extension's string hash: FNV-1a over UTF-16 code units, twice (offset basis, then the prime)."""
    data = text.encode("utf-16-le", "surrogatepass")
    return f"{_fnv1a(data, _FNV_OFFSET):08x}{_fnv1a(data, _FNV_PRIME):08x}"


def _js_string(text: str) -> str:
    encoded = json.dumps(text, ensure_ascii=False)
    if encoded.isascii():  # a flag CPython keeps: a long ASCII print skips the scan for lone surrogates
        return encoded
    return _LONE_SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", encoded)


def _js_number(value: float) -> str:
    if math.isnan(value) or math.isinf(value):
        return "null"
    if value == int(value) and abs(value) < 1e21:
        return str(int(value))
    return repr(value).replace("e-0", "e-")


def _js_keys(keys: Iterable[str]) -> list[str]:
    """Object keys in JavaScript's order: array indexes ascending first, then the rest as inserted."""
    keys = list(keys)
    indexes = sorted((k for k in keys if _ARRAY_INDEX.fullmatch(k) and int(k) < 2**32 - 1), key=int)
    return indexes + [k for k in keys if k not in indexes]


def js_json(value: Any) -> str:
    """`JSON.stringify(value)` as a browser writes it (compact), for data that came from JSON."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _js_number(value)
    if isinstance(value, str):
        return _js_string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(js_json(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{_js_string(k)}:{js_json(value[k])}" for k in _js_keys(value)) + "}"
    return "null"


def _utf16_order(key: str) -> bytes:
    return key.encode("utf-16-be", "surrogatepass")


def _canonical(value: Any, depth: int = 0) -> Any:
    """The output as its fingerprint sees it: no execution counts, inlined payloads as `mime:length`, keys sorted.

    JSON nested deeper than MAX_FINGERPRINT_DEPTH is reduced to a digest of itself (no recursion limit is hit).
    """
    if isinstance(value, (list, dict)) and depth >= MAX_FINGERPRINT_DEPTH:
        return "nested:" + _tree_digest(value)
    if isinstance(value, list):
        return [_canonical(item, depth + 1) for item in value]
    if not isinstance(value, dict):
        return value
    result = {}
    for key in sorted(value, key=_utf16_order):
        item = value[key]
        if key == "execution_count":
            continue
        if key == "data" and isinstance(item, dict):
            result[key] = {
                mime: _payload(mime, item[mime], depth + 2) for mime in sorted(item, key=_utf16_order)
            }
        else:
            result[key] = _canonical(item, depth + 1)
    return result


_END = {"[": b"]", "{": b"}"}


def _tree_digest(value: Any) -> str:
    """SHA-256 over a JSON tree, walked with a stack of its own: no depth is too deep."""
    digest = hashlib.sha256()
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, bytes):
            digest.update(item)
        elif isinstance(item, list):
            digest.update(b"[")
            stack.append(_END["["])
            stack.extend(reversed(item))
        elif isinstance(item, dict):
            digest.update(b"{")
            stack.append(_END["{"])
            for key in sorted(item, key=_utf16_order, reverse=True):
                stack.extend((item[key], key))
        else:
            digest.update(json.dumps(item, ensure_ascii=False).encode("utf-8", "surrogatepass") + b",")
    return digest.hexdigest()[:HASH_HEX_CHARS]


def _payload(mime: str, value: Any, depth: int) -> Any:
    if isinstance(value, str):
        units = utf16_units(value)
        if mime.startswith("image/") or mime == "application/pdf" or units > _INLINED_PAYLOAD_UNITS:
            return f"{mime}:{units}"
    return _canonical(value, depth)


def output_fingerprint(output: Any) -> str:
    """Stable across re-runs that print the same thing (execution count ignored, payloads by size).

    The reference extension's FNV-1a runs as a Python loop, about a second per million characters on the page's main
    thread; a canonical form longer than FNV_FINGERPRINT_CHARS (a long printed text) is hashed with SHA-256.
    """
    text = js_json(_canonical({} if output is None else output))
    return stable_hash(text) if len(text) <= FNV_FINGERPRINT_CHARS else sha256_hex(text)

