"""ASGI guard for the shared HTTP deployment: a bearer token on every request.

Host/Origin checks (DNS rebinding) and the request-size limit are the MCP
SDK's own transport settings (see :func:`contextpull.server.http_app`); this
module adds the one thing the SDK only offers through a full OAuth setup: a
static shared secret, compared in constant time, refused with 401 before a
request reaches the MCP transport.
"""

from __future__ import annotations

import hmac
import json

from starlette.types import ASGIApp, Receive, Scope, Send

TOKEN_ENV = "CONTEXTPULL_TOKEN"


class BearerTokenGuard:
    """Answers 401 to any HTTP request whose ``Authorization`` is not ``Bearer <token>``."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        if not token:
            raise ValueError("an empty token would admit everyone")
        self.app = app
        self._expected = token.encode("utf-8")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self._authorized(scope):
            await _refuse(send)
            return
        await self.app(scope, receive, send)

    def _authorized(self, scope: Scope) -> bool:
        presented = b""
        for name, value in scope["headers"]:
            if name == b"authorization":
                scheme, _, credentials = value.partition(b" ")
                if scheme.lower() == b"bearer":
                    presented = credentials.strip()
                break
        return hmac.compare_digest(presented, self._expected)


async def _refuse(send: Send) -> None:
    body = json.dumps(
        {
            "error": "unauthorized",
            "message": "missing or wrong bearer token",
            "suggestion": f"send 'Authorization: Bearer <token>' with the server's token (${TOKEN_ENV})",
        }
    ).encode("utf-8")
    await send(
        {
            "type": "http.response.start",
            "status": 401,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode("ascii")),
                (b"www-authenticate", b'Bearer realm="contextpull"'),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
