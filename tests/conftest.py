"""Every test process takes Ctrl+C as a terminal's does, so the commands the tests start and then stop with
Ctrl+C (SIGINT) take it too, even when the run itself was started in the background (which ignores it)."""

import signal

signal.signal(signal.SIGINT, signal.default_int_handler)
