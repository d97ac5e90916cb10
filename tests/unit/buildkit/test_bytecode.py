"""buildkit/bytecode.py: the programs that precompile Python in Node and in Pyodide."""

from buildkit import bytecode
from tests.unit.buildkit.node import node_check


def test_the_node_launcher_parses():
    node_check(bytecode.LAUNCHER)


def test_the_pyodide_program_compiles():
    compile(bytecode.PROGRAM.read_text(), str(bytecode.PROGRAM), "exec", dont_inherit=True)
