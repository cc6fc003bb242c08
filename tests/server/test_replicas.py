"""Stateless replicas behind HAProxy, as processes: a published store, a replica killed, a new version rolled out.

The topology is benchmarks/replicas.py's (a real local HTTP server for the
artifact, three ``contextpull serve --transport http --stateless --store URL``
replicas, Debian's HAProxy health-checking ``/healthz``). Skipped, with the
reason, where HAProxy is not installed (the test command installs it where
apt works). Only outcomes are asserted, never speed: the figures are the
benchmark's.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
import time
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(shutil.which("haproxy") is None, reason="needs haproxy (apt-get install haproxy)")


def _benchmark():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("replicas_benchmark", ROOT / "benchmarks" / "replicas.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


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
