"""The built package as a user without a clone gets it: wheel and sdist, fresh venvs, first commands.

    python scripts/smoke_wheel.py [--work DIR] [--no-launchers]

Builds the sdist and the wheel (the wheel from the sdist, so the sdist is
proven complete), refuses a build that prints a deprecation warning, and
checks that every file git tracks under ``src/`` is in the wheel.
Installs the wheel, never ``-e``, into a fresh venv with only the base
dependencies and checks the first commands (ingest the bundled corpus,
search, read, grep, ``serve`` over stdio answering ``list_tools`` from the
official MCP client) and that every command needing an extra refuses in one
line naming it. Installs it again with ``[all]`` and runs the same first
commands plus ``bench --push bm25``. Then starts the server the way
``mcp-config --launcher uvx`` and ``--launcher pipx`` tell a host to, with
uv and pipx fetched from PyPI.

Runs on the standard library; the ``list-tools`` subcommand runs inside a
smoke venv, where the official client came with the package.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "examples" / "corpus"
TOOL_NAMES = ["index", "search", "read", "grep", "neighbours"]
#: how an error line starts: each command's one-line form, or the JSON object of --json
ERROR_STARTS = ("contextpull: error:", "pushpull: error:", '{"error"')


class SmokeFailure(Exception):
    """A check failed; the message says which and shows the output."""


@dataclass(frozen=True)
class MissingExtraCase:
    """A command that needs an extra, run with the base install: it must refuse in one line naming it."""

    argv: tuple[str, ...]  # after the script name; {corpus} and {chunks} are filled in
    extra: str
    env: tuple[tuple[str, str], ...] = ()

    @property
    def label(self) -> str:
        return " ".join(self.argv)


#: every entry point that needs an extra, with the extra its refusal must name
MISSING_EXTRA_CASES: tuple[MissingExtraCase, ...] = (
    MissingExtraCase(("contextpull", "bench", "{corpus}"), "eval"),
    MissingExtraCase(("contextpull", "ingest", "{corpus}", "--embed", "static"), "embed"),
    MissingExtraCase(("contextpull", "bench", "{corpus}", "--push", "bm25", "--json"), "eval"),
    MissingExtraCase(
        ("contextpull", "bench", "{corpus}", "--push", "none", "--model", "anthropic:claude-sonnet-4-5"),
        "eval",
        (("ANTHROPIC_API_KEY", "not-used"),),
    ),
    MissingExtraCase(("pushpull", "run", "--chunks", "{chunks}", "--out", "{out}"), "eval"),
    MissingExtraCase(
        ("pushpull", "build-evalset", "--chunks", "{chunks}", "--out", "{out}", "--model", "openai:gpt-4o-mini"),
        "eval",
        (("OPENAI_API_KEY", "not-used"),),
    ),
)


# --- running things ------------------------------------------------------------
def run(argv: Sequence[str], *, env: dict[str, str] | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(a) for a in argv],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
    )


def must(argv: Sequence[str], **kwargs) -> subprocess.CompletedProcess:
    done = run(argv, **kwargs)
    if done.returncode != 0:
        raise SmokeFailure(
            f"`{' '.join(map(str, argv))}` exited {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        )
    return done


def step(title: str, started: list[tuple[str, float]]) -> None:
    started.append((title, time.monotonic()))
    print(f"smoke: {title}", file=sys.stderr, flush=True)


# --- building and installing -------------------------------------------------
def build(out: Path) -> tuple[Path, Path]:
    """The sdist and the wheel built from it; a deprecation warning in the build output fails."""
    shutil.rmtree(out, ignore_errors=True)
    done = must([sys.executable, "-m", "build", "--outdir", out, ROOT])
    said = done.stdout + done.stderr
    if "deprecat" in said.lower():
        lines = [line for line in said.splitlines() if "deprecat" in line.lower()]
        raise SmokeFailure("the build printed deprecation warnings:\n" + "\n".join(lines))
    (sdist,) = out.glob("*.tar.gz")
    (wheel,) = out.glob("*.whl")
    check_package_data(wheel)
    return sdist, wheel


def check_package_data(wheel: Path) -> None:
    """Every file under ``src/`` that git tracks (data, licences, ``py.typed``) is inside the wheel."""
    listed = must(["git", "-C", ROOT, "ls-files", "src"]).stdout.split()
    tracked = {path.removeprefix("src/") for path in listed if not path.endswith(".pyc")}
    with zipfile.ZipFile(wheel) as archive:
        missing = sorted(tracked - set(archive.namelist()))
    if missing:
        raise SmokeFailure(f"the wheel lacks {missing}: add them to [tool.setuptools.package-data]")


def wheel_only(out: Path) -> Path:
    """Just the wheel (``pip wheel --no-deps``): the quicker build for the test suite."""
    shutil.rmtree(out, ignore_errors=True)
    must([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", out, ROOT])
    (wheel,) = out.glob("*.whl")
    return wheel


def make_venv(where: Path, *requirements: str) -> Path:
    """A fresh venv at ``where`` with ``requirements`` (a wheel path, maybe with extras) installed; its bin/."""
    shutil.rmtree(where, ignore_errors=True)
    must([sys.executable, "-m", "venv", where])
    bin_dir = where / "bin"
    must([bin_dir / "python", "-m", "pip", "install", "--quiet", "--no-compile", *requirements])
    return bin_dir


def copy_corpus(where: Path) -> Path:
    shutil.rmtree(where, ignore_errors=True)
    shutil.copytree(CORPUS, where, ignore=shutil.ignore_patterns(".contextpull"))
    return where


# --- the checks ----------------------------------------------------------------
def check_first_commands(bin_dir: Path, corpus: Path) -> None:
    """Ingest, search, read, grep, and the stdio server answering ``list_tools``; all from the venv's script."""
    cp = bin_dir / "contextpull"
    must([cp, "--help"])
    must([cp, "ingest", corpus])
    store = {"CONTEXTPULL_STORE": str(corpus / ".contextpull" / "store.sqlite")}
    hits = json.loads(must([cp, "search", "TX-4419", "--json"], env=store).stdout)["hits"]
    if not hits or not hits[0]["id"].startswith("reference/error-codes.md#"):
        raise SmokeFailure(f"search TX-4419 found {hits!r}")
    section = json.loads(must([cp, "read", hits[0]["id"], "--json"], env=store).stdout)
    if "TX-4419" not in json.dumps(section):
        raise SmokeFailure(f"read {hits[0]['id']} does not contain TX-4419")
    grep = json.loads(must([cp, "grep", "TX-44", "--json"], env=store).stdout)
    if not grep["matches"]:
        raise SmokeFailure("grep TX-44 found nothing")
    config = json.loads(must([cp, "mcp-config", corpus, "--json"]).stdout)
    check_list_tools(bin_dir / "python", config)


def check_list_tools(python: Path, config: dict) -> None:
    """Start the server from a host config entry with the official client (in ``python``'s venv)."""
    done = must([python, __file__, "list-tools", json.dumps(config)], timeout=300)
    names = json.loads(done.stdout.splitlines()[-1])
    if names != TOOL_NAMES:
        raise SmokeFailure(f"list_tools answered {names}, expected {TOOL_NAMES}")


def check_missing_extra(bin_dir: Path, case: MissingExtraCase, corpus: Path, work: Path) -> None:
    """``case`` refuses with exit 1 or 2 (input or usage), no traceback, and one error line naming its extra."""
    chunks = work / "chunks.jsonl"
    if not chunks.exists():
        must(
            [bin_dir / "contextpull", "export-chunks", "--out", chunks, "--store", corpus / ".contextpull/store.sqlite"]
        )
    filled = [part.format(corpus=corpus, chunks=chunks, out=work / "pushpull") for part in case.argv]
    done = run([bin_dir / filled[0], *filled[1:]], env=dict(case.env))
    said = done.stdout + done.stderr
    errors = [line for line in said.splitlines() if line.startswith(ERROR_STARTS)]
    hint = f"contextpull[{case.extra}]"
    if done.returncode not in (1, 2) or "Traceback" in said or len(errors) != 1 or hint not in errors[0]:
        raise SmokeFailure(f"`{case.label}` (base install) exited {done.returncode}:\n{said[-3000:]}")


def check_bench(bin_dir: Path, corpus: Path) -> str:
    """``bench --push bm25`` scores bm25 and ContextPull search; returns the table for the transcript."""
    done = must([bin_dir / "contextpull", "bench", corpus, "--push", "bm25"])
    table = done.stdout
    for row in ("bm25", "contextpull search"):
        if f"| {row}" not in table and f"{row} " not in table:
            raise SmokeFailure(f"bench has no {row} row:\n{table}")
    return table


def check_launchers(work: Path, wheel: Path, corpus: Path, bin_dir: Path) -> None:
    """The entries ``mcp-config --launcher uvx|pipx`` print, started by the real uvx and pipx (from PyPI)."""
    tools = make_venv(work / "tools", "uv", "pipx")
    # The MCP client hands a server only a few variables: add this machine's CA settings, if any
    # (uv reads them), and keep pipx's environments inside the work folder.
    env = {name: os.environ[name] for name in ("SSL_CERT_FILE", "SSL_CERT_DIR") if name in os.environ}
    env["PIPX_HOME"] = str(work / "pipx")
    for launcher, flags in (("uvx", ["--from"]), ("pipx", ["run", "--spec"])):
        argv = [bin_dir / "contextpull", "mcp-config", corpus, "--launcher", launcher, "--spec", wheel, "--json"]
        config = json.loads(must(argv).stdout)
        entry = config["mcpServers"]["contextpull"]
        if entry["command"] != launcher or entry["args"][: len(flags) + 2] != [*flags, str(wheel), "contextpull"]:
            raise SmokeFailure(f"unexpected {launcher} entry {entry}")
        entry["command"] = str(tools / launcher)  # a host finds it on its PATH; here it is in the tools venv
        entry["env"] = env
        check_list_tools(bin_dir / "python", config)


# --- inside a venv: the official client ----------------------------------------
def list_tools(config_json: str) -> None:
    """Print the tool names the configured stdio server lists, as JSON (run by a venv's python)."""
    import anyio
    from mcp import Client, StdioServerParameters

    entry = next(iter(json.loads(config_json)["mcpServers"].values()))
    params = StdioServerParameters(command=entry["command"], args=entry["args"], env=entry.get("env"))

    async def ask() -> list[str]:
        async with Client(params, mode="legacy") as client:
            return [tool.name for tool in (await client.list_tools()).tools]

    print(json.dumps(anyio.run(ask)))


# --- the whole smoke -----------------------------------------------------------
def smoke(work: Path, *, launchers: bool) -> None:
    timings: list[tuple[str, float]] = []
    begun = time.monotonic()
    step("build sdist and wheel", timings)
    sdist, wheel = build(work / "dist")
    print(f"smoke: built {sdist.name} and {wheel.name}", file=sys.stderr)

    step("base install", timings)
    base = make_venv(work / "base", str(wheel))
    corpus = copy_corpus(work / "corpus-base")
    check_first_commands(base, corpus)
    for case in MISSING_EXTRA_CASES:
        check_missing_extra(base, case, corpus, work)

    step("[all] install", timings)
    full = make_venv(work / "all", f"{wheel}[all]")
    corpus = copy_corpus(work / "corpus-all")
    check_first_commands(full, corpus)
    step("bench --push bm25", timings)
    print(check_bench(full, corpus))

    if launchers:
        step("uvx and pipx launchers", timings)
        check_launchers(work, wheel, corpus, base)
    timings.append(("end", time.monotonic()))
    spans = ", ".join(f"{title} {end - start:.0f}s" for (title, start), (_, end) in itertools.pairwise(timings))
    print(f"smoke: passed in {time.monotonic() - begun:.0f}s ({spans})", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command")
    ask = sub.add_parser("list-tools", help="(inside a smoke venv) list the tools of a configured server")
    ask.add_argument("config")
    parser.add_argument("--work", type=Path, help="working folder, kept (default: a temporary one, removed)")
    parser.add_argument("--no-launchers", action="store_true", help="skip the uvx and pipx launcher checks")
    args = parser.parse_args(argv)
    if args.command == "list-tools":
        list_tools(args.config)
        return 0
    # the stores the smoke's ingests remember go to a throwaway user data folder, never the user's own
    os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="contextpull-smoke-data-")
    try:
        if args.work:
            smoke(args.work.resolve(), launchers=not args.no_launchers)
        else:
            with tempfile.TemporaryDirectory(prefix="contextpull-smoke-") as work:
                smoke(Path(work), launchers=not args.no_launchers)
    except SmokeFailure as failure:
        print(f"smoke: FAILED: {failure}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
