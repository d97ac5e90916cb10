"""Content hashes: the per-cell write guard and the notebook revision token."""

import hashlib
from collections.abc import Iterable
from functools import lru_cache

HASH_HEX_CHARS = 16


@lru_cache(maxsize=20_000)  # a pure function of the text: large notebooks re-hash nothing unchanged
def source_hash(source: str) -> str:
    """The sourceHash a writer must echo back; depends only on the text."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()[:HASH_HEX_CHARS]


def revision(cells: Iterable[tuple[str, str, str]]) -> str:
    """A change token over (id, type, sourceHash) of the cells the agent can see."""
    digest = hashlib.sha256()
    for cell_id, cell_type, cell_hash in cells:
        digest.update(f"{cell_id}\0{cell_type}\0{cell_hash}\n".encode("utf-8"))
    return digest.hexdigest()[:HASH_HEX_CHARS]
