"""The run options shared by ``pushpull`` and ``contextpull bench``, declared once.

Both commands build and score the same eval set, so the flags that choose
the questions (shapes, model, n, seed) and the rows (push configs, reranker,
k, sample) are declared here and added to either parser.
"""

from __future__ import annotations

import argparse

from ..questions import SHAPES


def add_evalset_options(parser: argparse.ArgumentParser) -> None:
    """``--shapes --model --n --seed``: which questions the eval set holds."""
    parser.add_argument("--shapes", default="all", help=f"comma list of {', '.join(SHAPES)} (default: all)")
    parser.add_argument(
        "--model", default="none", help="provider:model that phrases questions and judges answers (default: none)"
    )
    parser.add_argument("--n", type=int, default=200, help="target number of questions (default: 200)")
    parser.add_argument("--seed", type=int, default=0, help="seed for sampling chunks and questions (default: 0)")


def add_scoring_options(parser: argparse.ArgumentParser) -> None:
    """``--push --embedder --reranker --k --sample``: which rows run and how they are cut off."""
    parser.add_argument(
        "--push",
        default="all",
        help="push configs: all, none, or a comma list of bm25,dense,hybrid,rerank (default: all)",
    )
    parser.add_argument(
        "--embedder",
        help="embedder of the dense, hybrid and rerank rows: minilm (default), e5-small, static, or openai:<model>",
    )
    parser.add_argument("--reranker", help="reranker for the rerank row: onnx:<folder> or llm:<provider:model>")
    parser.add_argument("--k", type=int, default=5, help="cutoff for every metric (default: 5)")
    parser.add_argument(
        "--sample", type=int, help="score expensive rows (adapters, LLM rerank) on a seeded sample of N questions"
    )


def parse_push(spec: str) -> list[str] | None:
    """``all`` → None (every config), ``none`` → [], else the comma list."""
    if spec == "all":
        return None
    return [] if spec == "none" else [s.strip() for s in spec.split(",") if s.strip()]
