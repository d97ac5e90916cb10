"""Where a page load's main-thread time goes, from a DevTools trace: the benchmark's profile of what is
left (printed by python3 build.py bench). Each top-level task's time is given to its largest child event
(by name, and the script it runs), summed per site, so the bridge's costs show beside the reference's.
"""

import collections
import json
from pathlib import PurePosixPath

from tests.measure import TASK_EVENTS


def child_costs(trace: bytes, own_urls: tuple, own_events: tuple) -> dict:
    """{what: ms} over the page's main-thread tasks; `what` is "own: ..." for the extension's tasks."""
    events = json.loads(trace)["traceEvents"]
    main = {(e["pid"], e["tid"]) for e in events
            if e.get("name") == "thread_name" and e.get("args", {}).get("name") == "CrRendererMain"}
    on_main = sorted((e for e in events if (e.get("pid"), e.get("tid")) in main and e.get("ph") == "X"),
                     key=lambda e: (e["ts"], -e.get("dur", 0)))
    costs = collections.Counter()
    task, children, own = None, collections.Counter(), False

    def close():
        if task is not None:
            what = max(children, key=children.get) if children else "(task itself)"
            costs[("own: " if own else "") + what] += task["dur"] / 1000

    for event in on_main:
        if event["name"] in TASK_EVENTS:
            if task is None or event["ts"] >= task["ts"] + task.get("dur", 0):
                close()
                task, children, own = event, collections.Counter(), False
            continue
        if task is None or event["ts"] >= task["ts"] + task.get("dur", 0):
            continue
        data = (event.get("args") or {}).get("data") or {}
        url = (data.get("url") or "") if isinstance(data, dict) else ""
        if event["name"].startswith(own_events or ("\0",)) or any(part in url for part in own_urls):
            own = True
        children[f"{event['name']} {PurePosixPath(url.split('?')[0]).name}".strip()] += event.get("dur", 0) / 1000
    close()
    return dict(costs)


def print_profile(profiles: dict, top: int = 12) -> None:
    """Per site, the largest main-thread costs (medians would hide which task it was: these are sums)."""
    for label, costs in profiles.items():
        total = sum(costs.values())
        print(f"\nMain-thread time by largest child event, {label} (cold load, {total:,.0f} ms in all)\n")
        for what, ms in sorted(costs.items(), key=lambda item: -item[1])[:top]:
            print(f"{ms:9.0f} ms  {what}")
