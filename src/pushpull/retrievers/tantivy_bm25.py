"""Lexical BM25 from a real search engine: Tantivy with an English analyzer and a boosted title field.

This is the push row a practitioner would stand up with Elasticsearch,
OpenSearch or Lucene: an analyzed ``match`` query over a title and a body
field, English stopwords and stemming, BM25 (k1 1.2, b 0.75, the engine's
defaults). Tantivy is Lucene's design in Rust, installs as a wheel and needs
no JVM (docs/adr/020-push-rows.md says why it was chosen over pyserini).

The query is analyzed with the same analyzer as the documents and turned
into one SHOULD term clause per (field, term), as Lucene's multi-field
query parser does, rather than handed to the query-string parser: a
question such as ``what does --no-cache do?`` must not be read as syntax.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from typing import Any

from .base import ChunkLike

#: how much a title term counts against a body term: the common ``title^2`` of a multi-field match
TITLE_BOOST = 2.0
_ANALYZER = "english"
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$")
#: the engine's writer heap: the smallest it accepts comfortably for a corpus of documentation
_WRITER_HEAP = 50_000_000


def title_of(text: str) -> str:
    """A chunk's title: its first Markdown heading line if it opens with one, else the empty string."""
    for line in text.splitlines():
        if line.strip():
            match = _HEADING.match(line)
            return match.group(1) if match else ""
    return ""


class TantivyBM25:
    """BM25 over ``title`` (boosted) and ``body`` fields in an in-memory Tantivy index."""

    name = "tantivy bm25 (english, title^2)"

    def __init__(self, chunks: Sequence[ChunkLike]) -> None:
        import tantivy

        started = time.perf_counter()
        self._tantivy = tantivy
        self._analyzer = (
            tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
            .filter(tantivy.Filter.remove_long(40))
            .filter(tantivy.Filter.lowercase())
            .filter(tantivy.Filter.stopword("english"))
            .filter(tantivy.Filter.stemmer("english"))
            .build()
        )
        builder = tantivy.SchemaBuilder()
        builder.add_integer_field("row", stored=True)
        for field in ("title", "body"):
            builder.add_text_field(field, stored=False, tokenizer_name=_ANALYZER)
        self._schema = builder.build()
        self._index = tantivy.Index(self._schema)
        self._index.register_tokenizer(_ANALYZER, self._analyzer)
        self.ids = [chunk.id for chunk in chunks]
        writer = self._index.writer(_WRITER_HEAP, 1)
        for row, chunk in enumerate(chunks):
            writer.add_document(tantivy.Document(row=row, title=title_of(chunk.text), body=chunk.text))
        writer.commit()
        writer.wait_merging_threads()
        self._index.reload()
        self._searcher = self._index.searcher()
        self.build_seconds = time.perf_counter() - started
        self._queries = 0

    def _query(self, text: str) -> Any:
        tantivy = self._tantivy
        terms = dict.fromkeys(self._analyzer.analyze(text))
        clauses = []
        for term in terms:
            body = tantivy.Query.term_query(self._schema, "body", term)
            title = tantivy.Query.boost_query(tantivy.Query.term_query(self._schema, "title", term), TITLE_BOOST)
            clauses += [(tantivy.Occur.Should, body), (tantivy.Occur.Should, title)]
        return tantivy.Query.boolean_query(clauses) if clauses else None

    def retrieve(self, query: str, k: int) -> list[str]:
        """Up to ``k`` chunk ids, best first (ties in corpus order); ``[]`` when no query term is indexed."""
        self._queries += 1
        parsed = self._query(query) if k > 0 and self.ids else None
        if parsed is None:
            return []
        hits = self._searcher.search(parsed, k + 16).hits
        rows = [(score, self._searcher.doc(address)["row"][0]) for score, address in hits]
        rows.sort(key=lambda hit: (-hit[0], hit[1]))
        return [self.ids[row] for _, row in rows[:k]]

    def stats(self) -> dict[str, Any]:
        return {"queries": self._queries, "index_seconds": round(self.build_seconds, 3)}
