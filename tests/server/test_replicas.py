"""Stateless replicas behind HAProxy, as processes: a published store, a replica killed, a new version rolled out.

The topology is benchmarks/replicas.py's (a real local HTTP server for the
artifact, three ``contextpull serve --transport http --stateless --store URL``
replicas, Debian's HAProxy health-checking ``/healthz``). Skipped, with the
reason, where HAProxy is not installed (the test command installs it where
apt works). Only outcomes are asserted, never speed: the figures are the
benchmark's. A kill lands at a random moment of a call; one test makes the
moment that used to cost calls happen every time: a replica closing,
unanswered, on a call whose body reached HAProxy after its headers.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import httpx
import pytest

from loopback import port_of, serving
from script_support import load_script

pytestmark = pytest.mark.skipif(shutil.which("haproxy") is None, reason="needs haproxy (apt-get install haproxy)")


def _benchmark():
    return load_script("benchmarks/replicas.py", "replicas_benchmark")


def test_a_killed_replica_costs_no_call_and_a_roll_out_never_mixes_versions() -> None:
    bench = _benchmark()
    with bench.topology(3) as running:
        health = httpx.get(f"{running.balancer}/healthz", timeout=10).json()
        assert health["status"] == "ok" and health["sections"] > 0

        def kill_one(_: object) -> None:
            time.sleep(1.5)
            running.kill(1)

        killed = bench.run_load(running.url, 5.0, 4, during=kill_one)
        assert killed.calls > 0 and killed.failed == 0, killed.errors[:3]

        def publish_two(_: object) -> None:
            time.sleep(1.5)
            running.publish(2)

        rolled = bench.run_load(running.url, 10.0, 4, during=publish_two)
        assert rolled.failed == 0 and rolled.mixed == 0, rolled.errors[:3]
        assert {version for _, version in rolled.versions} <= {1, 2} and rolled.versions[0][1] == 1
        # every live replica rolls over to the new store, and then only the new one answers
        new = httpx.get(f"{running.artifact_url}manifest.json", timeout=10).json()["corpus_fingerprint"]
        live = [port for index, port in enumerate(running.ports) if index != 1]
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            seen = [
                httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=10).json()["corpus_fingerprint"] for port in live
            ]
            if seen == [new] * len(live):
                break
            time.sleep(0.5)
        assert seen == [new] * len(live)
        with httpx.Client(timeout=30) as client:
            answers = [bench.call(client, running.url, "read", {"id": f"{bench.MARKER}#0"})["text"] for _ in range(6)]
        assert all(bench.VERSIONS[2] in text for text in answers)


class _Replica(BaseHTTPRequestHandler):
    """Healthy to HAProxy's checks; answers a call, or, as a dying replica does, closes on it unanswered."""

    protocol_version = "HTTP/1.1"
    drops = False

    def do_GET(self) -> None:
        self._answer(b"{}")

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        if self.drops:
            self.close_connection = True
            return
        self._answer(b'{"answered": true}')

    def _answer(self, body: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_: object) -> None:
        pass


class _Dropping(_Replica):
    drops = True


def _post_in_two_writes(port: int) -> bytes:
    """One call whose body reaches HAProxy after its headers, as an HTTP client's separate writes can."""
    body = b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call"}'
    head = f"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(head.encode())
        time.sleep(0.05)
        conn.sendall(body)
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    return answer


def test_the_balancer_replays_a_call_a_replica_closed_unanswered(tmp_path: Path) -> None:
    """deploy/haproxy.cfg holds a call's whole body before it picks a replica, so it can replay the call elsewhere.

    Without ``option http-buffer-request`` HAProxy connects as soon as the
    headers arrive and, its copy of the call lacking the body, answers 502
    instead of retrying: a killed replica then cost calls at random.
    """
    bench = _benchmark()
    with serving(_Dropping) as dropping, serving(_Replica) as answering:
        front = bench.free_port()
        config = tmp_path / "haproxy.cfg"
        config.write_text(bench.haproxy_config(front, [port_of(dropping), port_of(answering)]), encoding="utf-8")
        balancer = subprocess.Popen(["haproxy", "-db", "-f", str(config)], stdout=subprocess.DEVNULL)
        try:
            bench.wait_until(lambda: httpx.get(f"http://127.0.0.1:{front}/healthz", timeout=5).is_success, "haproxy")
            answers = [_post_in_two_writes(front) for _ in range(8)]
        finally:
            balancer.terminate()
            balancer.wait(timeout=10)
    assert all(answer.startswith(b"HTTP/1.1 200") and answer.endswith(b'{"answered": true}') for answer in answers), [
        answer[:40] for answer in answers
    ]
