"""Importing this package registers every tool on the registry."""

from . import cells, context, files  # noqa: F401
