"""Tool-call latency and throughput of ``contextpull serve`` over stdio and streamable HTTP.

Run:  .venv/bin/python benchmarks/mcp_latency.py [--corpus DIR] [--calls 1000] [--seconds 30] [--clients 8]

1. The corpus (default: the uv docs) is ingested into a temporary store.
2. Latency: the MCP Python SDK's client drives a real server subprocess,
   first over stdio, then over streamable HTTP on a loopback port, with
   ``--calls`` ``search`` calls and ``--calls`` ``read`` calls, one at a time;
   p50/p95 are of the client-observed round trip.
3. Throughput: ``--clients`` concurrent MCP sessions (raw JSON-RPC over
   HTTP: initialize, then ``tools/call`` in a loop alternating search and
   read) for ``--seconds`` against one HTTP server on loopback. Each client
   stops at the deadline; every non-200 response or tool error is counted.

Queries are fixed phrases about the corpus's topics; read ids are the hits
of those searches, so every read succeeds. Figures go to stdout, progress to
stderr. Bounded loops, loopback only.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from mcp import Client, StdioServerParameters

from contextpull.ingestion.run import ingest

REPO = Path(__file__).resolve().parents[1]
UV_DOCS = REPO.parent / "shared" / "corpora" / "uv-docs"
CONTEXTPULL = Path(sys.executable).parent / "contextpull"
QUERIES = [
    "install python version",
    "lock file",
    "workspace members",
    "cache directory",
    "pip compile requirements",
    "run a tool",
    "virtual environment",
    "dependency groups",
    "resolution strategy",
    "publish a package",
    "build backend",
    "environment variables",
    "script inline metadata",
    "authentication index",
    "docker image",
]
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
PROTOCOL = "2025-06-18"


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


@dataclass
class Latency:
    transport: str
    tool: str
    ms: list[float]

    def row(self) -> str:
        return (
            f"{self.transport:<6} {self.tool:<7} {len(self.ms):>6} "
            f"{percentile(self.ms, 50):>8.2f} {percentile(self.ms, 95):>8.2f} {statistics.fmean(self.ms):>8.2f}"
        )


# --- the server under test -----------------------------------------------------
def serve_command(store: Path, *extra: str) -> list[str]:
    program = [str(CONTEXTPULL)] if CONTEXTPULL.is_file() else [sys.executable, "-m", "contextpull"]
    return [*program, "serve", str(store), *extra]


@dataclass
class Served:
    url: str
    pid: int

    def cpu_seconds(self) -> float | None:
        """User + system CPU the server process has used so far (Linux /proc), else None."""
        try:
            fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def http_server(store: Path, *extra: str) -> Iterator[Served]:
    proc = subprocess.Popen(
        serve_command(store, "--transport", "http", "--port", "0", *extra),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        match = re.search(r"at (http://\S+/mcp)", line)
        if match is None:
            raise SystemExit(f"server did not start: {line}{proc.stderr.read()}")
        proc.stderr.close()  # nothing else is written without --log
        yield Served(match.group(1), proc.pid)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


# --- latency through the SDK client ----------------------------------------------
async def measure(client: Client, transport: str, calls: int) -> tuple[Latency, Latency]:
    ids: list[str] = []
    for query in QUERIES:
        found = await client.call_tool("search", {"query": query})
        ids += [hit["id"] for hit in json.loads(found.content[0].text)["hits"]]  # type: ignore[union-attr]
    if not ids:
        raise SystemExit("the searches found nothing: is this the right corpus?")

    async def timed(tool: str, arguments: Callable[[int], dict[str, Any]]) -> Latency:
        ms: list[float] = []
        for i in range(calls):
            started = time.perf_counter()
            result = await client.call_tool(tool, arguments(i))
            ms.append((time.perf_counter() - started) * 1000)
            if result.is_error:
                raise SystemExit(f"{tool} failed: {result.content}")
        return Latency(transport, tool, ms)

    search = await timed("search", lambda i: {"query": QUERIES[i % len(QUERIES)]})
    read = await timed("read", lambda i: {"id": ids[i % len(ids)]})
    return search, read


async def latency_stdio(store: Path, calls: int) -> tuple[Latency, Latency]:
    program, *args = serve_command(store)
    async with Client(StdioServerParameters(command=program, args=args), mode="legacy") as client:
        return await measure(client, "stdio", calls)


async def latency_http(url: str, calls: int) -> tuple[Latency, Latency]:
    async with Client(url, mode="legacy") as client:
        return await measure(client, "http", calls)


# --- throughput with raw JSON-RPC sessions ----------------------------------------
class Session:
    """One MCP session over streamable HTTP, spoken directly with httpx."""

    def __init__(self, http: httpx.AsyncClient, url: str) -> None:
        self.http = http
        self.url = url
        self.headers = dict(MCP_HEADERS)
        self.next_id = 0

    async def open(self) -> None:
        response = await self._post(
            "initialize",
            {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}},
        )
        response.raise_for_status()
        if "mcp-session-id" in response.headers:  # absent in stateless mode
            self.headers["mcp-session-id"] = response.headers["mcp-session-id"]
        self.headers["mcp-protocol-version"] = PROTOCOL
        body = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        (await self.http.post(self.url, json=body, headers=self.headers)).raise_for_status()

    async def call(self, name: str, arguments: dict[str, Any]) -> bool:
        """True when the call came back 200 with a non-error tool result."""
        response = await self._post("tools/call", {"name": name, "arguments": arguments})
        if response.status_code != 200:
            return False
        result = response.json().get("result")
        return result is not None and not result.get("isError", False)

    async def close(self) -> None:
        await self.http.delete(self.url, headers=self.headers)

    async def _post(self, method: str, params: dict[str, Any]) -> httpx.Response:
        self.next_id += 1
        body = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        return await self.http.post(self.url, json=body, headers=self.headers)


@dataclass
class Throughput:
    mode: str
    ok: int
    errors: int
    read_ms: list[float]
    server_cpu_s: float | None
    client_cpu_s: float

    def row(self, seconds: float) -> str:
        calls = self.ok + self.errors
        per_call = "n/a" if self.server_cpu_s is None else f"{self.server_cpu_s / calls * 1000:.2f}"
        return (
            f"{self.mode:<16} {calls:>7} {calls / seconds:>8.0f} {self.errors:>6} "
            f"{percentile(self.read_ms, 50):>9.2f} {percentile(self.read_ms, 95):>9.2f} "
            f"{per_call:>11} {self.client_cpu_s / calls * 1000:>11.2f}"
        )


def run_throughput(
    mode: str, served: Served, ids: list[str], clients: int, seconds: float, *, reads_only: bool = False
) -> Throughput:
    log(f"throughput, {mode}: {clients} clients for {seconds:.0f} s ...")
    cpu_before, client_before = served.cpu_seconds(), time.process_time()
    ok, errors, read_ms = asyncio.run(throughput(served.url, ids, clients, seconds, reads_only))
    cpu_after, client_after = served.cpu_seconds(), time.process_time()
    server_cpu = None if cpu_before is None or cpu_after is None else cpu_after - cpu_before
    return Throughput(mode, ok, errors, read_ms, server_cpu, client_after - client_before)


async def throughput(
    url: str, ids: list[str], clients: int, seconds: float, reads_only: bool
) -> tuple[int, int, list[float]]:
    deadline = time.monotonic() + seconds
    read_ms: list[float] = []
    counts = {"ok": 0, "errors": 0}

    async def client(n: int) -> None:
        async with httpx.AsyncClient(timeout=30) as http:
            session = Session(http, url)
            await session.open()
            i = n
            while time.monotonic() < deadline:
                i += 1
                if i % 2 and not reads_only:
                    ok = await session.call("search", {"query": QUERIES[i % len(QUERIES)]})
                else:
                    started = time.perf_counter()
                    ok = await session.call("read", {"id": ids[i % len(ids)]})
                    read_ms.append((time.perf_counter() - started) * 1000)
                counts["ok" if ok else "errors"] += 1
            await session.close()

    await asyncio.gather(*(client(n) for n in range(clients)))
    return counts["ok"], counts["errors"], read_ms


async def read_ids(url: str) -> list[str]:
    async with httpx.AsyncClient(timeout=30) as http:
        session = Session(http, url)
        await session.open()
        ids: list[str] = []
        for query in QUERIES:
            response = await session._post("tools/call", {"name": "search", "arguments": {"query": query}})
            payload = json.loads(response.json()["result"]["content"][0]["text"])
            ids += [hit["id"] for hit in payload["hits"]]
        await session.close()
        return ids


# --- main ------------------------------------------------------------------------
def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=UV_DOCS, help="folder to ingest (default: the uv docs)")
    parser.add_argument("--calls", type=int, default=1000, help="calls per tool per transport for latency")
    parser.add_argument("--seconds", type=float, default=30.0, help="length of the throughput run")
    parser.add_argument("--clients", type=int, default=8, help="concurrent sessions in the throughput run")
    parser.add_argument("--stateless", action="store_true", help="also run throughput against --stateless")
    args = parser.parse_args()
    if not args.corpus.is_dir():
        log(f"no corpus at {args.corpus}")
        return 1

    with tempfile.TemporaryDirectory(prefix="mcp-bench-") as tmp:
        store = Path(tmp) / "store.sqlite"
        report = ingest(args.corpus, store)
        log(f"ingested {report.documents} documents, {report.sections} sections")

        log(f"latency over stdio: {args.calls} search + {args.calls} read calls ...")
        results = list(asyncio.run(latency_stdio(store, args.calls)))
        with http_server(store) as served:
            log(f"latency over HTTP ({served.url}) ...")
            results += asyncio.run(latency_http(served.url, args.calls))
            ids = asyncio.run(read_ids(served.url))
            runs = [
                run_throughput("mixed", served, ids, args.clients, args.seconds),
                run_throughput("read", served, ids, args.clients, args.seconds, reads_only=True),
            ]
        if args.stateless:
            with http_server(store, "--stateless") as served:
                runs.append(run_throughput("mixed, stateless", served, ids, args.clients, args.seconds))

    print(f"corpus: {args.corpus} ({report.documents} documents, {report.sections} sections); cpus: {os.cpu_count()}")
    print()
    print("latency (MCP Python SDK client, one call at a time, ms)")
    print(f"{'via':<6} {'tool':<7} {'calls':>6} {'p50':>8} {'p95':>8} {'mean':>8}")
    for latency in results:
        print(latency.row())
    print()
    print(
        f"HTTP throughput ({args.clients} concurrent sessions, {args.seconds:.0f} s each; mixed = search/read alternating)"
    )
    print(
        f"{'run':<16} {'calls':>7} {'calls/s':>8} {'errors':>6} {'read p50':>9} {'read p95':>9}"
        f" {'server CPU':>11} {'client CPU':>11}"
    )
    print(f"{'':<16} {'':>7} {'':>8} {'':>6} {'(ms)':>9} {'(ms)':>9} {'ms/call':>11} {'ms/call':>11}")
    for run in runs:
        print(run.row(args.seconds))
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
