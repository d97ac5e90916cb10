"""The tools' unit tests share tests/unit's helpers (the in-memory lab, the event-loop runner)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
