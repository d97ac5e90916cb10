"""base/paths.py: workspace paths, relative and never escaping the workspace."""

import pytest
from pyodide_webmcp.base.errors import ErrorCode, ToolError
from pyodide_webmcp.base.paths import (
    base_name,
    is_notebook_path,
    join_path,
    normalize_path,
)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("", ""), ("a.ipynb", "a.ipynb"), ("./dir//b.ipynb", "dir/b.ipynb"), ("dir/../c.ipynb", "c.ipynb"), ("dir/", "dir")],
)
def test_normalize_accepts_relative_paths(raw, expected):
    assert normalize_path(raw) == expected


@pytest.mark.parametrize("raw", ["/etc/passwd", "../x.ipynb", "a/../../x", "dir\\x.ipynb", "C:/x", "a\x00b"])
def test_normalize_rejects_escapes(raw):
    with pytest.raises(ToolError) as caught:
        normalize_path(raw)
    assert caught.value.code is ErrorCode.INVALID_PATH
    assert caught.value.details == {"path": raw}


def test_path_helpers():
    assert join_path("", "a.ipynb") == "a.ipynb"
    assert join_path("d", "a.ipynb") == "d/a.ipynb"
    assert base_name("d/e/a.ipynb") == "a.ipynb"
    assert is_notebook_path("a.ipynb") and not is_notebook_path("a.py")
