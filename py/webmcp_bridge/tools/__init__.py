"""Importing this package registers every tool on the registry."""

from . import cells, context, editing, execution, export, files, review, selection  # noqa: F401
