"""The embedders' errors: a message and what to do next.

``contextpull_vec`` is shared by ``contextpull`` and ``pushpull`` and imports
neither, so it carries its own small family with the same shape as theirs;
each caller turns it into its own family at its boundary.
"""

from __future__ import annotations

#: the one line every missing-dependency error names
EXTRA_HINT = 'pip install "contextpull[embed]"'


class EmbedderError(Exception):
    """An embedder cannot be built or cannot embed; carries a suggestion."""

    def __init__(self, message: str, suggestion: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.suggestion = suggestion

    def __str__(self) -> str:
        return f"{self.message} ({self.suggestion})" if self.suggestion else self.message


class MissingExtra(EmbedderError):
    """A library the embedder needs (numpy, tokenizers, onnxruntime, openai) is not installed."""


class UnknownSpec(EmbedderError):
    """The embedder spec names no embedder this version knows."""


class EndpointFailed(EmbedderError):
    """A remote embeddings endpoint refused or failed a request."""


def missing(exc: ImportError) -> MissingExtra:
    """The error for an embedding dependency that failed to import."""
    return MissingExtra(f"embedding needs {exc.name or 'a missing library'}, which is not installed", EXTRA_HINT)
