"""desktop/jupyterlite_pyodide_webmcp/stopping.py: Ctrl+C ends a serving command, within a bound, whatever is
still running in it."""

import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import jupyterlite_pyodide_webmcp

from tests.terminal import as_a_terminal_starts

SOURCE = str(Path(jupyterlite_pyodide_webmcp.__file__).parent.parent)  # the package these tests import
SERVING = """
    import sys
    from pathlib import Path
    from jupyterlite_pyodide_webmcp.site_server import site_server
    server = site_server(0, Path(sys.argv[1]))
    print(server.server_address[1], flush=True)
    server.serve_forever()
    server.server_close()
    print("stopped", flush=True)
"""

STUCK = """
    import threading
    from jupyterlite_pyodide_webmcp import stopping
    stopping.STOP_SECONDS = 1
    threading.Thread(target=threading.Event().wait).start()  # keeps the interpreter's exit waiting
    stop = threading.Event()
    with stopping.ctrl_c_stops(stop):
        print("ready", flush=True)
        stop.wait()
"""

STARTED_IGNORING_IT = """
    import signal, threading
    from jupyterlite_pyodide_webmcp.stopping import ctrl_c_stops
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # as a script's background job starts
    stop = threading.Event()
    with ctrl_c_stops(stop):
        print("ready", flush=True)
        stop.wait(2)
    print("set" if stop.is_set() else "ignored", flush=True)
"""

IGNORING = """
    import threading, time
    from jupyterlite_pyodide_webmcp.stopping import ctrl_c_stops
    with ctrl_c_stops(threading.Event()):
        print("ready", flush=True)
        while True:
            time.sleep(0.05)
"""


def started(script: str, *args: str) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen([sys.executable, "-c", textwrap.dedent(script), *args], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONPATH": SOURCE}, preexec_fn=as_a_terminal_starts)
    return process, process.stdout.readline().strip()


def test_the_first_ctrl_c_stops_the_server_with_a_connection_still_open(tmp_path):
    process, port = started(SERVING, str(tmp_path))
    with socket.create_connection(("127.0.0.1", int(port))):  # a browser's idle keep-alive connection
        time.sleep(0.2)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=8)
    assert process.returncode == 0 and out.strip() == "stopped" and "Traceback" not in err


def test_a_process_that_would_not_end_after_ctrl_c_ends_within_the_bound_and_says_where_it_was():
    process, ready = started(STUCK)
    assert ready == "ready"
    pressed = time.monotonic()
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=10)
    assert process.returncode == 1 and time.monotonic() - pressed < 5
    assert "1 s after Ctrl+C" in err and err.count("most recent call first") >= 2  # each thread's stack


def test_a_second_ctrl_c_interrupts_at_once():
    process, ready = started(IGNORING)
    assert ready == "ready"
    process.send_signal(signal.SIGINT)
    time.sleep(0.2)
    pressed = time.monotonic()
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=5)
    assert process.returncode != 0 and time.monotonic() - pressed < 1 and "KeyboardInterrupt" in err


def test_a_command_started_with_ctrl_c_ignored_goes_on_ignoring_it():
    process, ready = started(STARTED_IGNORING_IT)
    assert ready == "ready"
    process.send_signal(signal.SIGINT)
    out, _ = process.communicate(timeout=8)
    assert process.returncode == 0 and out.strip() == "ignored"
