"""A loopback server speaking OpenAI's ``POST /v1/embeddings`` wire format, for real-client tests.

Its "model" is letter counts (26-d), so expected vectors are easy to compute;
``locked-model`` answers 401 as OpenAI does for a bad key. Responses list the
items out of order on purpose: clients must use ``index``.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from typing import ClassVar

import numpy as np

from loopback import port_of, serving


def letter_vector(text: str) -> list[float]:
    """A deterministic 26-d 'embedding': letter counts."""
    counts = [0.0] * 26
    for ch in text.lower():
        if "a" <= ch <= "z":
            counts[ord(ch) - 97] += 1
    return counts


class EmbeddingsHandler(BaseHTTPRequestHandler):
    """Speaks POST /v1/embeddings as OpenAI does, including base64 float32 encoding."""

    requests: ClassVar[list[dict]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append({"path": self.path, "auth": self.headers.get("Authorization"), **body})
        if self.path != "/v1/embeddings":
            return self._send(404, {"error": {"message": "not found", "type": "invalid_request_error"}})
        if body["model"] == "locked-model":
            return self._send(401, {"error": {"message": "invalid api key", "type": "invalid_request_error"}})
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        data = []
        for i, text in reversed(list(enumerate(texts))):
            vector = letter_vector(text)
            if body.get("encoding_format") == "base64":
                encoded: object = base64.b64encode(np.array(vector, dtype="<f4").tobytes()).decode()
            else:
                encoded = vector
            data.append({"object": "embedding", "index": i, "embedding": encoded})
        usage = {"prompt_tokens": 3, "total_tokens": 3}
        self._send(200, {"object": "list", "data": data, "model": body["model"], "usage": usage})

    def _send(self, status: int, payload: dict) -> None:
        raw = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, *args: object) -> None:
        pass


@contextmanager
def serve_embeddings() -> Iterator[str]:
    """Run the server on a free loopback port; yields its base URL (``http://127.0.0.1:N/v1``)."""
    EmbeddingsHandler.requests = []
    with serving(EmbeddingsHandler) as server:
        yield f"http://127.0.0.1:{port_of(server)}/v1"
