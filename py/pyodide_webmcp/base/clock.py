"""The one clock of stored and reported times: UTC, ISO 8601 with milliseconds."""

from datetime import datetime, timezone
from typing import Optional


def iso_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_iso(stamp: str) -> Optional[datetime]:
    """A stored time, or None when it is not one."""
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None
