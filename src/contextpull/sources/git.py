"""A git repository as a corpus: a shallow checkout, fetched again on every ingest.

The checkout lives in the user data folder (``sources/<name>-<hash>/``,
keyed by URL and ref), one commit deep. Re-ingest fetches the ref; git
rewrites only the files that changed, so the ingest after it re-reads only
those (unchanged files keep their size and time and are not opened).

A first fetch is made in a temporary folder and renamed into place when it is
complete; a later one fetches into the existing repository, which git leaves
as it was when the fetch fails, and moves the working copy only after it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import urlsplit

from ..errors import ContextPullError
from .folders import source_folder

#: a git command still running after this long is stopped (a hung server, a prompt nothing answers)
FETCH_TIMEOUT_S = 600.0
#: the file in the checkout that records where it came from (hidden: discovery skips it)
SOURCE_FILE = ".contextpull-source.json"


class SourceError(ContextPullError):
    """A source could not be fetched: the URL, the ref, the network or git itself."""

    code = "source_error"


#: how the hosts whose file URLs are known name a file at a commit
_BLOB_PATHS = {"github.com": "/blob/", "gitlab.com": "/-/blob/"}


@dataclass(frozen=True)
class Fetched:
    """What a fetch brought: the repository, ref, subdir, commit and the local folder to ingest."""

    url: str
    ref: str | None
    subdir: str | None
    commit: str
    folder: str

    def to_dict(self) -> dict[str, str | None]:
        return asdict(self)

    def describe(self) -> str:
        """One line for the ingest report."""
        return f"{self.url} at {self.commit[:12]} ({self.folder})"

    def web_base(self) -> str:
        """Where a browser shows the ingested folder's files at this commit, for GitHub and GitLab
        https remotes (``…/blob/COMMIT/SUBDIR/``); empty for any other host (give ``--base-url``)."""
        parts = urlsplit(self.url)
        host, path = parts.netloc.lower(), parts.path.strip("/").removesuffix(".git")
        if parts.scheme != "https" or path.count("/") < 1 or host not in _BLOB_PATHS:
            return ""
        sub = f"{self.subdir.strip('/')}/" if self.subdir else ""
        return f"https://{host}/{path}{_BLOB_PATHS[host]}{self.commit}/{sub}"


@dataclass(frozen=True)
class GitSource:
    """A repository, the ref to check out (default: the remote's default branch) and the folder of it to ingest."""

    url: str
    ref: str | None = None
    subdir: str | None = None

    def __post_init__(self) -> None:
        if self.subdir is not None:
            parts = PurePosixPath(self.subdir.strip("/")).parts
            if not parts or ".." in parts or self.subdir.startswith("/"):
                raise SourceError(
                    f"--subdir {self.subdir!r} is not a folder inside the repository",
                    "give a relative path such as docs/",
                )

    @property
    def remote(self) -> str:
        return self.url.removeprefix("git+")

    def checkout(self) -> Path:
        """Where the working copy lives: one folder per URL and ref, in the user data folder."""
        name = PurePosixPath(self.remote.rstrip("/")).name.removesuffix(".git")
        return source_folder(name or "repo", f"{self.remote}\0{self.ref or ''}")

    def corpus(self) -> Path:
        """The folder the ingest reads: the checkout, or its ``subdir``."""
        root = self.checkout()
        return root / self.subdir.strip("/") if self.subdir else root

    def fetch(self) -> Fetched:
        """Bring the checkout to the ref's current commit; what it now holds (also kept in the checkout).

        Raises :class:`SourceError` with git's own last line when git is
        missing, the remote cannot be read, the ref does not exist or the
        subdir is not in it; the previous checkout is untouched then.
        """
        if shutil.which("git") is None:
            raise SourceError("git is not installed", "install git, or ingest a local folder")
        root = self.checkout()
        if (root / ".git").is_dir():
            commit = self._fetch_into(root)
        else:
            commit = self._first_fetch(root)
        if self.subdir and not self.corpus().is_dir():
            raise SourceError(
                f"{self.remote} has no folder {self.subdir!r} at {self.ref or 'its default branch'}",
                "check --subdir against the repository",
            )
        fetched = Fetched(self.remote, self.ref, self.subdir, commit, str(self.corpus()))
        (root / SOURCE_FILE).write_text(json.dumps(fetched.to_dict(), indent=2) + "\n", encoding="utf-8")
        return fetched

    def _first_fetch(self, root: Path) -> str:
        root.parent.mkdir(parents=True, exist_ok=True)
        staging = root.parent / f".{root.name}.partial-{os.getpid()}"
        shutil.rmtree(staging, ignore_errors=True)
        try:
            _git(staging.parent, "init", "--quiet", str(staging))
            _git(staging, "remote", "add", "origin", self.remote)
            commit = self._fetch_into(staging)
            os.replace(staging, root)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return commit

    def _fetch_into(self, repo: Path) -> str:
        """Fetch the ref one commit deep and move the working copy to it (only after the fetch succeeded)."""
        want = self.ref or "HEAD"
        try:
            _git(repo, "fetch", "--quiet", "--depth", "1", "--no-tags", "origin", want)
        except SourceError:
            if not re.fullmatch(r"[0-9a-f]{7,40}", want):
                raise
            _git(repo, "fetch", "--quiet", "--no-tags", "origin")  # a server that refuses a commit by id
            _git(repo, "cat-file", "-e", f"{want}^{{commit}}")
            _git(repo, "update-ref", "FETCH_HEAD", want)
        _git(repo, "checkout", "--quiet", "--force", "--detach", "FETCH_HEAD")
        return _git(repo, "rev-parse", "HEAD")


def _git(cwd: Path, *args: str) -> str:
    """Run git without prompts; its stdout, or :class:`SourceError` with its last line of stderr."""
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "", "SSH_ASKPASS": "", "LC_ALL": "C"}
    env.setdefault("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=FETCH_TIMEOUT_S, check=False
        )
    except subprocess.TimeoutExpired as err:
        raise SourceError(f"git {args[0]} did not finish in {FETCH_TIMEOUT_S:g} s", "check the network") from err
    if done.returncode != 0:
        lines = [line for line in done.stderr.strip().splitlines() if line.strip()]
        said = lines[-1].removeprefix("fatal: ").removeprefix("error: ") if lines else f"exit {done.returncode}"
        raise SourceError(f"git {args[0]} failed: {said}", "check the URL and --ref, and that git can reach it")
    return done.stdout.strip()
