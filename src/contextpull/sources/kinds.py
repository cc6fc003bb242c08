"""Which kind of source an ``ingest`` argument names, and a crawl's defaults.

All the CLI needs before anything is fetched, kept apart from :mod:`.git` and
:mod:`.site` so that ingesting a local folder never imports git's helpers or
an HTTP client (about 30 ms of a 0.4 s ingest of a docs folder; issue 31).
"""

from __future__ import annotations

import re

#: pages a crawl fetches at most (a docs site of a few hundred pages fits; --max-pages raises it)
DEFAULT_MAX_PAGES = 500
#: seconds between two requests to the site: at most four a second, polite for a docs server
DEFAULT_DELAY_S = 0.25

_SCP_LIKE = re.compile(r"^[\w.-]+@[\w.-]+:")


def is_git_url(text: str) -> bool:
    """True for what ``git clone`` takes as a remote: ``….git`` over https/ssh/file, ``git@host:…``, ``git+…``."""
    if _SCP_LIKE.match(text) or text.startswith(("git://", "ssh://", "git+")):
        return True
    return text.startswith(("https://", "http://", "file://")) and text.rstrip("/").endswith(".git")


def is_web_url(text: str) -> bool:
    """True for an http(s) address (a site, a file or an llms.txt, unless :func:`is_git_url` says a remote)."""
    return text.startswith(("https://", "http://"))
