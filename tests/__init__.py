"""The tests, as packages: a unit test file may share its name with a browser test file or a tool's test file."""
