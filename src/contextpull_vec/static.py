"""The default embedder: a static table distilled from all-MiniLM-L6-v2.

A static model keeps one vector per word piece of MiniLM's vocabulary; a
text's vector is the mean of its pieces' vectors, L2-normalised (model2vec's
inference, reimplemented here in a few lines of numpy). There is no network
to run, so it embeds thousands of sections a second on one core, at a
quality between word matching and MiniLM itself. The table is package data,
distilled once with model2vec (``scripts/distil_static_table.py``; why it is
shipped rather than computed on first use: docs/adr/ on the static embedder),
so nothing is fetched at run time.
"""

from __future__ import annotations

import os
from importlib import resources
from itertools import chain
from typing import TYPE_CHECKING, Any

from .base import normalise
from .errors import missing

if TYPE_CHECKING:
    import numpy as np

#: the shipped table's identity, recorded in every store that holds its vectors
STATIC_NAME = "minilm-static-256"
TABLE_FILE = "minilm-static-256.npz"
TOKENIZER_FILE = "minilm-tokenizer.json"
#: word pieces per text (model2vec's default); the opening of a section carries its subject
MAX_TOKENS = 512
#: characters looked at, so a huge section is not split only to be truncated
_MAX_CHARS = MAX_TOKENS * 8
#: whitespace-separated chunks whose pieces are remembered; the memo is cleared when it grows past this
_MEMO_LIMIT = 500_000


def data_file(name: str) -> str:
    """Path of a file shipped in ``contextpull_vec/data``."""
    return str(resources.files("contextpull_vec") / "data" / name)


def load_tokenizer() -> Any:
    """MiniLM's word-piece tokenizer, shipped beside the table (a ``tokenizers.Tokenizer``)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a Hugging Face library: never reach for the hub
    try:
        from tokenizers import Tokenizer
    except ImportError as exc:
        raise missing(exc) from exc
    tokenizer = Tokenizer.from_file(data_file(TOKENIZER_FILE))
    tokenizer.no_padding()  # the file carries the sentence model's padding and truncation settings
    tokenizer.no_truncation()
    return tokenizer


class StaticEmbedder:
    """Mean of per-piece vectors from the shipped 256-d table, L2-normalised.

    Speed comes from tokenizing each distinct whitespace-separated chunk once:
    BERT's tokenizer never joins pieces across whitespace, so tokenizing a
    text chunk by chunk gives the same pieces as tokenizing it whole, and a
    corpus repeats its words far more often than it coins new ones. Unknown
    pieces are dropped; a text with no known piece gets the zero vector,
    which matches nothing.
    """

    name = STATIC_NAME

    def __init__(self) -> None:
        try:
            import numpy as np
        except ImportError as exc:
            raise missing(exc) from exc
        self._np = np
        self._tokenizer = load_tokenizer()
        with np.load(data_file(TABLE_FILE)) as data:
            # int8 codes and one scale per row: half of float16's size, the same rankings
            self._table = data["codes"].astype(np.float32) * data["scales"][:, None]
        unknown = self._tokenizer.token_to_id("[UNK]")
        self._unknown = -1 if unknown is None else int(unknown)
        self._pieces: dict[str, tuple[int, ...]] = {}

    @property
    def dim(self) -> int:
        return int(self._table.shape[1])

    def embed(self, texts: list[str]) -> np.ndarray:
        np = self._np
        chunks = [text[:_MAX_CHARS].split() for text in texts]
        self._learn({chunk for text in chunks for chunk in text if chunk not in self._pieces})
        pieces = self._pieces.__getitem__
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(chunks):
            ids = list(chain.from_iterable(map(pieces, text)))[:MAX_TOKENS]
            if ids:
                out[row] = self._table[ids].sum(axis=0)
        return normalise(out)

    def _learn(self, chunks: set[str]) -> None:
        """Tokenize chunks not seen before (one batch call) and remember their pieces."""
        if not chunks:
            return
        if len(self._pieces) + len(chunks) > _MEMO_LIMIT:
            self._pieces.clear()
        new = list(chunks)
        encodings = self._tokenizer.encode_batch_fast(new, add_special_tokens=False)
        for chunk, encoding in zip(new, encodings):
            self._pieces[chunk] = tuple(i for i in encoding.ids if i != self._unknown)
