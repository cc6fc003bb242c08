"""Replicas behind HAProxy: calls per second for 1, 2 and 3 replicas, a replica killed mid-run, a roll-out.

    python benchmarks/replicas.py                 # about four minutes on 2 cores
    python benchmarks/replicas.py --quick         # a bounded run of about a minute
    python benchmarks/replicas.py --json

The topology is the one docs/scaling.md describes, run as processes on
loopback: the bundled corpus published as an artifact (`contextpull publish`)
into a folder that a real local HTTP server serves (`python -m http.server`);
N stateless replicas (`contextpull serve --transport http --stateless --store
URL`), each fetching and verifying the store into its own cache and checking
for a newer one every second; HAProxy (Debian's package) in front, health
checking `/healthz` and retrying a call a dead replica refused or closed
unanswered (it holds a call's whole body first, so it can replay it). The load is a
mix of search, read and grep tool calls (MCP JSON-RPC over HTTP) from
``--workers`` threads; a client retries a failed call once, as an agent's
HTTP client would.

Printed: calls/s and p50/p95 latency per replica count; with one of three
replicas killed mid-run, the calls that failed even after the client's retry;
with a new store version published mid-run, the calls that failed, how many
answers came from each version, whether any answer mixed them, and how long
until every replica answered from the new one. Figures depend on the machine
and its load; say which when you quote them.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "examples" / "corpus"
CONTEXTPULL = Path(sys.executable).parent / "contextpull"
MARKER = "marker.md"
VERSIONS = {1: "This store is release one.", 2: "This store is release two."}
REPLICA_HOST = "replica.internal"
DEPLOYED_HAPROXY = ROOT / "deploy" / "haproxy.cfg"
#: the call mix: (tool, arguments); the marker read tells which store version answered
CALLS = (
    ("search", {"query": "TX-4419 currency", "limit": 5}),
    ("search", {"query": "hotel allowance 2025", "limit": 5}),
    ("search", {"query": "LEDGERLINE_*", "limit": 5}),
    ("read", {"id": "reference/spec-sheet.md#2"}),
    ("read", {"id": "guides/install.md#1"}),
    ("grep", {"pattern": "TX-44[0-9]{2}", "regex": True}),
    ("read", {"id": f"{MARKER}#0"}),
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def contextpull() -> list[str]:
    return [str(CONTEXTPULL)] if CONTEXTPULL.is_file() else [sys.executable, "-m", "contextpull"]


@dataclass
class Topology:
    """A published store, its HTTP server, replicas and HAProxy; started by :func:`topology`."""

    work: Path
    replicas: int
    artifact_url: str = ""
    balancer: str = ""
    procs: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    ports: list[int] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"{self.balancer}/mcp"

    def publish(self, version: int) -> None:
        """Write release ``version`` of the corpus and publish it over the previous one."""
        corpus = self.work / "corpus"
        (corpus / MARKER).write_text(f"# Release\n\n{VERSIONS[version]}\n", encoding="utf-8")
        store = self.work / "store.sqlite"
        _run([*contextpull(), "ingest", str(corpus), "--store", str(store)])
        _run([*contextpull(), "publish", str(store), str(self.work / "published")])

    def kill(self, index: int) -> None:
        """Kill replica ``index`` outright (SIGKILL): no goodbye to HAProxy."""
        self.procs[f"replica-{index}"].send_signal(signal.SIGKILL)

    def start(self) -> None:
        shutil.copytree(CORPUS, self.work / "corpus", ignore=shutil.ignore_patterns(".contextpull"))
        self.publish(1)
        web = free_port()
        self._spawn(
            "artifacts",
            [sys.executable, "-m", "http.server", str(web), "--bind", "127.0.0.1"],
            cwd=self.work / "published",
        )
        self.artifact_url = f"http://127.0.0.1:{web}/"
        wait_until(
            lambda: httpx.get(self.artifact_url + "manifest.json", timeout=5).status_code == 200, "the artifact server"
        )
        for index in range(self.replicas):
            port = free_port()
            self.ports.append(port)
            env = {**os.environ, "XDG_DATA_HOME": str(self.work / f"replica-{index}")}
            argv = [
                *contextpull(),
                "serve",
                "--transport",
                "http",
                "--stateless",
                "--store",
                self.artifact_url,
                "--port",
                str(port),
                "--poll",
                "1",
                "--allow-host",
                REPLICA_HOST,
            ]
            self._spawn(f"replica-{index}", argv, env=env)
        for port in self.ports:
            wait_until(
                lambda port=port: httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).status_code == 200,
                f"replica on port {port}",
            )
        front = free_port()
        config = self.work / "haproxy.cfg"
        config.write_text(haproxy_config(front, self.ports), encoding="utf-8")
        self._spawn("haproxy", ["haproxy", "-db", "-f", str(config)])
        self.balancer = f"http://127.0.0.1:{front}"
        wait_until(lambda: httpx.get(f"{self.balancer}/healthz", timeout=5).status_code == 200, "haproxy")

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs.values():
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()

    def _spawn(self, name: str, argv: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> None:
        log = (self.work / f"{name}.log").open("wb")
        self.procs[name] = subprocess.Popen(argv, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT)


def haproxy_config(front: int, ports: list[int]) -> str:
    """deploy/haproxy.cfg with this run's addresses: the same balancer settings the compose file uses.

    HAProxy names every replica by one host name (``set-header Host``) that the
    replicas allow (``--allow-host``), so their DNS-rebinding check passes for
    any address the balancer is reached by. Health checks run every 300 ms
    here (1 s in the deployment) so a short run sees a kill.
    """
    lines = []
    for line in DEPLOYED_HAPROXY.read_text(encoding="utf-8").splitlines():
        if line.strip().startswith("server "):
            continue
        line = line.replace("bind :8765", f"bind 127.0.0.1:{front}").replace("inter 1s", "inter 300ms")
        lines.append(line)
    lines += [f"    server r{i} 127.0.0.1:{port} check" for i, port in enumerate(ports)]
    return "\n".join(lines) + "\n"


@contextmanager
def topology(replicas: int) -> Iterator[Topology]:
    with tempfile.TemporaryDirectory(prefix="contextpull-replicas-") as folder:
        running = Topology(Path(folder), replicas)
        try:
            running.start()
            yield running
        finally:
            running.stop()


@dataclass
class Load:
    """What a run of calls saw."""

    calls: int = 0
    failed: int = 0
    retried: int = 0
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    #: (time since start, version) of every marker read
    versions: list[tuple[float, int]] = field(default_factory=list)
    mixed: int = 0
    errors: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        ordered = sorted(self.latencies) or [0.0]
        return {
            "calls": self.calls,
            "failed": self.failed,
            "retried": self.retried,
            "calls_per_s": round(self.calls / self.seconds, 1) if self.seconds else 0.0,
            "p50_ms": round(statistics.median(ordered) * 1000, 1),
            "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))] * 1000, 1),
            "by_version": {str(v): sum(1 for _, seen in self.versions if seen == v) for v in VERSIONS},
            "mixed": self.mixed,
            "errors": self.errors[:3],
        }


def call(client: httpx.Client, url: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """One MCP ``tools/call`` over HTTP (the replicas are stateless: no session to open)."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    answer = client.post(url, json=body, headers=headers)
    answer.raise_for_status()
    result = answer.json()["result"]
    if result.get("isError"):
        raise RuntimeError(f"{tool} returned a tool error: {result['content'][0]['text'][:120]}")
    return dict(result["structuredContent"])


def run_load(url: str, seconds: float, workers: int, during: Any = None) -> Load:
    """``workers`` threads calling for ``seconds``; ``during(load)`` runs on its own thread meanwhile."""
    load = Load()
    lock = threading.Lock()
    stop = time.perf_counter() + seconds
    started = time.perf_counter()

    def worker(seed: int) -> None:
        pick = random.Random(seed)
        with httpx.Client(timeout=30) as client:
            while time.perf_counter() < stop:
                tool, arguments = pick.choice(CALLS)
                began = time.perf_counter()
                payload, tries, error = None, 0, ""
                while tries < 2 and payload is None:  # the client's one retry
                    tries += 1
                    try:
                        payload = call(client, url, tool, arguments)
                    except (httpx.HTTPError, RuntimeError, KeyError, ValueError) as err:
                        error = f"{type(err).__name__}: {err}"
                took = time.perf_counter() - began
                with lock:
                    load.calls += 1
                    load.retried += tries > 1
                    if payload is None:
                        load.failed += 1
                        load.errors.append(error)
                        continue
                    load.latencies.append(took)
                    if tool == "read" and arguments["id"].startswith(MARKER):
                        found = [v for v, text in VERSIONS.items() if text in payload.get("text", "")]
                        load.mixed += len(found) != 1
                        if found:
                            load.versions.append((began - started, found[0]))

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(workers)]
    side = threading.Thread(target=during, args=(load,)) if during else None
    for thread in [*threads, *([side] if side else [])]:
        thread.start()
    for thread in threads:
        thread.join()
    if side:
        side.join()
    load.seconds = time.perf_counter() - started
    return load


def scaling(counts: list[int], seconds: float, workers: int) -> dict[str, Any]:
    out = {}
    for count in counts:
        with topology(count) as running:
            run_load(running.url, min(3.0, seconds), workers)  # warm the replicas' page caches
            out[str(count)] = run_load(running.url, seconds, workers).summary()
        print(f"  {count} replica(s): {out[str(count)]['calls_per_s']} calls/s", file=sys.stderr, flush=True)
    return out


def killed(seconds: float, workers: int) -> dict[str, Any]:
    with topology(3) as running:

        def kill_one(_: Load) -> None:
            time.sleep(seconds / 3)
            running.kill(1)

        return run_load(running.url, seconds, workers, during=kill_one).summary()


def rolled_out(seconds: float, workers: int) -> dict[str, Any]:
    with topology(3) as running:
        published: list[float] = []

        def publish_two(_: Load) -> None:
            time.sleep(seconds / 3)
            published.append(time.perf_counter())
            running.publish(2)

        began = time.perf_counter()
        load = run_load(running.url, seconds, workers, during=publish_two)
        summary = load.summary()
        at = published[0] - began if published else 0.0
        old_after = [t for t, version in load.versions if version == 1 and t > at]
        summary["published_at_s"] = round(at, 1)
        summary["last_old_answer_s_after_publish"] = round(max(old_after) - at, 1) if old_after else 0.0
        summary["new_version_answered"] = any(version == 2 for _, version in load.versions)
        return summary


def render(figures: dict[str, Any]) -> str:
    lines = [f"replicas behind HAProxy, {figures['workers']} client threads, {figures['seconds']:g} s per run"]
    lines.append(f"{'replicas':>8} {'calls/s':>9} {'p50 ms':>8} {'p95 ms':>8} {'failed':>7}")
    for count, row in figures["scaling"].items():
        lines.append(f"{count:>8} {row['calls_per_s']:>9} {row['p50_ms']:>8} {row['p95_ms']:>8} {row['failed']:>7}")
    kill = figures["killed"]
    lines.append(
        f"one of 3 replicas killed mid-run: {kill['calls']} calls, {kill['failed']} failed after the client's retry,"
        f" {kill['retried']} retried"
    )
    roll = figures["rolled_out"]
    lines.append(
        f"new store published mid-run: {roll['calls']} calls, {roll['failed']} failed; answers by version"
        f" {roll['by_version']}, mixed {roll['mixed']}; the last old answer came"
        f" {roll['last_old_answer_s_after_publish']} s after the new version's ingest and publish began"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short runs (about a minute in all)")
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if shutil.which("haproxy") is None:
        print("replicas: needs haproxy (apt-get install haproxy)", file=sys.stderr)
        return 1
    seconds = 6.0 if args.quick else 30.0
    figures = {
        "workers": args.workers,
        "seconds": seconds,
        "scaling": scaling([1, 3] if args.quick else [1, 2, 3], seconds, args.workers),
        "killed": killed(seconds, args.workers),
        "rolled_out": rolled_out(seconds * 2, args.workers),
    }
    print(json.dumps(figures, indent=2) if args.json else render(figures))
    return 0


def _run(argv: list[str]) -> None:
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[:3])} failed: {(done.stderr or done.stdout).strip()[-300:]}")


def wait_until(ready: Any, what: str, timeout: float = 60.0) -> None:
    """Poll ``ready()`` until it is true; a process that never comes up is an error naming ``what``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if ready():
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{what} did not come up within {timeout:g} s")


if __name__ == "__main__":
    sys.exit(main())
