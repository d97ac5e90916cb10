"""Where a page load's main-thread time goes, from a DevTools trace: the benchmark's profile of what is
left (printed by python3 build.py bench). Each top-level task's time is given to its largest child event
(by name, and the script it runs), summed per site, so the bridge's costs show beside the reference's; and
what the extension's longest task of each load was.
"""

import collections
from pathlib import PurePosixPath

from tests.measure import event_url, is_own, own_frame


def file_name(url: str) -> str:
    return PurePosixPath(url.split("?")[0]).name


def child_costs(tasks: list, own_urls: tuple, own_events: tuple) -> dict:
    """{what: ms} over the page's main-thread tasks (measure.task_events); `what` is "own: ..." for the
    extension's tasks."""
    costs = collections.Counter()
    for task, events, stacks in tasks:
        children = collections.Counter()
        for event in events:
            children[f"{event['name']} {file_name(event_url(event))}".strip()] += event.get("dur", 0) / 1000
        what = max(children, key=children.get) if children else "(task itself)"
        own = is_own(task, events, own_urls, own_events, stacks)
        costs[("own: " if own else "") + what] += task.get("dur", 0) / 1000
    return dict(costs)


def described(events: list, stacks: list, own_urls: tuple) -> str:
    """What a task of the extension ran: the function of the extension's code the profiler found innermost on
    the stack most often (with its script), else the task's largest child event."""
    sampled = collections.Counter(own_frame(frames, own_urls) for frames in stacks)
    sampled.pop(None, None)
    if sampled:
        (function, url), _ = sampled.most_common(1)[0]
        return f"{function} ({file_name(url)})"
    children = collections.Counter()
    for event in events:
        children[f"{event['name']} {file_name(event_url(event))}".strip()] += event.get("dur", 0)
    return max(children, key=children.get) if children else "(task itself)"


def print_profile(profiles: dict, top: int = 12) -> None:
    """Per site, the largest main-thread costs (medians would hide which task it was: these are sums)."""
    for label, costs in profiles.items():
        total = sum(costs.values())
        print(f"\nMain-thread time by largest child event, {label} (cold load, {total:,.0f} ms in all)\n")
        for what, ms in sorted(costs.items(), key=lambda item: -item[1])[:top]:
            print(f"{ms:9.0f} ms  {what}")
