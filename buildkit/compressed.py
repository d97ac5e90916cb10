"""The format the extension's large assets ship in (the snapshot, the packed files, the extension modules):
brotli at its best, nearly a third smaller than gzip for them; the page decodes it (lib/brotli.mjs).
Compressing 31 MiB takes 40 s, so each result is kept in the build cache under its input's digest."""

import hashlib
from pathlib import Path

import brotli

from .paths import CACHE

SUFFIX = ".br"
# A 4 MiB window: the page decodes the snapshot in 140 ms instead of 170-230 with the largest (16 MiB),
# for 1.4 % more bytes.
WINDOW_BITS = 22


def write_compressed(destination: Path, data: bytes) -> None:
    """`data` in brotli at `destination`."""
    kept = CACHE / "brotli" / f"{hashlib.sha256(data).hexdigest()}-q11-w{WINDOW_BITS}"
    if not kept.exists():
        kept.parent.mkdir(parents=True, exist_ok=True)
        partial = kept.with_suffix(".partial")
        partial.write_bytes(brotli.compress(data, quality=11, lgwin=WINDOW_BITS))
        partial.replace(kept)
    destination.write_bytes(kept.read_bytes())
