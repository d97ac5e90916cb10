"""buildkit/snapshot.py: the bridge's memory snapshot: the page that makes it, and a plain start when asked for."""

import re

import pytest
from jupyterlite_pyodide_webmcp.browser import Machine

from buildkit import snapshot
from tests.unit.buildkit.node import node_check


def test_the_snapshot_maker_page_script_parses(tmp_path):
    page = snapshot.MAKER_PAGE.read_text()
    script = re.fullmatch(r'<!doctype html><script type="module">(.*)</script>\n', page, re.S).group(1)
    (tmp_path / "page.mjs").write_text(script)
    node_check(tmp_path / "page.mjs")


@pytest.mark.parametrize("value, plain", [("1", True), ("yes", True), ("0", False), ("", False), (None, False)])
def test_pip_install_asks_for_a_plain_start_with_an_environment_variable(value, plain):
    environ = {} if value is None else {snapshot.PLAIN_START_ENV: value}
    assert snapshot.plain_start_requested(environ) is plain


def test_what_the_snapshot_lacks_is_named():
    nothing = Machine("Linux", {"PATH": "/usr/bin"}, "/home/ann", lambda path: False, lambda name: None,
                      lambda folder: [])
    missing = snapshot.missing_for_snapshot(nothing, None, has_playwright=False)
    assert len(missing) == 2
    assert missing[0].startswith("No Chromium-based browser was found") and "Playwright for Python" in missing[1]
    assert snapshot.missing_for_snapshot(nothing, "/usr/bin/chromium", has_playwright=True) == []


def test_the_heap_table_says_what_each_step_added():
    from buildkit.snapshot import heap_table

    mib = 2**20
    rows = heap_table([{"step": "interpreter started", "breakBytes": 22 * mib, "usedBytes": 8 * mib},
                       {"step": "import pydantic", "breakBytes": 25 * mib, "usedBytes": 11 * mib}])
    assert rows[1].split() == ["interpreter", "started", "22.00", "8.00"]
    assert rows[2].split() == ["import", "pydantic", "25.00", "+3.00", "11.00", "+3.00"]
