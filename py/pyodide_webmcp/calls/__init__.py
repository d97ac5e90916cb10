"""A tool call: the tool and its descriptor, argument models, the result envelope, the call budget with
pending results and dialogs, paged listings, and the catalog the page starts from.
"""
