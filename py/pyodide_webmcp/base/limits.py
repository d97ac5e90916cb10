"""Every numeric bound of the tool contracts, named once."""

KIB = 1024

# Result envelope
MAX_TOTAL_RESULT_BYTES = 50 * KIB
MAX_LISTING_BYTES = MAX_TOTAL_RESULT_BYTES - 4 * KIB  # a listing stops here, leaving room for the rest
MAX_ERROR_STRING_BYTES = 2 * KIB
MAX_INTERNAL_ERROR_CHARS = 500

# Cells
DEFAULT_CELLS_RETURNED = 20
MAX_CELLS_RETURNED = 100
MAX_CELL_IDS_PER_CALL = 100
MAX_CELL_SOURCE_BYTES = 25 * KIB
MAX_CELL_SOURCE_WRITE_BYTES = 256 * KIB
MAX_CELL_METADATA_CHARS = 512
MAX_PREVIEW_CHARS = 400
MAX_SUMMARY_CHARS = 600

# Outputs
MAX_OUTPUTS_PER_CELL = 10
MAX_TEXT_OUTPUT_BYTES = 10 * KIB
MAX_HTML_OUTPUT_BYTES = MAX_TEXT_OUTPUT_BYTES // 2
MAX_ENAME_BYTES = MAX_PREVIEW_CHARS
MAX_TEXT_DATA_BYTES = 10 * KIB

# Output images returned as image content (get_cells includeImages)
MAX_IMAGES_PER_CALL = 4
MAX_IMAGE_SIDE_PX = 1024
MAX_IMAGE_BYTES = 200 * KIB

# Focus and selections
MAX_SELECTED_TEXT_BYTES = 4 * KIB

# Workspace and files
MAX_WORKSPACE_ROWS = 100
MAX_NAME_BYTES = 256

# Provenance
MAX_CELL_HISTORY_ENTRIES = 20
HISTORY_COALESCE_WINDOW_MS = 60_000

# Review threads
MAX_COMMENTS_RETURNED = 50
MAX_COMMENT_MESSAGES_RETURNED = 20
MAX_COMMENT_MESSAGE_BUDGET_BYTES = 25 * KIB
MAX_COMMENT_BODY_BYTES = 8 * KIB
MAX_ANCHOR_CONTEXT_CHARS = 80
MAX_AUTHOR_NAME_CHARS = 80

# Propose mode
MAX_DENY_REASON_BYTES = 2 * KIB

# Search
MAX_SEARCH_MATCHES = 100
DEFAULT_SEARCH_MATCHES = 50
MAX_SEARCH_QUERY_CHARS = 1_000
MAX_EXCERPT_CHARS = 160
MAX_SEARCHED_LINE_CHARS = 2_000  # regex searches look no further on a line
MAX_REGEX_UNBOUNDED_REPEATS = 2

# Reading workspace text files
DEFAULT_FILE_LINES = 200
MAX_FILE_LINES = 2_000
MAX_FILE_PAGE_BYTES = 40 * KIB
MAX_FILE_LINE_BYTES = 4 * KIB
BINARY_SNIFF_CHARS = 8 * KIB

# Export
MAX_EXPORT_BYTES = 40 * KIB
MAX_EXPORT_CELLS = 500

# Human-edit attribution waits this long after the last change
HUMAN_EDIT_DEBOUNCE_MS = 1_000

# Longest wait for a notebook's session to initialize (JupyterLab may be asking the human for a kernel)
SESSION_READY_WAIT_MS = 5_000

# Calls: each answers within the budget; longer work goes on and returns a pending result
CALL_BUDGET_MS = 20_000  # the default; the owner's setting may choose between these two
MIN_CALL_BUDGET_S = 1
MAX_CALL_BUDGET_S = 55
PENDING_RESULT_KEEP_MS = 10 * 60_000
MAX_SETTLED_PENDING_CALLS = 50
ERROR_DIALOG_WAIT_MS = 1_000  # after an error dialog is closed, its call often never settles
LAB_WAIT_MS = 60_000  # longest wait on JupyterLab while no dialog of the call is open
KERNEL_DROPPED_AFTER_MS = 3_000  # an execution still unanswered this long after the kernel went idle was dropped

# Dialogs as agents see them
MAX_DIALOG_TITLE_CHARS = 200
MAX_DIALOG_BODY_BYTES = 2 * KIB
MAX_DIALOG_BUTTON_CHARS = 80
MAX_DIALOG_INPUT_CHARS = 400

# Longest wait for the kernel to apply an interrupt
KERNEL_INTERRUPT_WAIT_MS = 5_000

# Notebooks whose unchanged cell list is kept between calls, and whose outputs read for comment anchors
MAX_CACHED_CELL_LISTS = 16
MAX_CACHED_OUTPUT_NOTEBOOKS = 4

# Power tools the owner turns on (settings): code snippets and allowlisted commands
MAX_SNIPPET_BYTES = 64 * KIB
MAX_SNIPPET_STREAM_BYTES = MAX_TEXT_OUTPUT_BYTES  # kept of one stream while it arrives
MAX_LOGGED_SNIPPETS = 100  # in the Agent panel's log
MAX_LOGGED_CODE_BYTES = 8 * KIB  # of a snippet's code, and of its output summary, in the log
MAX_COMMAND_ID_CHARS = 200
MAX_COMMAND_RESULT_BYTES = 8 * KIB
MAX_COMMAND_SCHEMA_BYTES = 4 * KIB
MAX_COMMAND_LABEL_CHARS = 200
MAX_COMMAND_CAPTION_CHARS = 400
