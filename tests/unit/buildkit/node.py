"""Checking a script the build runs in Node or a page parses, with Node's own parser."""

import subprocess


def node_check(path) -> None:
    result = subprocess.run(["node", "--check", str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
