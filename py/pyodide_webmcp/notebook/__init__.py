"""Notebooks as agents see and change them: access, provenance, outputs, views, resolving the notebook a
call names, the guarded write and Propose mode, runs, search and export.
"""
