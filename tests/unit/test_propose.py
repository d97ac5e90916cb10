"""notebook/propose.py: what the human is shown of a proposed change, and a denial as the agent gets it."""

from pyodide_webmcp.base import limits


def test_proposal_diff_and_denial_shape():
    from pyodide_webmcp.notebook.propose import denied, diff_lines

    assert diff_lines("a\nb\nc", "a\nB\nc") == [("same", "a"), ("removed", "b"), ("added", "B"), ("same", "c")]
    result = denied("p-1", "cell", "  ")
    assert result == {"status": "denied", "code": "PROPOSAL_DENIED", "proposalId": "p-1", "cellId": "cell", "reason": None}
    long = denied("p-1", "cell", "é" * 5000)["reason"]
    assert len(long.encode()) <= limits.MAX_DENY_REASON_BYTES
