"""Ingest: discover the files of a folder, analyse them (in worker processes for
large jobs) and write the store in one transaction, incrementally.

The package is not named ``ingest`` because ``contextpull.ingest`` is the public
function re-exported by the top-level package.
"""

from ..paths import default_store_path
from .run import IngestReport, Progress, ingest

__all__ = ["IngestReport", "Progress", "default_store_path", "ingest"]
