"""Fetch a corpus the shared folder lacks, from the Debian archive, pinned by checksum.

    python benchmarks/fetch_corpus.py rust-book          # → .cache/corpora/rust-book
    python benchmarks/fetch_corpus.py django-docs        # → .cache/corpora/django-docs
    python benchmarks/fetch_corpus.py haproxy-docs       # → .cache/corpora/haproxy-docs
    python benchmarks/fetch_corpus.py debian-policy      # → .cache/corpora/debian-policy
    python benchmarks/fetch_corpus.py common-licenses    # → .cache/corpora/common-licenses
    python benchmarks/fetch_corpus.py jinja-docs         # → .cache/corpora/jinja-docs
    python benchmarks/fetch_corpus.py click-docs         # → .cache/corpora/click-docs
    python benchmarks/fetch_corpus.py gnuplot-manual     # → .cache/corpora/gnuplot-manual
    python benchmarks/fetch_corpus.py flask-docs         # → .cache/corpora/flask-docs
    python benchmarks/fetch_corpus.py git-docs           # → .cache/corpora/git-docs
    python benchmarks/fetch_corpus.py django-rst         # → .cache/corpora/django-rst
    python benchmarks/fetch_corpus.py rust-book --to DIR

``rust-book``: *The Rust Programming Language* as the HTML that mdBook
builds, the ``html/book`` folder of Debian's ``rust-doc`` 1.63.0 package
(MIT or Apache-2.0), unchanged: every chapter page, ``print.html`` (the
whole book on one page), the 2018, first and second editions' pages and
their redirect stubs, as a user pointing ContextPull at that folder has
them. ``django-docs``: Django 3.2's documentation as Sphinx builds it in
Django's own theme, the ``html`` folder of Debian's ``python-django-doc``
3.2.25 (BSD-3-Clause): every page, the source-code pages under
``_modules/``, the general index and search pages. ``haproxy-docs``:
HAProxy 2.6's configuration manual, management guide and starter guide as
the HTML that Debian's ``haproxy-doc`` 2.6.12 ships (GPL-2.0-or-later;
its stylesheets and scripts come along, its fonts are links and are left
out): a server's configuration reference, one long page of 1,191
keywords. ``debian-policy``: the Debian Policy Manual 4.6.2.0 as Sphinx
builds it, the ``policy.html`` folder of Debian's ``debian-policy``
(GPL-2.0-or-later): normative rules in numbered clauses, and beside each
page its reStructuredText source under ``_sources/`` as Sphinx ships it.
``common-licenses``: the licence texts Debian's ``base-files`` 12.4+deb12u15
ships in ``/usr/share/common-licenses`` (GPL 1 to 3, LGPL 2 to 3, GFDL 1.2
and 1.3, MPL 1.1 and 2.0, Apache 2.0, Artistic, BSD, CC0: each text under
its own licence's terms of verbatim copying), plain text whose files have no
suffix (``GPL-3``) or a version for one (``Apache-2.0``), so each is written
with ``.txt`` appended: legal texts in sibling versions that share most of
their clauses. A point release of ``base-files`` replaces the pinned one in
the pool, so the pin moves with Debian's releases. ``jinja-docs``: Jinja
3.1's documentation as Sphinx builds it, the ``html`` folder of Debian's
``python-jinja2-doc`` 3.1.2 (BSD-3-Clause; its scripts MIT or GPL): a template engine's designer
guide and API reference, 17 pages, with the pages' sources under
``_sources/``. ``click-docs``: Click 8.1's documentation as Sphinx builds
it, the ``html`` folder of Debian's ``python-click-doc`` 8.1.3
(BSD-3-Clause): a command-line library's guide and API reference, 27
pages. ``gnuplot-manual``: gnuplot 5.4's reference manual as one PDF typeset
by LaTeX, ``gnuplot.pdf`` of Debian's ``gnuplot-doc`` 5.4.4 (the gnuplot
licence: free to use, copy and distribute, changes only as patches): 311 pages printed
two-sided, with a table of contents and an index, the PDF a user is handed.
``flask-docs``: Flask 3.1.0's documentation as its authors write it, the
``docs`` folder of the source distribution on PyPI (BSD-3-Clause):
reStructuredText with Sphinx's directives and roles, 75 pages, the
configuration reference written as ``.. py:data::`` entries.
``git-docs``: Git 2.39's manual pages, user manual, how-tos and technical
notes, the ``/usr/share/doc/git-doc`` folder of Debian's ``git-doc``
2.39.5 (GPL-2.0): each page as the HTML asciidoc builds and, beside it in
the same folder, the asciidoc source it was built from (``git-log.html``
and ``git-log.txt``), and the sources' shared fragments
(``merge-options.txt``) on their own: one manual in two formats, as that
package installs it.
``django-rst``: the same Django 3.2 documentation as ``django-docs``, as its
authors write it: the ``docs`` folder of Django 3.2.25's source distribution
on PyPI (BSD-3-Clause), 538 ``.txt`` files, all but two reStructuredText with Django's
own roles and directives (``:setting:`DEBUG```, ``.. setting:: DEBUG``), the
release notes among them, and the theme and images beside them.
``search_quality.py``
scores each when it is present. Only the Debian archive (``deb.debian.org``)
and PyPI's file host are needed; the archive's SHA-256 is checked before
anything is written, and symbolic links (to fonts and scripts elsewhere in
the package) are left out.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import shutil
import sys
import tarfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parent.parent
CORPORA = ROOT / ".cache" / "corpora"
MIRROR = "https://deb.debian.org/debian/"


@dataclass(frozen=True)
class Package:
    """One folder inside one Debian package or source archive, pinned by the archive's checksum."""

    pool_path: str  # under the Debian mirror, or a whole ``https://`` URL (a source archive on PyPI)
    sha256: str
    folder: str  # inside the package's data archive
    suffix: str = ""  # appended to every file name (plain text shipped without one)
    only: tuple[str, ...] = ()  # the files of the folder to keep (every file when empty)


PACKAGES = {
    "rust-book": Package(
        "pool/main/r/rustc/rust-doc_1.63.0+dfsg1-2_all.deb",
        "96ef96fe6df87d939ca713bd7df3d15c2b778ccb892eca025c4ee504146f697b",
        "usr/share/doc/rust-doc/html/book/",
    ),
    "django-docs": Package(
        "pool/main/p/python-django/python-django-doc_3.2.25-0+deb12u3_all.deb",
        "33319c8e45b95693603213442ccf9bcee933ef338488115203ad25a0e01c696f",
        "usr/share/doc/python-django-doc/html/",
    ),
    "haproxy-docs": Package(
        "pool/main/h/haproxy/haproxy-doc_2.6.12-1+deb12u3_all.deb",
        "a4f8add91de39c2b14e58fca303b61cf7cc6497ea1153ae7b2271206bc86af28",
        "usr/share/doc/haproxy/html/",
    ),
    "debian-policy": Package(
        "pool/main/d/debian-policy/debian-policy_4.6.2.0_all.deb",
        "ef9d01b625c3b87c3a845c2cd1b66f1a16e9240b2b9e5bee53472a00e8457a39",
        "usr/share/doc/debian-policy/policy.html/",
    ),
    "jinja-docs": Package(
        "pool/main/j/jinja2/python-jinja2-doc_3.1.2-1+deb12u3_all.deb",
        "97b16e94881ccedd65c2b3b100497785089a4981cbcffcb03347e27b3d247931",
        "usr/share/doc/python-jinja2-doc/html/",
    ),
    "click-docs": Package(
        "pool/main/p/python-click/python-click-doc_8.1.3-2_all.deb",
        "066092b0299a04c2588e5f2e9dc37a8d8ed7a4c4eeb7cd3175ebfcfce24a8943",
        "usr/share/doc/python-click-doc/html/",
    ),
    "common-licenses": Package(
        "pool/main/b/base-files/base-files_12.4+deb12u15_amd64.deb",
        "3eb1ea6d85488f488cc2a163b98ad640ef88cee4c79287cf14e361aaf6206f47",
        "usr/share/common-licenses/",
        suffix=".txt",
    ),
    "gnuplot-manual": Package(
        "pool/main/g/gnuplot/gnuplot-doc_5.4.4+dfsg1-2_all.deb",
        "73fe1816a296594cf6a1d38528f8d740fd650f57a2cb62e029f7920fcd5b31f0",
        "usr/share/doc/gnuplot/",
        only=("gnuplot.pdf",),
    ),
    "git-docs": Package(
        "pool/main/g/git/git-doc_2.39.5-0+deb12u3_all.deb",
        "3c89668a11053a6bafade3de1f611f4613db31e082af63f43d8c5b69ad8795ec",
        "usr/share/doc/git-doc/",
    ),
    "django-rst": Package(
        "https://files.pythonhosted.org/packages/ec/68/0e744f07b57bfdf99abbb6b3eb14fcba188867021c05f4a104e04f6d56b8/Django-3.2.25.tar.gz",
        "7ca38a78654aee72378594d63e51636c04b8e28574f5505dff630895b5472777",
        "Django-3.2.25/docs/",
    ),
    "flask-docs": Package(
        "https://files.pythonhosted.org/packages/89/50/dff6380f1c7f84135484e176e0cac8690af72fa90e932ad2a0a60e28c69b/flask-3.1.0.tar.gz",
        "5f873c5184c897c8d9d1b05df1e3d01b14910ce69607a117bd3277098a5836ac",
        "flask-3.1.0/docs/",
    ),
}


def ar_members(data: bytes) -> dict[str, bytes]:
    """The members of an ``ar`` archive (a ``.deb`` is one) by name."""
    if not data.startswith(b"!<arch>\n"):
        raise ValueError("not an ar archive")
    members: dict[str, bytes] = {}
    at = 8
    while at + 60 <= len(data):
        header = data[at : at + 60]
        name = header[:16].decode().strip().rstrip("/")
        size = int(header[48:58].decode().strip())
        members[name] = data[at + 60 : at + 60 + size]
        at += 60 + size + (size % 2)
    return members


def fetch(name: str, to: Path) -> int:
    """Download ``name``'s package, check its checksum and unpack its folder into ``to``; how many files."""
    package = PACKAGES[name]
    url = package.pool_path if package.pool_path.startswith("https://") else MIRROR + package.pool_path
    with urllib.request.urlopen(url, timeout=120) as response:
        data = response.read()
    digest = hashlib.sha256(data).hexdigest()
    if digest != package.sha256:
        raise ValueError(f"{package.pool_path}: SHA-256 {digest}, expected {package.sha256}")
    return unpack(data, package.folder, to, package.suffix, package.only)


def unpack(archive: bytes, folder: str, to: Path, suffix: str = "", only: tuple[str, ...] = ()) -> int:
    """The regular files under ``folder`` of ``archive`` (a ``.deb``'s data archive, or a tar
    archive itself), those named in ``only`` if any, written under ``to`` (replaced whole); how many.

    The files are written beside ``to`` first and moved into place at the
    end, so an interrupted fetch never leaves a half corpus to be scored.
    """
    data = _data_archive(archive) if archive.startswith(b"!<arch>\n") else archive
    written = 0
    partial = to.with_name(to.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        for entry in tar:
            name = entry.name.removeprefix("./")
            if not entry.isfile() or not name.startswith(folder) or ".." in PurePosixPath(name).parts:
                continue
            if only and name[len(folder) :] not in only:
                continue
            source = tar.extractfile(entry)
            if source is None:
                continue
            target = partial / (name[len(folder) :] + suffix)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read())
            written += 1
    shutil.rmtree(to, ignore_errors=True)
    partial.rename(to)
    return written


def _data_archive(deb: bytes) -> bytes:
    """The data archive of the ``.deb`` ``deb``: the tar of the files it installs."""
    members = ar_members(deb)
    data = next((members[key] for key in members if key.startswith("data.tar")), None)
    if data is None:
        raise ValueError("the package has no data archive")
    return data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", choices=sorted(PACKAGES))
    parser.add_argument("--to", type=Path, help="folder to write (default .cache/corpora/CORPUS)")
    args = parser.parse_args(argv)
    to = args.to or CORPORA / args.corpus
    to.parent.mkdir(parents=True, exist_ok=True)
    try:
        count = fetch(args.corpus, to)
    except (OSError, ValueError, tarfile.TarError) as error:
        print(f"fetch_corpus: {args.corpus}: {error}", file=sys.stderr)
        return 1
    print(f"{to}: {count} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
