"""Content digests, and the stamp files that let a step skip work it has already done."""

import hashlib
from pathlib import Path


def digest(*paths: Path) -> str:
    sha = hashlib.sha256()
    for path in paths:
        sha.update(path.read_bytes())
    return sha.hexdigest()


def up_to_date(stamp: Path, value: str) -> bool:
    return stamp.exists() and stamp.read_text() == value
