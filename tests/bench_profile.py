"""Where a page load's main-thread time goes, from a DevTools trace: the benchmark's profile of what is
left (printed by python3 build.py bench). Each top-level task's time is given to its largest child event
(by name, and the script it runs), summed per site, so the bridge's costs show beside the reference's.
"""

import collections
from pathlib import PurePosixPath

from tests.measure import event_url, is_own, task_events


def child_costs(trace: bytes, own_urls: tuple, own_events: tuple) -> dict:
    """{what: ms} over the page's main-thread tasks; `what` is "own: ..." for the extension's tasks."""
    costs = collections.Counter()
    for task, events in task_events(trace):
        children = collections.Counter()
        for event in events:
            children[f"{event['name']} {PurePosixPath(event_url(event).split('?')[0]).name}".strip()] += (
                event.get("dur", 0) / 1000)
        what = max(children, key=children.get) if children else "(task itself)"
        costs[("own: " if is_own(task, events, own_urls, own_events) else "") + what] += task.get("dur", 0) / 1000
    return dict(costs)


def print_profile(profiles: dict, top: int = 12) -> None:
    """Per site, the largest main-thread costs (medians would hide which task it was: these are sums)."""
    for label, costs in profiles.items():
        total = sum(costs.values())
        print(f"\nMain-thread time by largest child event, {label} (cold load, {total:,.0f} ms in all)\n")
        for what, ms in sorted(costs.items(), key=lambda item: -item[1])[:top]:
            print(f"{ms:9.0f} ms  {what}")
