"""A standard-library HTTP server on a free loopback port, in a thread: a real socket for a test."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@contextmanager
def serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[ThreadingHTTPServer]:
    """Serve ``handler`` on 127.0.0.1 until the block ends; the server is closed and its thread joined then.

    Request threads are daemons (the class's default), so a client that hangs up mid-request cannot
    keep a test waiting.
    """
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def port_of(server: ThreadingHTTPServer) -> int:
    """The port ``server`` listens on."""
    return int(server.server_address[1])
