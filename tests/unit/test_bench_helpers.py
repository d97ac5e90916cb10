"""Pure pieces of the benchmark (build.py bench): tests/measure.py, bench_profile.py and bench_sites.py."""

import json
import sys
from pathlib import Path

import pytest

from tests.measure import (
    ARRAY_BUFFER_DATA,
    PYPROXY_ATTRS,
    WASM_CODE,
    live_pyproxies,
    main_thread_tasks,
    native_memory,
    node_sizes,
    task_events,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the benchmark's modules import each other by name
from bench_loads import LOAD_FLAGS, PLAYWRIGHT_DISABLED_FEATURES  # noqa: E402
from bench_profile import child_costs, described  # noqa: E402
from bench_sites import verdict, with_untraced_times  # noqa: E402
from bench_without_webmcp import longest_task_since_click  # noqa: E402


def task(ts, dur, *children):
    return [{"name": "RunTask", "ph": "X", "pid": 1, "tid": 2, "ts": ts, "dur": dur}, *children]


def test_main_thread_tasks_are_the_bridges_or_the_given_extensions():
    events = [
        {"name": "thread_name", "ph": "M", "pid": 1, "tid": 2, "args": {"name": "CrRendererMain"}},
        *task(0, 5000, {"name": "v8.wasm.compile", "ph": "X", "pid": 1, "tid": 2, "ts": 10, "dur": 100}),
        *task(6000, 2000, {"name": "FunctionCall", "ph": "X", "pid": 1, "tid": 2, "ts": 6010, "dur": 10,
                           "args": {"data": {"url": "http://h/extensions/jupyterlite-webmcp/static/1.js"}}}),
        *task(9000, 1000),
        {"name": "RunTask", "ph": "X", "pid": 1, "tid": 3, "ts": 0, "dur": 99000},  # another thread
        # The lab's script load that evaluates the extension's entry in passing, then one that is mostly it.
        *task(11000, 4000, {"name": "EvaluateScript", "ph": "X", "pid": 1, "tid": 2, "ts": 11010, "dur": 300,
                            "args": {"data": {"url": "http://h/extensions/jupyterlite-webmcp/static/remoteEntry.js"}}}),
        *task(16000, 1000, {"name": "EvaluateScript", "ph": "X", "pid": 1, "tid": 2, "ts": 16010, "dur": 600,
                            "args": {"data": {"url": "http://h/extensions/jupyterlite-webmcp/static/remoteEntry.js"}}}),
    ]
    trace = json.dumps({"traceEvents": events}).encode()
    assert main_thread_tasks(trace) == [(5.0, True), (2.0, False), (1.0, False), (4.0, False), (1.0, False)]
    assert main_thread_tasks(trace, ("/extensions/jupyterlite-webmcp/",), ()) == [
        (5.0, False), (2.0, True), (1.0, False), (4.0, False), (1.0, True)]


def test_each_tasks_time_goes_to_its_largest_child():
    events = [
        {"name": "thread_name", "ph": "M", "pid": 1, "tid": 2, "args": {"name": "CrRendererMain"}},
        *task(0, 5000, {"name": "v8.wasm.compile", "ph": "X", "pid": 1, "tid": 2, "ts": 10, "dur": 3000},
              {"name": "MinorGC", "ph": "X", "pid": 1, "tid": 2, "ts": 3100, "dur": 100}),
        *task(6000, 2000, {"name": "FunctionCall", "ph": "X", "pid": 1, "tid": 2, "ts": 6010, "dur": 1500,
                           "args": {"data": {"url": "http://h/build/bundle.js?v=1"}}}),
        *task(9000, 1000),
    ]
    costs = child_costs(task_events(json.dumps({"traceEvents": events}).encode()), ("/static/pyodide/",), ("v8.wasm.",))
    assert costs == {"own: v8.wasm.compile": 5.0, "FunctionCall bundle.js": 2.0, "(task itself)": 1.0}


PYODIDE = "http://h/static/pyodide/pyodide.asm.mjs"
LAB = "http://h/build/jlab_core.js"


def profile(start, samples):
    """A sampling profile of the main thread: (ms after `start`, the frames from the innermost out) per sample."""
    nodes, ids = [{"id": 1, "callFrame": {"functionName": "(root)", "url": ""}}], []
    for _, frames in samples:
        parent = 1
        for frame in reversed(frames):
            nodes.append({"id": len(nodes) + 1, "parent": parent, "callFrame": {"functionName": frame[0], "url": frame[1]}})
            parent = len(nodes)
        ids.append(parent)
    deltas = [int(samples[0][0] * 1000)] + [int((b[0] - a[0]) * 1000) for a, b in zip(samples, samples[1:])]
    return [{"name": "Profile", "ph": "P", "pid": 1, "tid": 2, "id": "0x1", "args": {"data": {"startTime": start}}},
            {"name": "ProfileChunk", "ph": "P", "pid": 1, "tid": 2, "id": "0x1",
             "args": {"data": {"cpuProfile": {"nodes": nodes, "samples": ids}, "timeDeltas": deltas}}}]


def test_a_task_that_runs_mostly_the_extensions_code_is_its_own_though_no_event_names_a_script():
    """Pyodide's start runs in microtasks: only the sampling profiler sees whose code they run."""
    events = [
        {"name": "thread_name", "ph": "M", "pid": 1, "tid": 2, "args": {"name": "CrRendererMain"}},
        *task(0, 4000, {"name": "RunMicrotasks", "ph": "X", "pid": 1, "tid": 2, "ts": 10, "dur": 3900}),
        *task(5000, 4000, {"name": "RunMicrotasks", "ph": "X", "pid": 1, "tid": 2, "ts": 5010, "dur": 3900}),
        *profile(0, [(1, [("updateGOT", PYODIDE), ("receiveInstance", PYODIDE)]),
                     (1.5, [("get", ""), ("updateGOT", PYODIDE)]),
                     (2, [("get", ""), ("addFunction", PYODIDE)]),
                     (3, [("(garbage collector)", "")]),
                     (6, [("render", LAB)]), (7, [("render", LAB)]), (8, [("onChange", LAB), ("emit", PYODIDE)])]),
    ]
    trace = json.dumps({"traceEvents": events}).encode()
    assert main_thread_tasks(trace) == [(4.0, True), (4.0, False)]
    (_, children, stacks), _ = task_events(trace)
    assert described(children, stacks, ("/static/pyodide/",)) == "updateGOT (pyodide.asm.mjs)"


def test_an_extensions_script_load_is_its_own_task_only_where_the_samples_say_so():
    """The lab activates its plugins in the microtasks run as the last extension's script ends."""
    extension = "http://h/extensions/jupyterlite-webmcp/static/266.js"

    def evaluated(ts):
        return task(ts, 4000, {"name": "EvaluateScript", "ph": "X", "pid": 1, "tid": 2, "ts": ts + 10, "dur": 3900,
                               "args": {"data": {"url": extension}}},
                    {"name": "FunctionCall", "ph": "X", "pid": 1, "tid": 2, "ts": ts + 20, "dur": 50,
                     "args": {"data": {"url": "http://h/extensions/jupyterlite-webmcp/static/remoteEntry.js"}}})

    events = [
        {"name": "thread_name", "ph": "M", "pid": 1, "tid": 2, "args": {"name": "CrRendererMain"}},
        *evaluated(0), *evaluated(5000),
        *profile(0, [(1, [("activatePlugin", LAB)]), (2, [("insertWidget", LAB)]), (3, [("e.exports", extension)]),
                     (6, [("updateGOT", PYODIDE)]), (7, [("addFunction", PYODIDE)]), (8, [("render", LAB)])]),
    ]
    trace = json.dumps({"traceEvents": events}).encode()
    assert main_thread_tasks(trace, ("/jupyterlite-webmcp/", "/static/pyodide/")) == [(4.0, False), (4.0, True)]


def test_the_controls_longest_task_counts_from_the_click_on():
    """The profiler's start, the first script run in a trace begun on a loaded page, is before the click."""
    click = {"name": "EventDispatch", "ph": "X", "pid": 1, "tid": 2, "ts": 1_000_100, "dur": 200,
             "args": {"data": {"type": "click"}}}
    events = [
        {"name": "thread_name", "ph": "M", "pid": 1, "tid": 2, "args": {"name": "CrRendererMain"}},
        *task(0, 600_000), *task(1_000_000, 40_000, click), *task(1_100_000, 62_000), *task(1_200_000, 5000),
    ]
    assert longest_task_since_click(json.dumps({"traceEvents": events}).encode()) == 62.0


@pytest.mark.parametrize(
    "target, bridge, reference, expected",
    [
        (("ratio", 1.2), 120, 100, "met"),
        (("ratio", 1.2), 121, 100, "NOT MET"),
        (("extra", 8), 43.0, 35.0, "met"),
        (("extra", 0), 9.3, 9.2, "NOT MET"),
        (("extra", 0), 0.0042, 0.0037, "met"),
        (("max", 100), 100, None, "met"),
        (("max", 100), 101, None, "NOT MET"),
    ],
)
def test_each_target_is_met_or_not(target, bridge, reference, expected):
    row = {"figure": "f", "bridge": bridge, "reference": reference, "unit": "ms", "target": target}
    assert verdict(row).endswith(" " + expected)


def test_a_figure_without_a_target_has_no_verdict():
    assert verdict({"figure": "f", "bridge": 1, "reference": 2, "unit": "ms", "target": ("report", None)}) == ""


def snapshot_with_edges(strings, edges):
    kinds = ["context", "element", "property", "internal", "hidden", "shortcut", "weak"]
    meta = {"edge_fields": ["type", "name_or_index", "to_node"], "edge_types": [kinds, "string_or_number", "node"]}
    flat = [value for kind, name, to in edges for value in (kinds.index(kind), name, to)]
    return {"snapshot": {"meta": meta}, "strings": strings, "edges": flat}


def test_live_pyproxies_counts_the_property_edges_named_by_pyodides_symbol():
    strings = ["", "x", PYPROXY_ATTRS]
    edges = [("property", 2, 0), ("property", 1, 6), ("element", 2, 12), ("property", 2, 18), ("hidden", 2, 0)]
    assert live_pyproxies(snapshot_with_edges(strings, edges)) == 2
    assert live_pyproxies(snapshot_with_edges(["", "x"], [("property", 1, 0)])) == 0


def test_native_memory_sums_array_buffer_bytes_and_wasm_code_from_a_heap_snapshot():
    strings = ["Object", ARRAY_BUFFER_DATA, WASM_CODE]
    fields = ["type", "name", "id", "self_size", "edge_count"]
    nodes = [(3, 0, 1, 100, 0), (9, 1, 2, 3 * 2**20, 0), (9, 1, 3, 2**20, 0), (9, 2, 4, 2**19, 0)]
    snapshot = {"snapshot": {"meta": {"node_fields": fields}}, "strings": strings,
                "nodes": [value for node in nodes for value in node]}
    assert native_memory(snapshot) == {"arrayBuffersMiB": 4.0, "wasmCodeMiB": 0.5}
    assert node_sizes(snapshot, ARRAY_BUFFER_DATA) == [3 * 2**20, 2**20]
    assert node_sizes(snapshot, "absent") == []


def playwrights_disabled_features() -> set[str]:
    """The features Playwright's Chromium launch turns off (chromiumSwitches.ts in its bundled driver)."""
    import playwright

    bundle = (Path(playwright.__file__).parent / "driver/package/lib/coreBundle.js").read_text()
    start = bundle.index("disabledFeatures = [")
    listed = bundle[start:bundle.index("].filter(Boolean)", start)]
    return {line.strip().strip('",') for line in listed.splitlines()[1:] if line.strip().startswith('"')}


def test_the_loads_flags_keep_every_feature_playwright_turns_off_on_linux():
    # The loads pass a --disable-features of their own, which replaces Playwright's: its list is repeated there.
    theirs = {name for name in playwrights_disabled_features() if not name.startswith("ms")}  # "ms": Edge's
    assert set(PLAYWRIGHT_DISABLED_FEATURES) == theirs
    assert sum(flag.startswith("--disable-features=") for flag in LOAD_FLAGS) == 1


def test_a_loads_times_come_from_its_untraced_twin_and_its_trace_figures_stay():
    traced = {"appRestoredMs": 2100, "firstCallAfterRestoredMs": 1300, "stagesMs": {"webmcp:ready": 1200},
              "longestOwnTaskMs": 55, "servedMiB": 28.6}
    untraced = {"appRestoredMs": 2000, "firstCallAfterRestoredMs": 400, "stagesMs": {"webmcp:ready": 300},
                "servedMiB": 0.0}
    figures = with_untraced_times(traced, untraced)
    assert figures["appRestoredMs"] == 2000
    assert figures["firstCallAfterRestoredMs"] == 400
    assert figures["stagesMs"] == {"webmcp:ready": 300}
    assert figures["longestOwnTaskMs"] == 55 and figures["servedMiB"] == 28.6  # the traced load's
    assert figures["traced"] == {"appRestoredMs": 2100, "firstCallAfterRestoredMs": 1300,
                                 "stagesMs": {"webmcp:ready": 1200}}
