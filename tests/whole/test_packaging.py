"""What the package declares: extras, licence files, the launchers hosts are given, and refusals naming an extra."""

from __future__ import annotations

import fnmatch
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from contextpull.cli import main
from contextpull.cli.extras import extra_for, install_hint
from contextpull.server.launch import install_spec
from server_support import copy_corpus

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
#: extras that are not capabilities a user runs: the ones `all` leaves out on purpose
NOT_IN_ALL = {"all", "test", "local"}


def _self_references(requirements: list[str]) -> set[str]:
    named: set[str] = set()
    for requirement in requirements:
        found = re.fullmatch(r"contextpull\[([^\]]+)\]", requirement.strip())
        if found:
            named |= {extra.strip() for extra in found.group(1).split(",")}
    return named


def test_all_names_every_optional_capability() -> None:
    extras = PROJECT["optional-dependencies"]
    assert set(extras) - NOT_IN_ALL <= _self_references(extras["all"])


def test_every_licence_or_notice_shipped_in_src_is_a_licence_file() -> None:
    patterns = PROJECT["license-files"]
    shipped = [
        p.relative_to(ROOT).as_posix() for p in (ROOT / "src").rglob("*") if p.name.startswith(("LICENSE", "NOTICE"))
    ]
    assert [path for path in shipped if not any(fnmatch.fnmatch(path, pattern) for pattern in patterns)] == []
    # Our code is MIT; the MiniLM tokenizer and static table contextpull_vec ships are Apache-2.0 (its NOTICE).
    assert (ROOT / "LICENSE").is_file() and PROJECT["license"] == "MIT AND Apache-2.0"


def test_each_library_of_an_extra_is_traced_to_an_extra_that_brings_it() -> None:
    extras = PROJECT["optional-dependencies"]
    for name in set(extras) - NOT_IN_ALL:
        for requirement in extras[name]:
            library = re.split(r"[<>=\[;! ]", requirement, maxsplit=1)[0]
            if library != "contextpull":
                assert any(item.startswith(library) for item in extras[extra_for(library)]), library
    assert extra_for("bm25s") == "eval"
    assert extra_for("no_such_library") == "all"
    assert install_hint("eval") == 'pip install "contextpull[eval]"'


def _config(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(["mcp-config", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)["mcpServers"]["contextpull"]


def test_uvx_and_pipx_entries_install_this_very_install_never_a_bare_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The index's ``contextpull`` is another project: without --spec the entry names where this install came from."""
    source = install_spec()  # the test venv's editable install: this clone
    assert Path(source).exists() and not source.startswith("contextpull==")
    uvx = _config(capsys, str(tmp_path), "--launcher", "uvx")
    assert uvx == {
        "type": "stdio",
        "command": "uvx",
        "args": ["--from", source, "contextpull", "serve", str(tmp_path)],
    }
    pipx = _config(capsys, str(tmp_path), "--launcher", "pipx")
    assert pipx["command"] == "pipx"
    assert pipx["args"] == ["run", "--spec", source, "contextpull", "serve", str(tmp_path)]


def test_a_wheel_spec_is_made_absolute(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "contextpull-0.1.0-py3-none-any.whl").write_bytes(b"")
    entry = _config(capsys, "docs", "--launcher", "uvx", "--spec", "contextpull-0.1.0-py3-none-any.whl")
    assert entry["args"][:2] == ["--from", str(tmp_path / "contextpull-0.1.0-py3-none-any.whl")]
    assert main(["mcp-config", "docs", "--launcher", "uvx"]) == 0
    out = capsys.readouterr().out
    assert "claude mcp add contextpull -- uvx --from " in out and "contextpull==" not in out


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--spec", "x"], "--spec applies to --launcher uvx or pipx only"),
        (["--transport", "http", "--launcher", "uvx"], "--launcher applies to --transport stdio only"),
    ],
)
def test_launcher_options_out_of_place_are_refused(argv, says, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mcp-config", *argv]) == 2
    assert says in capsys.readouterr().err


def _without(modules: list[str], argv: list[str]) -> subprocess.CompletedProcess[str]:
    """Run the CLI in a child where ``modules`` cannot be imported, as in an install without the extra."""
    blocked = "".join(f"sys.modules[{name!r}] = None\n" for name in modules)
    code = f"import sys\n{blocked}from contextpull.cli import main\nsys.exit(main({argv!r}))"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)


def test_bench_without_bm25s_names_it_and_the_extra_before_any_work(tmp_path: Path) -> None:
    corpus = copy_corpus(tmp_path / "corpus")
    done = _without(["bm25s"], ["bench", str(corpus), "--push", "bm25"])
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        'contextpull: error: the push rows (--push) need bm25s, which is not installed — pip install "contextpull[eval]"'
    ]
    assert not (corpus / ".contextpull").exists()  # refused before ingesting


def test_a_library_no_command_checks_for_is_still_one_line(tmp_path: Path) -> None:
    corpus = copy_corpus(tmp_path / "corpus")
    done = _without(["uvicorn"], ["serve", str(corpus)])  # a base dependency, imported with the server
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip() == 'contextpull: error: uvicorn is not installed — pip install "contextpull[all]"'


def test_an_http_entry_comes_with_the_serve_command_for_its_path(tmp_path: Path, capsys) -> None:
    assert main(["mcp-config", str(tmp_path), "--transport", "http", "--port", "9911"]) == 0
    out = capsys.readouterr().out
    assert "First start the server" in out
    assert f"serve {tmp_path} --transport http --host 127.0.0.1 --port 9911" in out
    assert "http://127.0.0.1:9911/mcp" in out
