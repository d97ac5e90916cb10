"""Importing this package registers every tool on the registry."""

from . import cells, context, editing, execution, files, review  # noqa: F401
