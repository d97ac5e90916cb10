"""notebook/same_origin.py: markdown an agent writes must not make the page fetch from another origin when shown (found by the stress
run: image beacons in agent-written markdown cells fired as soon as the cells rendered)."""

import pytest
from pyodide_webmcp.base.hashing import source_hash
from pyodide_webmcp.kit.testing import MemoryLab, MemoryNotebook, call, cell
from pyodide_webmcp.notebook.same_origin import remote_reference

BEACONS = [
    "![beacon](http://198.51.100.7/b.png)",
    "![b]( <https://x.example/b.png> )",
    "![b](//x.example/b.png)",
    "![b][ref]\n\n[ref]: http://x.example/b.png",
    '<img src="http://x.example/b.png">',
    "<IMG SRC=http://x.example/b.png>",
    '<img src="&#104;ttp://x.example/b.png">',
    '<img srcset="a.png 1x, https://x.example/b.png 2x">',
    '<video poster="https://x.example/p.png"></video>',
    '<link rel="stylesheet" href="https://x.example/s.css">',
    "<style>@import url(https://x.example/s.css);</style>",
    '<div style="background: url(\'https://x.example/bg.png\')">x</div>',
    '<svg><image href="https://x.example/i.png"/></svg>',
]
HARMLESS = [
    "# Title\n\n[a link](https://x.example/page) and <https://x.example/auto>",
    '<a href="https://x.example/page">a link</a>',
    "![local](images/plot.png) ![attached](attachment:plot.png) ![inline](data:image/png;base64,AAAA)",
    "[ref]: https://x.example/page\n\nno image uses it",
    "a < b and c > d, x = url(local.png)",
]


@pytest.mark.parametrize("markdown", BEACONS)
def test_resources_from_another_origin_are_found(markdown):
    assert remote_reference(markdown) is not None


@pytest.mark.parametrize("markdown", HARMLESS)
def test_links_and_local_resources_are_allowed(markdown):
    assert remote_reference(markdown) is None


def test_no_write_path_puts_a_beacon_into_a_markdown_cell():
    notebook = MemoryNotebook("m.ipynb", [cell("# notes", "markdown", "md"), cell(BEACONS[0], "code", "code"),
                                          cell("# x", "raw", "raw")])
    lab = MemoryLab(notebook)
    refusals = [
        call(lab, "jupyter_insert_cell", {"cellType": "markdown", "source": BEACONS[4]}),
        call(lab, "jupyter_update_cell", {"cellId": "md", "source": BEACONS[0], "expectedSourceHash": source_hash("# notes")}),
        call(lab, "jupyter_replace_in_cell", {"cellId": "md", "old": "notes", "new": BEACONS[1],
                                              "expectedSourceHash": source_hash("# notes")}),
        call(lab, "jupyter_update_cell", {"cellId": "code", "source": BEACONS[0], "cellType": "markdown",
                                          "expectedSourceHash": source_hash(BEACONS[0])}),
    ]
    assert [(r["error"], r["detail"]) for r in refusals] == [("INVALID_ARGUMENT", "REMOTE_RESOURCE")] * 4
    assert "another origin" in refusals[0]["message"]
    assert [(c.type, c.source) for c in notebook.cells()] == [("markdown", "# notes"), ("code", BEACONS[0]),
                                                              ("raw", "# x")]
    # Code and raw cells are not rendered as markdown: the same text is fine there, and so are links
    assert "error" not in call(lab, "jupyter_update_cell", {"cellId": "raw", "source": BEACONS[4],
                                                             "expectedSourceHash": source_hash("# x")})
    assert "error" not in call(lab, "jupyter_insert_cell", {"cellType": "markdown", "source": HARMLESS[0]})
