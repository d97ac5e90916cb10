"""The human's side: what they see of the agent's work and the controls only they have (the Agent panel, the marks
on cells, the review box of Propose mode), and the journal of the agent's changes they can take back.

No tool may read or change anything here, and none can: the tools sit below this package. The views reach the
page only through what the adapter hands them (`page.Page`): they import no JavaScript.
"""
