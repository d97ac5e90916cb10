"""Scenarios 1 and 2: randomized and schema-fuzzed calls of every tool over the privacy workspace.

Every result is checked for the guarantees every call keeps (harness.Tally) and for planted secrets; every
call that names something hidden (a cell, a thread, a notebook, a secret as a search query) is made
again with a made-up twin of the same length, and the two results must be the same bytes once the
names are swapped.
"""

import json
import random
from collections import Counter
from dataclasses import dataclass, field

from .arguments import ArgumentMaker, missing_twin, pick, weighted_tools
from .harness import SECRET, Outcome, StressPage, Tally
from .workspace import DIRECTORY, PrivacyWorkspace, Round, substitute

BATCH_SIZE = 60
# Tools whose every call costs a kernel or a notebook: drawn less often so the run covers the rest.
PRIVACY_WEIGHTS = {"jupyter_create_notebook": 0.3, "jupyter_kernel_action": 0.3, "jupyter_run_code": 0.6}
ROBUSTNESS_WEIGHTS = {"jupyter_run_cells": 4, "jupyter_kernel_action": 2, "jupyter_wait_for_result": 3,
                      "jupyter_answer_dialog": 2, "jupyter_run_code": 2, "jupyter_create_notebook": 0.3}
RESTART_SHARE = 0.04  # of kernel actions: a restart costs the kernel seconds


@dataclass
class PrivacyFigures:
    tally: Tally = field(default_factory=Tally)
    leaks: int = 0
    twins: int = 0
    differences: int = 0
    per_tool: Counter = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)
    proposals_hidden: int = 0  # edits waiting in Propose mode on a cell the owner then hid
    proposals_not_withdrawn: int = 0  # ... that did not come back denied as for a deleted cell

    def note(self, text: str) -> None:
        if len(self.examples) < 8:
            self.examples.append(text[:600])


def run_calls(stress: StressPage, rng: random.Random, total: int, *, fuzz: float, weights: dict,
              workspace: PrivacyWorkspace, round_size: int = 300) -> PrivacyFigures:
    """`total` random calls (twins not counted), the workspace reshuffled every `round_size` calls."""
    figures = PrivacyFigures()
    registered = {tool["name"] for tool in stress.page.webmcp.tools()}
    tools = weighted_tools(weights, registered)
    pending_ids: list[str] = []
    made = 0
    while made < total:
        current = workspace.shuffle()
        _check_withdrawn(current, figures)
        current.pools.pending_ids += pending_ids[-20:]
        maker = ArgumentMaker(rng, current.pools, fuzz)
        in_round = 0
        while in_round < round_size and made < total:
            calls, twins = [], {}
            for _ in range(min(BATCH_SIZE, total - made)):
                name = pick(rng, tools)
                arguments = _tamed(name, maker.arguments(name), rng)
                calls.append((name, arguments))
                named = _hidden_named(arguments, current)
                if named:
                    twin, pairs = _twin(name, arguments, named, rng)
                    twins[len(calls) - 1] = pairs
                    calls.append((name, twin))
                figures.per_tool[name] += 1
                made += 1
                in_round += 1
            outcomes = stress.batch(calls, figures.tally)
            for index, outcome in enumerate(outcomes):
                _check_secrets(outcome, figures, current)
                if outcome.pending:
                    pending_ids.append(outcome.payload["pendingId"])
                if index in twins:
                    _compare_twins(outcome, outcomes[index + 1], twins[index], figures)
    return figures


def _tamed(name: str, arguments, rng: random.Random):
    """Keep the run moving: few kernel restarts, and created notebooks only inside the workspace folder."""
    if not isinstance(arguments, dict):
        return arguments
    if name == "jupyter_kernel_action" and arguments.get("action") == "restart" and rng.random() > RESTART_SHARE:
        arguments["action"] = "interrupt"
    if name == "jupyter_create_notebook" and isinstance(arguments.get("name"), str) and "SECRET" in arguments["name"]:
        arguments["directory"] = DIRECTORY  # a hidden name elsewhere would create a visible notebook with that name
    return arguments


def _hidden_named(arguments, current: Round) -> list[str]:
    """The hidden things (and secrets) the arguments name."""
    text = json.dumps(arguments)
    named = [hidden for hidden in current.hidden if json.dumps(hidden)[1:-1] in text]
    named += [token for token in SECRET.findall(text) if not any(token in hidden for hidden in named)]
    return sorted(set(named), key=len, reverse=True)


def _twin(name: str, arguments: dict, named: list[str], rng: random.Random) -> tuple[dict, list[tuple[str, str]]]:
    """The same call naming made-up things of the same length, and the (hidden, made-up) pairs.

    Creating a notebook over a hidden one must fail like a failed creation (docs/access.md), so its twin
    creates the same name in a folder that does not exist.
    """
    if name == "jupyter_create_notebook" and arguments.get("directory") == DIRECTORY:
        pairs = [(DIRECTORY + "/", DIRECTORY[:-1] + "x/")]
        return {**arguments, "directory": DIRECTORY[:-1] + "x"}, pairs
    pairs = [(hidden, missing_twin(hidden, rng)) for hidden in named]
    return substitute(arguments, pairs), pairs


WITHDRAWN = "The cell was deleted before the human decided."


def _check_withdrawn(current: Round, figures: PrivacyFigures) -> None:
    """An edit waiting on a cell the owner hid is denied exactly as if the cell were deleted."""
    if current.proposal is None:
        return
    figures.proposals_hidden += 1
    payload = json.loads(json.loads(current.proposal["text"])["content"][0]["text"]) if "text" in current.proposal else None
    if not (isinstance(payload, dict) and payload.get("status") == "denied" and payload.get("reason") == WITHDRAWN):
        figures.proposals_not_withdrawn += 1
        figures.note(f"an edit waiting on a cell hidden meanwhile was not withdrawn: {str(current.proposal)[:300]}")


def _check_secrets(outcome: Outcome, figures: PrivacyFigures, current: Round) -> None:
    arguments = json.dumps(outcome.arguments)
    echoed = set(SECRET.findall(arguments))
    leaked = set(SECRET.findall(outcome.text)) - echoed
    leaked |= {cell_id for cell_id in current.hidden_later if cell_id in outcome.text and cell_id not in arguments}
    if leaked:
        figures.leaks += 1
        figures.note(f"leak {sorted(leaked)[:3]} in {outcome.name} {json.dumps(outcome.arguments)[:200]}: "
                     f"{outcome.text[:300]}")


def _compare_twins(hidden: Outcome, missing: Outcome, pairs: list[tuple[str, str]], figures: PrivacyFigures) -> None:
    if hidden.pending or missing.pending or hidden.result is None or missing.result is None:
        return  # a pending result carries its own call id and time: nothing to compare
    figures.twins += 1
    seen = hidden.text
    for name, twin in pairs:
        seen = seen.replace(json.dumps(name)[1:-1], json.dumps(twin)[1:-1])
    if seen != missing.text or hidden.is_error != missing.is_error:
        figures.differences += 1
        figures.note(f"hidden vs missing differ for {hidden.name} {json.dumps(hidden.arguments)[:200]}:\n"
                     f"  hidden:  {hidden.text[:250]}\n  missing: {missing.text[:250]}")
