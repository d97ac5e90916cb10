"""Importing this package registers every tool on the registry."""

from . import calls, cells, context, editing, execution, export, files, review, selection  # noqa: F401
