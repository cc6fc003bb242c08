"""Plain text of inline Markdown, shared by ContextPull (headings, summaries) and
pushpull (headings and table cells it quotes in questions).

A package of its own, importing only the standard library, because neither of
its users may import the other: one definition keeps the heading a question
quotes identical to the heading the index shows.
"""

from .strip import plain_text

__all__ = ["plain_text"]
