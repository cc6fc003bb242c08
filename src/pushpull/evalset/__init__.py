"""The eval set: questions built from the corpus itself, no hand labelling.

``aggregation`` and ``table`` are computed from corpus structure with no model;
``conceptual``, ``exact_lookup`` and ``comparison`` are phrased by a model
through the model layer (for the last two only the wording: the identifier
and the pair are computed, and a template stands in when the wording fails
its checks; ``template_fallbacks`` counts those). With a model, each
aggregation question also gets a twin worded as a person would ask it, scored
as the block ``aggregation, phrased`` (:mod:`.reworded`). A shape the corpus (or a
missing model) cannot support is skipped with a stated reason. Sets are cached on disk under a key of
the corpus fingerprint and every build parameter, so re-running is free until
the corpus or the parameters change, and a set never silently serves another
corpus.
"""

from .build import (
    BUILDER_VERSION,
    EvalSet,
    build_evalset,
    build_or_load,
    cache_key,
    info_path,
    load_evalset,
    save_evalset,
)

__all__ = [
    "BUILDER_VERSION",
    "EvalSet",
    "build_evalset",
    "build_or_load",
    "cache_key",
    "info_path",
    "load_evalset",
    "save_evalset",
]
