"""The basics every part uses: bounded text, numeric limits, errors, the result fields and shapes several
tools share, hashes, workspace paths, positions in a source. Imports nothing else of the package.
"""
