"""The project's build: environment, browser wheels, bytecode, memory snapshot, site, server, docs.

`build.py` is the command line; `hatch_build.py` and the tests import the pieces they need.
"""
