"""lab/snippet_outputs.py: the outputs of code an agent runs, bounded, and the log the human sees."""

from pyodide_webmcp.base import limits
from pyodide_webmcp.base.text import utf8_len
from pyodide_webmcp.lab.snippet_outputs import SnippetLog, SnippetOutputs


def test_snippet_outputs_stay_bounded_whatever_the_kernel_sends():
    outputs = SnippetOutputs()
    for _ in range(1000):
        outputs.add("stream", {"name": "stdout", "text": "x" * 10_000})  # 10 MB in all
    assert len(outputs.outputs) == 1 and utf8_len(outputs.outputs[0]["text"]) == limits.MAX_SNIPPET_STREAM_BYTES
    assert outputs.dropped > 0
    for index in range(limits.MAX_OUTPUTS_PER_CELL + 5):
        outputs.add("display_data", {"data": {"text/plain": str(index)}, "metadata": {}, "transient": {"x": 1}})
    assert len(outputs.outputs) == limits.MAX_OUTPUTS_PER_CELL
    assert all("transient" not in output for output in outputs.outputs)
    outputs.add("clear_output", {"wait": False})
    outputs.add("execute_result", {"data": {"text/plain": "3"}, "metadata": {}, "execution_count": 7})
    assert outputs.outputs == [{"data": {"text/plain": "3"}, "metadata": {}, "execution_count": 7, "output_type": "execute_result"}]
    assert outputs.execution_count == 7
    outputs.add("stream", "not a dict")  # ignored, not an exception


def test_the_snippet_log_keeps_the_latest_and_tells_its_listeners():
    log, seen = SnippetLog(), []
    log.on_change(lambda: seen.append(len(log.entries)))
    first = log.add("t0", "a.ipynb", "x" * (limits.MAX_LOGGED_CODE_BYTES + 100))
    assert utf8_len(first.code) <= limits.MAX_LOGGED_CODE_BYTES and first.status == "running"
    log.finish(first, "ok", "1")
    for index in range(limits.MAX_LOGGED_SNIPPETS + 3):
        log.add("t", "a.ipynb", str(index))
    assert len(log.entries) == limits.MAX_LOGGED_SNIPPETS and log.entries[-1].code == str(limits.MAX_LOGGED_SNIPPETS + 2)
    assert log.entries[-1].number == limits.MAX_LOGGED_SNIPPETS + 4 == log.count
    assert seen[:2] == [1, 1] and seen[-1] == limits.MAX_LOGGED_SNIPPETS
    assert log.since(log.count) is None and log.since(log.count - 1) is log.entries[-1]
