"""pushpull: score push (RAG) and pull (agentic) retrieval on one eval set.

Knows nothing of ContextPull: it reads chunk files of ``{"id","text","source"}``
records and calls adapters through ``retrieve(query, k) -> list[str]``, the
protocol and file format of the independent harness ragbisect.
"""

from .protocol import Retriever

__all__ = ["Retriever"]
