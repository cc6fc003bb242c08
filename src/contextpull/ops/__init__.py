"""The five read-only operations over a store: index, search, read, grep, neighbours."""

from .operations import DEFAULT_GREP_LIMIT, DEFAULT_SEARCH_LIMIT, Ops

__all__ = ["DEFAULT_GREP_LIMIT", "DEFAULT_SEARCH_LIMIT", "Ops"]
