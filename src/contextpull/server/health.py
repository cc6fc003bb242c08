"""``GET /healthz`` for load balancers: 200 while the store answers a read, 503 when it cannot.

A balancer's health check carries no bearer token and names the replica by
whatever address it dials, so this answer sits in front of the token and
Host checks. It tells no more than a replica's identity: the store's corpus
fingerprint (which version of the documents it serves, so a roll-out can be
watched replica by replica), its format version and its section count.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio.to_thread
from starlette.types import ASGIApp, Receive, Scope, Send

from ..errors import ContextPullError
from ..ops.operations import Ops

HEALTH_PATH = "/healthz"


def probe(store_path: Path) -> tuple[int, dict[str, Any]]:
    """``(status, body)``: the store opened and counted, or why it could not be."""
    try:
        ops = Ops.open(store_path)
    except ContextPullError as err:
        return 503, {"status": "unavailable", **err.to_dict()}
    try:
        with ops.store.snapshot():
            return 200, {
                "status": "ok",
                "corpus_fingerprint": ops.store.fingerprint,
                "format_version": ops.store.format_version,
                "sections": ops.store.section_total(),
            }
    finally:
        ops.close()


class HealthCheck:
    """Answers ``GET``/``HEAD`` :data:`HEALTH_PATH` itself; every other request goes to ``app``."""

    def __init__(self, app: ASGIApp, store_path: Path) -> None:
        self.app = app
        self.store_path = store_path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != HEALTH_PATH or scope["method"] not in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        status, body = await anyio.to_thread.run_sync(probe, self.store_path)
        data = json.dumps(body).encode("utf-8")
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(data)).encode("ascii")),
            (b"cache-control", b"no-store"),
        ]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": data if scope["method"] == "GET" else b""})
