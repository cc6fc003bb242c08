"""benchmarks/fetch_corpus.py unpacks one folder of a Debian package or a source archive: regular files only, all or nothing."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

from script_support import load_script


def load_fetcher():
    return load_script("benchmarks/fetch_corpus.py", "fetch_corpus")


def ar(members: dict[str, bytes]) -> bytes:
    """An ``ar`` archive as ``dpkg-deb`` writes one (common format, even members padded to two bytes)."""
    out = [b"!<arch>\n"]
    for name, data in members.items():
        header = f"{name + '/':<16}{0:<12}{0:<6}{0:<6}{'100644':<8}{len(data):<10}`\n".encode()
        out += [header, data, b"\n" if len(data) % 2 else b""]
    return b"".join(out)


def data_tar(files: dict[str, bytes], links: dict[str, str], mode: str = "w:xz") -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode=mode) as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        for name, target in links.items():
            info = tarfile.TarInfo(name)
            info.type, info.linkname = tarfile.SYMTYPE, target
            archive.addfile(info)
    return buffer.getvalue()


def test_only_the_folders_regular_files_are_written(tmp_path: Path) -> None:
    fetcher = load_fetcher()
    book = "./usr/share/doc/pkg/html/book/"
    deb = ar(
        {
            "debian-binary": b"2.0\n",
            "control.tar.xz": data_tar({"./control": b"Package: pkg\n"}, {}),
            "data.tar.xz": data_tar(
                {
                    f"{book}index.html": b"<h1>Book</h1>",
                    f"{book}ch01/intro.html": b"<h1>Intro</h1>",
                    "./usr/share/doc/pkg/changelog": b"elsewhere",
                },
                {f"{book}fonts": "../../../fonts-elsewhere"},
            ),
        }
    )
    to = tmp_path / "book"
    to.mkdir()
    (to / "stale.html").write_text("from an earlier fetch")
    assert fetcher.unpack(deb, book.removeprefix("./"), to) == 2
    assert sorted(str(path.relative_to(to)) for path in to.rglob("*") if path.is_file()) == [
        "ch01/intro.html",
        "index.html",
    ]
    assert not (to / "fonts").exists() and not (tmp_path / "book.partial").exists()


def test_a_package_without_a_data_archive_is_refused(tmp_path: Path) -> None:
    fetcher = load_fetcher()
    with pytest.raises(ValueError, match="no data archive"):
        fetcher.unpack(ar({"debian-binary": b"2.0\n"}), "usr/", tmp_path / "out")
    with pytest.raises(tarfile.ReadError):
        fetcher.unpack(b"PK\x03\x04", "usr/", tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_a_source_archive_is_unpacked_as_the_tar_it_is(tmp_path: Path) -> None:
    fetcher = load_fetcher()
    sdist = data_tar(
        {
            "flask-3.1.0/docs/index.rst": b"Flask\n=====\n",
            "flask-3.1.0/docs/api.rst": b"API\n===\n",
            "flask-3.1.0/README.md": b"r",
        },
        {},
        mode="w:gz",
    )
    assert fetcher.unpack(sdist, "flask-3.1.0/docs/", tmp_path / "flask") == 2
    assert sorted(path.name for path in (tmp_path / "flask").iterdir()) == ["api.rst", "index.rst"]


def test_a_suffix_is_appended_to_files_shipped_without_one(tmp_path: Path) -> None:
    fetcher = load_fetcher()
    folder = "./usr/share/common-licenses/"
    deb = ar(
        {
            "data.tar.xz": data_tar(
                {f"{folder}GPL-3": b"GNU GENERAL PUBLIC LICENSE\n", f"{folder}Apache-2.0": b"Apache License\n"},
                {f"{folder}GPL": "GPL-3"},
            )
        }
    )
    assert fetcher.unpack(deb, folder.removeprefix("./"), tmp_path / "licenses", ".txt") == 2
    assert sorted(path.name for path in (tmp_path / "licenses").iterdir()) == ["Apache-2.0.txt", "GPL-3.txt"]


def test_only_the_named_files_of_a_folder_are_written(tmp_path: Path) -> None:
    fetcher = load_fetcher()
    folder = "./usr/share/doc/gnuplot/"
    files = {f"{folder}gnuplot.pdf": b"%PDF-1.5", f"{folder}examples/html/index.save": b"demo", f"{folder}NEWS": b"n"}
    deb = ar({"data.tar.xz": data_tar(files, {})})
    assert fetcher.unpack(deb, folder.removeprefix("./"), tmp_path / "manual", only=("gnuplot.pdf",)) == 1
    assert [path.name for path in (tmp_path / "manual").rglob("*")] == ["gnuplot.pdf"]
