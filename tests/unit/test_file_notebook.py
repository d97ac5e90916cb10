"""notebook/file_notebook.py: a notebook read from its file, as the live model would hold it."""

from pyodide_webmcp.base.access_levels import AccessDefaults
from pyodide_webmcp.notebook.file_notebook import FileNotebook


def test_a_notebook_with_cell_ids_is_read_from_its_file_as_the_live_model_holds_it():
    content = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"id": "c1", "cell_type": "code", "source": ["a = 1\n", "a"], "metadata": {},
         "outputs": [{"output_type": "stream", "name": "stdout", "text": ["x\n", "y\n"]}], "execution_count": 1},
    ]}
    notebook = FileNotebook.read("n.ipynb", content, AccessDefaults())
    assert notebook.cells()[0].source == "a = 1\na" and notebook.dirty is False and notebook.access() == "write"
    assert notebook.cell_json(0)["outputs"][0]["text"] == "x\n,y\n"  # as JupyterLab's shared model joins a list
    assert FileNotebook.read("old.ipynb", {"cells": [{"cell_type": "code", "source": ""}]}, AccessDefaults()) is None  # no ids
    duplicated = {"cells": [{"id": "d", "cell_type": "code"}, {"id": "d", "cell_type": "code"}]}
    assert FileNotebook.read("dup.ipynb", duplicated, AccessDefaults()) is None
