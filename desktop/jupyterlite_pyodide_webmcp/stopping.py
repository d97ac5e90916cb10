"""Ctrl+C ends a serving command, within a bound.

The first Ctrl+C asks the server to stop at its next poll (it closes its connections and returns); a second
one interrupts at once. Should anything still keep the process from ending STOP_SECONDS later, every
thread's stack goes to stderr and the process ends all the same: what the human asked for. A process
started with Ctrl+C ignored (a script's background job) goes on ignoring it, as Python itself does.
"""

import contextlib
import faulthandler
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator

from .stdio import log

STOP_SECONDS = 10


@contextlib.contextmanager
def ctrl_c_stops(stop: threading.Event) -> Iterator[None]:
    """While the block runs in the main thread, Ctrl+C sets `stop` (a second one raises KeyboardInterrupt)."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return

    def pressed(signum: int, frame: object) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()
        threading.Thread(target=_end_after, args=(STOP_SECONDS,), name="Ctrl+C bound", daemon=True).start()

    previous = signal.signal(signal.SIGINT, pressed)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _end_after(seconds: float) -> None:
    time.sleep(seconds)
    log(f"still running {seconds:g} s after Ctrl+C: ending it; where each thread was:")
    faulthandler.dump_traceback(file=sys.stderr, all_threads=True)
    sys.stderr.flush()
    os._exit(1)
