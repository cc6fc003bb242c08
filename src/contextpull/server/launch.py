"""How a host starts the MCP server: the command, and the host's config entry.

One place for both, so ``contextpull mcp-config`` and the Claude Code pull
adapter hand hosts the same thing. A launcher says where the command comes
from: ``path`` is this install's own script (a clone or a venv); ``uvx`` and
``pipx`` fetch the package from the index into a cached environment of their
own, which is what a user without a clone or a venv puts in a host's config.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from .._version import DISTRIBUTION, __version__
from ..errors import BadArgument
from .http_guard import TOKEN_ENV


class InstallSourceUnknown(BadArgument):
    """A tool runner was chosen, no ``--spec`` given, and this install's source is not on record."""

    code = "install_source_unknown"


#: the console script a tool runner runs, from the distribution it fetches (:data:`DISTRIBUTION`)
SCRIPT = "contextpull"
#: ``path`` (this install's script), or a tool runner that fetches the package
LAUNCHERS = ("path", "uvx", "pipx")
#: how each tool runner is told which package to install before running the script
_RUNNER_FLAGS = {"uvx": ["uvx", "--from"], "pipx": ["pipx", "run", "--spec"]}


def server_command() -> list[str]:
    """The absolute command that starts this install's ``contextpull``.

    The running script when it is ``contextpull``, else the one beside this
    interpreter, else the one on PATH, else ``python -m contextpull``.
    """
    argv0 = Path(sys.argv[0])
    if argv0.name == "contextpull" and argv0.is_file():
        return [str(argv0.absolute())]
    beside = Path(sys.executable).parent / "contextpull"
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)]
    found = shutil.which("contextpull")
    if found:
        return [str(Path(found).absolute())]
    return [sys.executable, "-m", "contextpull"]


def install_spec() -> str:
    """What a tool runner installs by default: the folder or wheel this very install came from.

    Never a bare requirement such as ``contextpull==0.3.0``: the package
    index holds an unrelated project under that name. Raises
    :class:`InstallSourceUnknown` where the source is not on record (the
    install came from an index), so the user names it.
    """
    from importlib import metadata
    from urllib.parse import unquote, urlparse

    try:
        recorded = json.loads(metadata.distribution(DISTRIBUTION).read_text("direct_url.json") or "{}")
    except (metadata.PackageNotFoundError, ValueError):
        recorded = {}
    url = urlparse(str(recorded.get("url", "")))
    source = Path(unquote(url.path)) if url.scheme == "file" else None
    if source is None or not source.exists():
        raise InstallSourceUnknown(
            f"this install's source (a folder or a wheel) is not on record, and the package index's "
            f"{DISTRIBUTION} is another project",
            f"pass --spec with the wheel or folder to install, e.g. --spec dist/{DISTRIBUTION}-{__version__}-py3-none-any.whl",
        )
    return str(source)


def launch_command(launcher: str = "path", spec: str | None = None) -> list[str]:
    """The command that runs ``contextpull`` through ``launcher`` (one of :data:`LAUNCHERS`).

    ``spec`` is what a tool runner installs: a requirement, a wheel file or
    a URL (default :func:`install_spec`); ``path`` ignores it.
    """
    if launcher == "path":
        return server_command()
    return [*_RUNNER_FLAGS[launcher], spec or install_spec(), SCRIPT]


def serve_argv(target: Path, launcher: str = "path", spec: str | None = None) -> list[str]:
    """The full argv that serves ``target`` (a store file or a corpus folder) over stdio.

    The path is made absolute: a host starts the server from a folder of its own choosing.
    """
    return [*launch_command(launcher, spec), "serve", str(Path(target).absolute())]


def stdio_entry(target: Path, launcher: str = "path", spec: str | None = None) -> dict[str, Any]:
    """The host's ``mcpServers`` entry that starts the stdio server on ``target``."""
    command, *args = serve_argv(target, launcher, spec)
    return {"type": "stdio", "command": command, "args": args}


def http_entry(host: str, port: int, *, with_token: bool) -> dict[str, Any]:
    """The host's ``mcpServers`` entry for a running HTTP server; the token stays ``${CONTEXTPULL_TOKEN}``."""
    from .app import ENDPOINT, url_host  # the server itself (mcp, uvicorn) only when a URL is wanted

    entry: dict[str, Any] = {"type": "http", "url": f"http://{url_host(host)}:{port}{ENDPOINT}"}
    if with_token:
        entry["headers"] = {"Authorization": f"Bearer ${{{TOKEN_ENV}}}"}
    return entry
