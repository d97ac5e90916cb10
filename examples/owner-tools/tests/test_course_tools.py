"""The course tools on CPython, on the kit's in-memory lab: no browser, no Pyodide."""

from course_tools import list_exercises, mark_for_review
from pyodide_webmcp.kit.testing import MemoryLab, MemoryNotebook, call, cell


def course_notebook() -> MemoryNotebook:
    return MemoryNotebook("week1.ipynb", [
        cell("## Exercise 1: add\nAdd two numbers.", "markdown", "e1"),
        cell("# TODO", cell_id="a1"),
        cell("## Exercise 2: loop\nSum a list.", "markdown", "e2"),
        cell("total = sum([1, 2, 3])", cell_id="a2"),
        cell("secret = 'the owner hid this'", cell_id="hidden", jupyterlite_webmcp={"access": "none"}),
    ])


def test_the_exercises_are_listed_with_their_answer_cells():
    result = call(MemoryLab(course_notebook()), list_exercises, {})
    assert result == {"exercises": [
        {"title": "Exercise 1: add", "answerCellId": "a1", "answered": False},
        {"title": "Exercise 2: loop", "answerCellId": "a2", "answered": True},
    ]}


def test_an_answer_is_marked_through_the_guarded_write():
    notebook = course_notebook()
    lab = MemoryLab(notebook)
    answer = call(lab, "jupyter_get_cells", {"cellIds": ["a2"]})["cells"][0]
    marked = call(lab, mark_for_review, {"cellId": "a2", "expectedSourceHash": answer["sourceHash"]})
    assert marked["cell"]["source"] == "# ready for review\ntotal = sum([1, 2, 3])"
    again = call(lab, mark_for_review, {"cellId": "a2", "expectedSourceHash": marked["cell"]["sourceHash"]})
    assert again["error"] == "INVALID_ARGUMENT"  # marked already


def test_a_write_on_an_old_read_is_refused_as_stale():
    notebook = course_notebook()
    lab = MemoryLab(notebook)
    answer = call(lab, "jupyter_get_cells", {"cellIds": ["a2"]})["cells"][0]
    notebook.data[3]["source"] = "total = 6  # the human edited it meanwhile"
    stale = call(lab, mark_for_review, {"cellId": "a2", "expectedSourceHash": answer["sourceHash"]})
    assert stale["error"] == "STALE_CELL" and notebook.data[3]["source"].startswith("total = 6")


def test_a_hidden_cell_is_not_there_for_the_tools():
    lab = MemoryLab(course_notebook())
    refused = call(lab, mark_for_review, {"cellId": "hidden", "expectedSourceHash": "x"})
    assert refused["error"] == "CELL_NOT_FOUND"
