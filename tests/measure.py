"""Page measurements shared by the benchmark and the stress run: main-thread tasks from a DevTools
trace, memory after a full collection, live Pyodide proxies from a heap snapshot, and percentiles."""

import bisect
import json
import statistics

# The sampling profiler too: Pyodide's own start runs in microtasks no trace event ties to a script (bench below).
TRACE_CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline", "disabled-by-default-v8.cpu_profiler"]
TASK_EVENTS = {"RunTask", "ThreadControllerImpl::RunTask"}

BRIDGE_URLS = ("/static/pyodide/", "/jupyterlite-pyodide-webmcp/")
# Work only the bridge does on the page's main thread (the kernel's Pyodide runs in a worker).
BRIDGE_EVENTS = ("DecompressionStream", "v8.wasm.")

# True once `windowMs` pass with no main-thread task over `longestMs`, false after `timeoutMs`: a large
# notebook keeps rendering its cells long after it opens, and calls queue behind that work.
MAIN_THREAD_QUIET = """async ([windowMs, longestMs, timeoutMs]) => {
    const deadline = performance.now() + timeoutMs;
    while (performance.now() < deadline) {
        const start = performance.now();
        let worst = 0;
        while (performance.now() - start < windowMs) {
            const before = performance.now();
            await new Promise(resolve => setTimeout(resolve, 0));
            worst = Math.max(worst, performance.now() - before);
        }
        if (worst < longestMs) return true;
    }
    return false;
}"""


# Evaluating an extension's script: the lab loads every extension's entry inside a task of its own.
SCRIPT_LOADING = {"EvaluateScript", "v8.compile", "v8.compileModule", "v8.evaluateModule"}


def main_threads(events: list[dict]) -> set[tuple]:
    return {(event["pid"], event["tid"]) for event in events
            if event.get("name") == "thread_name" and event.get("args", {}).get("name") == "CrRendererMain"}


# Sampled frames that are no code of any script.
NO_SCRIPT = {"(root)", "(program)", "(idle)", "(garbage collector)"}


Frame = tuple[str, str]  # a sampled frame's function name and script URL ("" for a builtin)


def sampled_stacks(events: list[dict], threads: set[tuple]) -> list[tuple[float, tuple[Frame, ...]]]:
    """(time, its frames from the innermost out) of each sample the profiler took on those threads, by time;
    frames that run no script at all (the idle thread, the collector) are left out."""
    profiles: dict = {}
    for event in events:
        if event.get("name") == "Profile" and (event.get("pid"), event.get("tid")) in threads:
            profiles[(event["pid"], event["id"])] = {"time": event["args"]["data"]["startTime"], "nodes": {}}
    samples = []
    for event in events:
        profile = profiles.get((event.get("pid"), event.get("id"))) if event.get("name") == "ProfileChunk" else None
        if profile is None:
            continue
        data = event["args"]["data"]
        for node in data.get("cpuProfile", {}).get("nodes", []):
            profile["nodes"][node["id"]] = node
        for node_id, delta in zip(data.get("cpuProfile", {}).get("samples", []), data.get("timeDeltas", [])):
            profile["time"] += delta
            frames, node = [], profile["nodes"].get(node_id)
            while node is not None:
                frame = node["callFrame"]
                if frame.get("functionName") not in NO_SCRIPT:
                    frames.append((frame.get("functionName") or "(anonymous)", frame.get("url", "")))
                node = profile["nodes"].get(node.get("parent"))
            samples.append((profile["time"], tuple(frames)))
    return sorted(samples)


def task_events(trace: bytes) -> list[tuple[dict, list[dict], list[tuple[Frame, ...]]]]:
    """Each top-level task on the page's renderer main thread, with the events it contains and the stacks the
    sampling profiler took in it (as sampled_stacks gives them)."""
    events = json.loads(trace)["traceEvents"]
    threads = main_threads(events)
    on_main = sorted(
        (event for event in events if (event.get("pid"), event.get("tid")) in threads and event.get("ph") == "X"),
        key=lambda event: (event["ts"], -event.get("dur", 0)),
    )
    tasks: list[tuple[dict, list[dict], list]] = []
    for event in on_main:
        if event["name"] in TASK_EVENTS:
            if not tasks or event["ts"] >= tasks[-1][0]["ts"] + tasks[-1][0].get("dur", 0):
                tasks.append((event, [], []))
        elif tasks and event["ts"] < tasks[-1][0]["ts"] + tasks[-1][0].get("dur", 0):
            tasks[-1][1].append(event)
    starts = [task["ts"] for task, _, _ in tasks]
    for time, frames in sampled_stacks(events, threads):
        at = bisect.bisect_right(starts, time) - 1
        if at >= 0 and time <= tasks[at][0]["ts"] + tasks[at][0].get("dur", 0):
            tasks[at][2].append(frames)
    return tasks


def event_url(event: dict) -> str:
    data = (event.get("args") or {}).get("data") or {}
    return (data.get("url") or "") if isinstance(data, dict) else ""


def own_frame(frames: tuple[Frame, ...], own_urls: tuple) -> Frame | None:
    """The innermost frame of the extension's code (`own_urls`) in a sampled stack, if any."""
    return next((frame for frame in frames if any(part in frame[1] for part in own_urls)), None)


def is_own(task: dict, children: list[dict], own_urls: tuple = BRIDGE_URLS, own_events: tuple = BRIDGE_EVENTS,
           stacks: list[tuple[Frame, ...]] = ()) -> bool:
    """Whether a task is the extension's: it compiles wasm or inflates a stream (`own_events`: by default,
    the lab itself does neither on the main thread; another extension, the benchmark's reference, passes
    none); else, where the profiler sampled it, the extension's code (`own_urls`) is on the stack in at
    least half of the samples that ran a script (Pyodide's start runs in microtasks that no trace event
    ties to a script, and the lab runs its plugins' activation in the microtasks that end the evaluation
    of the last extension's script); else it runs the extension's script, or loading one takes half of it
    (the lab's script loads evaluate each extension's entry in passing)."""
    loading, named = 0, False
    for event in children:
        if own_events and event["name"].startswith(own_events):
            return True
        if any(part in event_url(event) for part in own_urls):
            if event["name"] in SCRIPT_LOADING:
                loading += event.get("dur", 0)
            else:
                named = True
    scripted = [frames for frames in stacks if frames]
    if scripted:
        return sum(1 for frames in scripted if own_frame(frames, own_urls)) * 2 >= len(scripted)
    return named or loading * 2 >= task.get("dur", 0) > 0


def judged_tasks(parsed: list, own_urls: tuple = BRIDGE_URLS, own_events: tuple = BRIDGE_EVENTS) -> list[tuple]:
    """(duration ms, is the extension's own, events, stacks) of each task task_events gave."""
    return [(task.get("dur", 0) / 1000, is_own(task, events, own_urls, own_events, stacks), events, stacks)
            for task, events, stacks in parsed]


def main_thread_tasks(trace: bytes, own_urls: tuple = BRIDGE_URLS,
                      own_events: tuple = BRIDGE_EVENTS) -> list[tuple[float, bool]]:
    """(duration ms, is the extension's own) of each top-level task on the page's renderer main thread."""
    return [(duration, own) for duration, own, *_ in judged_tasks(task_events(trace), own_urls, own_events)]


def memory_after_gc(page) -> dict:
    """JS heap, array buffers (wasm memories included) and compiled wasm code after a full collection, MiB.

    The array buffers are summed from a heap snapshot: the DevTools heap usage counts no wasm memory.
    """
    session = page.context.new_cdp_session(page)
    session.send("HeapProfiler.collectGarbage")
    usage = session.send("Runtime.getHeapUsage")
    session.detach()
    return {"jsHeapMiB": usage["usedSize"] / 2**20, **native_memory(heap_snapshot(page))}


ARRAY_BUFFER_DATA = "system / JSArrayBufferData"
WASM_CODE = "system / CppGCManaged (WasmNativeModule)"


def node_sizes(snapshot: dict, name: str) -> list[int]:
    """The self sizes of a heap snapshot's nodes named `name`, largest first."""
    meta = snapshot["snapshot"]["meta"]
    fields = meta["node_fields"]
    name_at, size_at, width = fields.index("name"), fields.index("self_size"), len(fields)
    wanted = snapshot["strings"].index(name) if name in snapshot["strings"] else None
    nodes = snapshot["nodes"]
    return sorted((size for node_name, size in zip(nodes[name_at::width], nodes[size_at::width])
                   if node_name == wanted), reverse=True)


def native_memory(snapshot: dict) -> dict:
    """MiB a heap snapshot holds outside the JS heap: every array buffer's bytes (a wasm memory's
    included) and the code of compiled wasm modules."""
    return {"arrayBuffersMiB": sum(node_sizes(snapshot, ARRAY_BUFFER_DATA)) / 2**20,
            "wasmCodeMiB": sum(node_sizes(snapshot, WASM_CODE)) / 2**20}


# The property every Pyodide PyProxy's target carries (pyproxy.ts: `Symbol("pyproxy.attrs")`), as a heap snapshot
# names it: one per live PyProxy, whatever its class.
PYPROXY_ATTRS = "<symbol pyproxy.attrs>"


def heap_snapshot(page) -> dict:
    """The page's JS heap after a full collection, as DevTools takes it (seconds for a 60 MiB heap)."""
    session = page.context.new_cdp_session(page)
    chunks = []
    session.on("HeapProfiler.addHeapSnapshotChunk", lambda event: chunks.append(event["chunk"]))
    session.send("HeapProfiler.enable")
    session.send("HeapProfiler.collectGarbage")
    session.send("HeapProfiler.takeHeapSnapshot", {"reportProgress": False})
    session.send("HeapProfiler.disable")
    session.detach()
    return json.loads("".join(chunks))


def live_pyproxies(snapshot: dict) -> int:
    """How many Pyodide PyProxies a heap snapshot holds: the property edges named `PYPROXY_ATTRS`."""
    meta = snapshot["snapshot"]["meta"]
    try:
        name = snapshot["strings"].index(PYPROXY_ATTRS)
    except ValueError:
        return 0
    fields = meta["edge_fields"]
    kind, name_at, width = fields.index("type"), fields.index("name_or_index"), len(fields)
    property_kind = meta["edge_types"][0].index("property")
    edges = snapshot["edges"]
    return sum(1 for edge_kind, edge_name in zip(edges[kind::width], edges[name_at::width])
               if edge_name == name and edge_kind == property_kind)


def percentiles(times: list[float]) -> dict:
    ordered = sorted(times)
    return {
        "p50": statistics.median(ordered),
        "p95": ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))],
        "n": len(ordered),
    }
