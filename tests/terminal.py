"""Commands the tests start and then stop with Ctrl+C, as a terminal's foreground job: started with SIGINT
taken the default way and not blocked, whatever the test process's own state, and stopped by SIGINT to their
process group; one that does not end prints where each of its threads was."""

import os
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

FAULT_HANDLER = {"PYTHONFAULTHANDLER": "1"}  # in a command's environment: SIGABRT prints its threads' stacks


def as_a_terminal_starts() -> None:
    """A Popen `preexec_fn`: Ctrl+C reaches the command and stops it, as in a terminal."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def ctrl_c(process: subprocess.Popen, output: Callable[[], str], seconds: float = 60) -> int:
    """Ctrl+C to the command's process group; its exit code, or a failure with its last output and stacks."""
    try:
        os.killpg(os.getpgid(process.pid), signal.SIGINT)
        return process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        status = Path(f"/proc/{process.pid}/status").read_text()
        signals = [line for line in status.splitlines() if line.startswith(("SigBlk", "SigIgn", "SigCgt"))]
        process.send_signal(signal.SIGABRT)
        process.wait(timeout=30)
        pytest.fail(f"Ctrl+C did not end {process.args} within {seconds:g} s ({'; '.join(signals)}); "
                    f"what it printed last:\n{output()[-8000:]}")
