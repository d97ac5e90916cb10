"""Notebooks written in seed 001's stored format: access, review threads and unknown data are safe with us."""

import json
import uuid

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from pyodide_webmcp.base.hashing import output_fingerprint, stable_hash
from pyodide_webmcp.notebook.access import METADATA_KEY
from pyodide_webmcp.review.store import REVIEW_KEY

from tests.browser.conftest import code_cell, notebook_json, payload
from tests.waiting import wait_until

FOLDER = "seedfmt"
REVIEWED = f"{FOLDER}/reviewed-analysis.ipynb"
STAMP = "2026-08-18T14:02:00.000Z"
LOAD = 'df = load("customers.csv")\nlen(df)'
RATE = 'converted = paid["converted"].sum()\nconversion_rate = paid["converted"].sum() / len(paid)\nprint(conversion_rate)'
FILTER = 'paid = df[df["plan"] != "free"].copy()\nlen(paid)'
OUTPUT = {"output_type": "stream", "name": "stdout", "text": "0.42\n"}

LIVE_METADATA = """([path, key]) => {
    const panel = Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.context && w.context.path === path);
    return JSON.stringify(panel.content.model.getMetadata(key) ?? null);
}"""
# Closed with their session kept: the notebooks share one kernel (tests/kernels.py).
CLOSE_IF_OPEN = """path => {
    const panel = Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.context && w.context.path === path);
    if (panel) panel.dispose();
}"""
LIVE_CELL_METADATA = """([path, key]) => {
    const panel = Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.context && w.context.path === path);
    return panel.content.model.sharedModel.cells.map(c => JSON.stringify(c.getMetadata(key) ?? null));
}"""


def message(message_id: str, kind: str, body: str) -> dict:
    name = "Browser agent" if kind == "agent" else None
    return {"id": message_id, "author": {"kind": kind, "name": name}, "createdAt": STAMP, "body": body}


def source_range(cell_id: str, source: str, text: str) -> dict:
    """A source-range anchor written the way seed 001 describes it (ASCII sources: UTF-16 columns = characters)."""
    start = source.index(text)
    end = start + len(text)

    def position(offset):
        before = source[:offset]
        return {"line": before.count("\n"), "column": offset - before.rfind("\n") - 1}

    return {
        "kind": "source-range", "cellId": cell_id,
        "sourceRange": {"start": position(start), "end": position(end)},
        "selectedText": text, "selectedTextHash": stable_hash(text),
        "prefix": source[max(0, start - 80) : start], "suffix": source[end : end + 80],
    }


def seed_threads() -> list[dict]:
    def thread(thread_id, anchor, messages, status="open"):
        return {"id": thread_id, "status": status, "createdAt": STAMP, "updatedAt": STAMP, "anchor": anchor,
                "messages": messages}

    return [
        thread("6e1b1e9e-0001", source_range("conversion-rate", RATE, 'paid["converted"].sum() / len(paid)'),
               [message("m-01a", "human", "all paid customers?"), message("m-01b", "agent", "Yes.")], "resolved"),
        thread("6e1b1e9e-0002", {"kind": "cell", "cellId": "load-data"}, [message("m-02a", "human", "Q2 export?")]),
        thread("6e1b1e9e-0003", source_range("paid-filter", FILTER, 'paid = df[df["plan"] != "free"].copy()'),
               [message("m-03a", "human", "Why copy?")]),
        thread("6e1b1e9e-0004", {"kind": "output", "cellId": "conversion-rate", "outputIndex": 0,
                                 "outputFingerprint": output_fingerprint(OUTPUT), "mimeType": "text/plain"},
               [message("m-04a", "agent", "Rounded?")]),
        thread("6e1b1e9e-0005", {"kind": "cell", "cellId": "paid-filter"}, [message("m-05a", "human", "Check this.")]),
    ]


def reviewed_notebook() -> dict:
    rate = code_cell("conversion-rate", RATE)
    rate["outputs"], rate["execution_count"] = [OUTPUT], 3
    notebook = notebook_json([code_cell("load-data", LOAD), rate, code_cell("paid-filter", FILTER)])
    notebook["metadata"][REVIEW_KEY] = {"version": 1, "threads": seed_threads()}
    return notebook


def with_notebook_entry(entry: dict, secret: str) -> dict:
    notebook = notebook_json([code_cell(f"{secret}-cell", f"{secret} = 1")])
    notebook["metadata"][METADATA_KEY] = entry
    return notebook


@pytest.fixture(scope="module")
def lab(lab_page):
    lab, _ = lab_page
    lab.open()
    lab.make_directory(FOLDER)
    lab.save_file(f"{FOLDER}/hidden.ipynb", with_notebook_entry({"notebookAccess": "none"}, "seedsecret"))
    lab.save_file(f"{FOLDER}/legacyhidden.ipynb", with_notebook_entry({"access": "none"}, "legacysecret"))
    lab.save_file(f"{FOLDER}/stricter.ipynb", with_notebook_entry({"notebookAccess": "write", "access": "none"}, "strictsecret"))
    lab.save_file(f"{FOLDER}/damaged.ipynb", with_notebook_entry({"notebookAccess": "everyone"}, "damagedsecret"))
    lab.save_file(f"{FOLDER}/readonly.ipynb", with_notebook_entry({"notebookAccess": "read"}, "visible"))
    lab.save_file(REVIEWED, reviewed_notebook())
    return lab


HIDDEN = ["hidden", "legacyhidden", "stricter", "damaged"]


def path_tools(path: str) -> list[tuple[str, dict]]:
    return [
        ("jupyter_open_notebook", {"path": path}),
        ("jupyter_get_cells", {"notebookPath": path}),
        ("jupyter_get_cell_access", {"notebookPath": path}),
        ("jupyter_insert_cell", {"notebookPath": path, "source": "x"}),
        ("jupyter_update_cell", {"notebookPath": path, "cellId": "c", "source": "", "expectedSourceHash": "0"}),
        ("jupyter_delete_cell", {"notebookPath": path, "cellId": "c", "expectedSourceHash": "0"}),
        ("jupyter_run_cells", {"notebookPath": path, "cellIds": ["c"]}),
        ("jupyter_focus_cell", {"notebookPath": path, "cellId": "c"}),
        ("jupyter_save_notebook", {"notebookPath": path}),
        ("jupyter_kernel_action", {"notebookPath": path, "action": "interrupt"}),
        ("jupyter_export_notebook", {"notebookPath": path}),
        ("jupyter_list_comments", {"notebookPath": path}),
        ("jupyter_get_comment", {"notebookPath": path, "threadId": "t"}),
        ("jupyter_create_comment", {"notebookPath": path, "anchor": {"kind": "cell", "cellId": "c"}, "message": "m"}),
        ("jupyter_reply_comment", {"notebookPath": path, "threadId": "t", "message": "m"}),
        ("jupyter_resolve_comment", {"notebookPath": path, "threadId": "t"}),
        ("jupyter_reopen_comment", {"notebookPath": path, "threadId": "t"}),
        ("jupyter_focus_comment", {"notebookPath": path, "threadId": "t"}),
    ]


@pytest.mark.parametrize("name", HIDDEN)
def test_a_hidden_notebook_stays_hidden_for_every_tool(lab, name):
    hidden, twin = f"{FOLDER}/{name}.ipynb", f"{FOLDER}/{name}-nothere.ipynb"
    for (tool, arguments), (_, missing) in zip(path_tools(hidden), path_tools(twin)):
        seen = lab.call_raw(tool, arguments)["content"][0]["text"]
        assert seen.replace(hidden, twin) == lab.call_raw(tool, missing)["content"][0]["text"], tool
        assert json.loads(seen)["error"] == "NOTEBOOK_NOT_FOUND"
    listing = json.dumps(lab.call("jupyter_list_workspace", {"path": FOLDER, "recursive": True}))
    assert f"{name}.ipynb" not in listing and "reviewed-analysis.ipynb" in listing


def test_a_hidden_notebook_the_human_opened_is_nothing_to_the_agent(lab):
    hidden, twin = f"{FOLDER}/hidden.ipynb", f"{FOLDER}/hidden-nothere.ipynb"
    lab.share_kernel(hidden)
    lab.page.evaluate("path => window.jupyterapp.commands.execute('docmanager:open', {path})", hidden)
    wait_until(lambda: lab.page.evaluate("() => window.jupyterapp.shell.currentWidget?.context?.path") == hidden)
    context = lab.call("jupyter_get_context")
    assert context["notebook"] is None and hidden not in context["workspace"]["openDocuments"]
    assert lab.error("jupyter_get_cells")["error"] == "NO_ACTIVE_NOTEBOOK"
    assert "secret" not in json.dumps(context) + json.dumps(lab.call_raw("jupyter_get_output_selection"))
    again = lab.call_raw("jupyter_get_cells", {"notebookPath": hidden})["content"][0]["text"]
    assert again.replace(hidden, twin) == lab.call_raw("jupyter_get_cells", {"notebookPath": twin})["content"][0]["text"]
    lab.page.evaluate(CLOSE_IF_OPEN, hidden)


def test_a_read_only_notebook_in_the_seed_format_refuses_writes(lab):
    path = f"{FOLDER}/readonly.ipynb"
    cell = lab.call("jupyter_get_cells", {"notebookPath": path})["cells"][0]
    assert cell["id"] == "visible-cell"
    for tool, arguments in path_tools(path)[3:10]:
        if tool in ("jupyter_focus_cell", "jupyter_export_notebook"):
            continue
        result = payload(lab.call_raw(tool, arguments))
        assert result["error"] == "NOTEBOOK_ACCESS_DENIED" and result["access"] == "read", tool


def test_every_thread_is_listed_read_and_answered(lab):
    listed = lab.call("jupyter_list_comments", {"notebookPath": REVIEWED, "status": "all"})
    assert listed["counts"] == {"openThreads": 4, "totalThreads": 5}
    assert len(listed["threads"]) == 5 and listed["unreadableThreadCount"] == 0
    states = {t["threadId"]: t["anchor"]["state"] for t in listed["threads"]}
    assert set(states.values()) == {"exact"}

    read = lab.call("jupyter_get_comment", {"notebookPath": REVIEWED, "threadId": "6e1b1e9e-0001"})
    assert read["thread"]["anchor"]["selectedText"] == 'paid["converted"].sum() / len(paid)'
    assert read["anchorStatus"]["range"] == {"start": {"line": 1, "column": 18}, "end": {"line": 1, "column": 53}}
    assert [m["id"] for m in read["thread"]["messages"]] == ["m-01a", "m-01b"]
    assert read["thread"]["messages"][0]["author"] == {"kind": "human", "name": None}
    output = lab.call("jupyter_get_comment", {"notebookPath": REVIEWED, "threadId": "6e1b1e9e-0004"})
    assert output["anchorStatus"]["outputChanged"] is False and output["context"]["cell"]["outputs"]

    replied = lab.call("jupyter_reply_comment", {"notebookPath": REVIEWED, "threadId": "6e1b1e9e-0003", "message": "To avoid a warning."})
    assert [m["id"] for m in replied["thread"]["messages"]][:1] == ["m-03a"] and len(replied["thread"]["messages"]) == 2
    assert lab.call("jupyter_reopen_comment", {"notebookPath": REVIEWED, "threadId": "6e1b1e9e-0001"})["thread"]["status"] == "open"


def test_an_agent_write_keeps_every_other_stored_thread_byte_for_byte(lab):
    before = json.loads(lab.page.evaluate(LIVE_METADATA, [REVIEWED, REVIEW_KEY]))
    odd = {"id": 42, "anchor": {"kind": "cell", "cellId": "load-data"}, "messages": "kept as is", "x": [1.5, None, "\U0001F600"]}
    before["threads"].insert(2, odd)
    before["note"] = {"from": "a newer version"}
    lab.page.evaluate(
        """([path, key, entry]) => {
            const panel = Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.context && w.context.path === path);
            panel.content.model.setMetadata(key, entry);
        }""",
        [REVIEWED, REVIEW_KEY, before],
    )
    before_text = [json.dumps(t, sort_keys=True) for t in before["threads"]]
    listed = lab.call("jupyter_list_comments", {"notebookPath": REVIEWED, "status": "all"})
    assert listed["unreadableThreadCount"] == 1 and len(listed["threads"]) == 5

    created = lab.call("jupyter_create_comment", {
        "notebookPath": REVIEWED, "anchor": {"kind": "source-range", "cellId": "load-data", "text": "customers.csv"},
        "message": "Which quarter?"})
    after = json.loads(lab.page.evaluate(LIVE_METADATA, [REVIEWED, REVIEW_KEY]))
    assert [json.dumps(t, sort_keys=True) for t in after["threads"][:-1]] == before_text
    assert after["note"] == before["note"] and after["version"] == 1
    stored = after["threads"][-1]
    assert stored["id"] == created["thread"]["id"]
    assert stored["anchor"]["sourceRange"] == {"start": {"line": 0, "column": 11}, "end": {"line": 0, "column": 24}}
    assert stored["anchor"]["selectedTextHash"] == stable_hash("customers.csv")

    resolved = lab.call("jupyter_resolve_comment", {"notebookPath": REVIEWED, "threadId": "6e1b1e9e-0005", "resolutionMessage": "ok"})
    assert resolved["thread"]["status"] == "resolved"
    again = json.loads(lab.page.evaluate(LIVE_METADATA, [REVIEWED, REVIEW_KEY]))
    unchanged = [json.dumps(t, sort_keys=True) for t in again["threads"] if t.get("id") != "6e1b1e9e-0005"]
    assert unchanged == [json.dumps(t, sort_keys=True) for t in after["threads"] if t.get("id") != "6e1b1e9e-0005"]

    lab.call("jupyter_save_notebook", {"notebookPath": REVIEWED})
    saved = lab.read_file(REVIEWED)["metadata"][REVIEW_KEY]
    assert saved["threads"][2] == odd and saved["note"] == before["note"]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(min_size=1, max_size=4), inner, max_size=2),
    max_leaves=4,
)
unknown = st.dictionaries(st.sampled_from(["future", "x-ext", "zz", "v2"]), json_values, min_size=1, max_size=2)


def agent_calls(path: str):
    cell = st.sampled_from(["load-data", "conversion-rate", "paid-filter"])
    thread = st.sampled_from(["6e1b1e9e-0002", "6e1b1e9e-0003", "6e1b1e9e-0004"])
    return st.one_of(
        st.builds(lambda c: ("jupyter_create_comment", {"notebookPath": path, "anchor": {"kind": "cell", "cellId": c}, "message": "p"}), cell),
        st.builds(lambda t: ("jupyter_reply_comment", {"notebookPath": path, "threadId": t, "message": "r"}), thread),
        st.builds(lambda t: ("jupyter_resolve_comment", {"notebookPath": path, "threadId": t}), thread),
        st.builds(lambda t: ("jupyter_reopen_comment", {"notebookPath": path, "threadId": t}), thread),
        st.builds(lambda c: ("update", c), cell),
        st.builds(lambda c: ("jupyter_insert_cell", {"notebookPath": path, "referenceCellId": c, "source": "# new"}), cell),
        st.just(("jupyter_get_cells", {"notebookPath": path, "includeOutputs": True})),
        st.just(("jupyter_save_notebook", {"notebookPath": path})),
    )


@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
    phases=(Phase.explicit, Phase.reuse, Phase.generate),  # shrinking in a browser costs minutes per step
)
@given(data=st.data())
def test_unknown_data_under_our_keys_survives_any_sequence_of_tool_calls(lab, data):
    path = f"{FOLDER}/unknown-{uuid.uuid4().hex[:8]}.ipynb"  # never a file an earlier example left open
    try:
        check_unknown_data_survives(lab, data, path)
    finally:
        lab.page.evaluate(CLOSE_IF_OPEN, path)


def check_unknown_data_survives(lab, data, path):
    notebook = reviewed_notebook()
    notebook_extra, cell_extra, entry_extra, thread_extra = (data.draw(unknown, label=label) for label in ("nb", "cell", "entry", "thread"))
    notebook["metadata"][METADATA_KEY] = {"notebookAccess": "write", **notebook_extra}
    for cell in notebook["cells"]:
        cell["metadata"][METADATA_KEY] = {**cell_extra}
    notebook["metadata"][REVIEW_KEY].update(entry_extra)
    for stored in notebook["metadata"][REVIEW_KEY]["threads"]:
        stored.update(thread_extra)
        stored["anchor"].update(thread_extra)
        stored["messages"][0].update(thread_extra)
    lab.save_file(path, notebook)
    lab.share_kernel(path)
    calls = data.draw(st.lists(agent_calls(path), min_size=2, max_size=5), label="calls")
    for name, arguments in calls:
        if name == "update":
            cell = lab.call("jupyter_get_cells", {"notebookPath": path, "cellIds": [arguments]})["cells"][0]
            lab.call("jupyter_update_cell", {"notebookPath": path, "cellId": arguments, "source": cell["source"] + "\n# edited",
                                             "expectedSourceHash": cell["sourceHash"]})
        else:
            lab.call(name, arguments)

    def dumped(value):
        return json.dumps(value, sort_keys=True)

    entry = json.loads(lab.page.evaluate(LIVE_METADATA, [path, REVIEW_KEY]))
    for key, value in entry_extra.items():
        assert dumped(entry[key]) == dumped(value)
    for stored in entry["threads"][:5]:
        for key, value in thread_extra.items():
            assert dumped(stored[key]) == dumped(value)
            assert dumped(stored["anchor"][key]) == dumped(value)
            assert dumped(stored["messages"][0][key]) == dumped(value)
    notebook_entry = json.loads(lab.page.evaluate(LIVE_METADATA, [path, METADATA_KEY]))
    assert notebook_entry == {"notebookAccess": "write", **json.loads(dumped(notebook_extra))}
    original_ids = {"load-data", "conversion-rate", "paid-filter"}
    cells = lab.call("jupyter_get_cells", {"notebookPath": path})["cells"]
    stored_cells = lab.page.evaluate(LIVE_CELL_METADATA, [path, METADATA_KEY])
    for cell, stored in zip(cells, stored_cells):
        if cell["id"] in original_ids:
            stored = json.loads(stored)
            for key, value in cell_extra.items():
                assert dumped(stored[key]) == dumped(value)
