"""The one place that talks SQL: schema, connections, writes and queries."""

from .connection import DocumentEntry, Store

__all__ = ["DocumentEntry", "Store"]
