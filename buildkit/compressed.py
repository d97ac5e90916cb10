"""The format the extension's large assets ship in (the snapshot, the packed files, the extension modules):
brotli at its best, nearly a third smaller than gzip for them; the page decodes it (lib/brotli.mjs).
Compressing 31 MiB takes 40 s, so each result is kept in the build cache under its input's digest."""

import hashlib
from pathlib import Path

import brotli

from .paths import CACHE

SUFFIX = ".br"


def write_compressed(destination: Path, data: bytes) -> None:
    """`data` in brotli at `destination`."""
    kept = CACHE / "brotli" / hashlib.sha256(data).hexdigest()
    if not kept.exists():
        kept.parent.mkdir(parents=True, exist_ok=True)
        partial = kept.with_suffix(".partial")
        partial.write_bytes(brotli.compress(data, quality=11, lgwin=24))
        partial.replace(kept)
    destination.write_bytes(kept.read_bytes())
