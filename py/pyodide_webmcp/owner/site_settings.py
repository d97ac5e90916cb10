"""The owner's settings: what the bridge does for agents in this lab. Pure.

They come from JupyterLab's settings registry (the Settings Editor; a site's
`overrides.json` changes their defaults, its `jupyter-lite.json` can fix them).
Reading never fails: a value that is missing or invalid takes its default.
"""

from dataclasses import dataclass, field
from typing import Any, Optional

from ..base import limits
from ..base.access_levels import Access, AccessDefaults, is_access
from ..base.shapes import OPT_IN_REVIEWS, OptInReview


@dataclass(frozen=True)
class Settings:
    enabled: bool = True
    call_budget_ms: int = limits.CALL_BUDGET_MS
    access: AccessDefaults = field(default_factory=AccessDefaults)
    propose_mode: bool = False
    propose_actions: frozenset[OptInReview] = frozenset()
    run_code: bool = False
    commands: bool = False
    command_allowlist: tuple[str, ...] = ()
    owner_tools: tuple[str, ...] = ()  # the site's own tool wheels, paths within the site (read at start)

    @classmethod
    def read(cls, raw: Any) -> "Settings":
        """Settings from the registry's composite JSON; anything missing or invalid takes its default."""
        values = raw if isinstance(raw, dict) else {}

        def flag(name: str, default: bool) -> bool:
            value = values.get(name)
            return value if isinstance(value, bool) else default

        def level(name: str) -> Access:
            value = values.get(name)
            return value if is_access(value) else "write"

        budget = values.get("callBudgetSeconds")
        budget_ms = limits.CALL_BUDGET_MS
        if isinstance(budget, (int, float)) and not isinstance(budget, bool):
            budget_ms = int(min(max(budget, limits.MIN_CALL_BUDGET_S), limits.MAX_CALL_BUDGET_S) * 1000)
        actions = values.get("proposeActions")
        allowlist = values.get("commandAllowlist")
        wheels = values.get("ownerTools")
        return cls(
            enabled=flag("enabled", True),
            call_budget_ms=budget_ms,
            access=AccessDefaults(notebook=level("defaultNotebookAccess"), cell=level("defaultCellAccess")),
            propose_mode=flag("proposeMode", False),
            propose_actions=frozenset(a for a in actions if a in OPT_IN_REVIEWS) if isinstance(actions, list) else frozenset(),
            run_code=flag("runCode", False),
            commands=flag("commands", False),
            command_allowlist=tuple(dict.fromkeys(c for c in allowlist if isinstance(c, str) and c))
            if isinstance(allowlist, list)
            else (),
            owner_tools=tuple(dict.fromkeys(w for w in wheels if isinstance(w, str) and w)) if isinstance(wheels, list) else (),
        )

    def allows(self, setting: Optional[str]) -> bool:
        """Whether the tools behind an opt-in setting (its key in the schema) are on; None: always."""
        switches = {"runCode": self.run_code, "commands": self.commands}
        return self.enabled and (setting is None or switches[setting])
