"""Requests no browser sends, over a plain socket as any program on the computer can send them, and the answers
the lab's local server gives them (desktop/jupyterlite_pyodide_webmcp/site_server.py)."""

import contextlib
import select
import socket

from jupyterlite_pyodide_webmcp.site_server import BODY_LIMIT


def bad_requests(host: str) -> dict[str, tuple[bytes, int]]:
    """What each request is: (its bytes, the status it is answered with), for a server on `host`."""
    named = f"Host: {host}\r\n".encode()
    return {
        "a 70,000-character URI": (b"GET /" + b"a" * 70_000 + b" HTTP/1.1\r\n\r\n", 431),
        "a request line of garbage": (b"GARBAGE\r\n\r\n", 400),
        "an HTTP version that does not exist": (b"GET / HTTP/9.9x\r\n\r\n", 400),
        "a 70,000-character header": (b"GET /lab/index.html HTTP/1.1\r\n" + named + b"X-Long: " + b"b" * 70_000
                                      + b"\r\n\r\n", 431),
        "TRACE": (b"TRACE /lab/index.html HTTP/1.1\r\n" + named + b"\r\n", 405),
        "a body over the limit": (b"PUT /api/contents/big.txt HTTP/1.1\r\n" + named
                                  + f"Content-Length: {BODY_LIMIT + 1}\r\n\r\n".encode(), 400),
    }


def status_of(port: int, request: bytes) -> int | None:
    """The status the server on `port` answers `request` with; None when it closes the connection without one."""
    answer = b""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as connection:
        with contextlib.suppress(OSError):
            connection.sendall(request)
            while b"\r\n" not in answer:
                received = connection.recv(4096)
                if not received:
                    break
                answer += received
    return int(answer.split(b" ")[1]) if answer.startswith(b"HTTP/") else None


SLOW_REQUEST = b"GET /lab/index.html HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: one byte a second\r\n\r\n"


def slow_client_let_go(port: int) -> bool:
    """Whether the server closes a connection whose request arrives one byte a second, before the request is
    whole (which takes 80 seconds)."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as connection:
        for index in range(len(SLOW_REQUEST)):
            try:
                connection.sendall(SLOW_REQUEST[index:index + 1])
                if select.select([connection], [], [], 1.0)[0]:
                    return connection.recv(4096) == b""  # closed (an answer to half a request would be a fault)
            except OSError:
                return True
    return False
