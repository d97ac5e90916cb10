"""The tools' unit tests: one file per module of py/pyodide_webmcp/tools."""
