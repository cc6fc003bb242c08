#!/bin/sh
# Re-make the published bench runs at the current commit, check that each replays byte for byte
# without the model, and regenerate the tables in README.md and benchmarks/RESULTS.md.
#
#   PYTHON=.venv/bin/python sh benchmarks/remake_results.sh      (or: make remake-results)
#
# Needs the local model and runtime (`pushpull models install-local --with-runtime`) and, for the
# other runs, ../shared/corpora. On 2 cores: about an hour for the bundled corpus and a quarter of an
# hour for its snippet leakage on 5 questions (BUNDLED=0 skips both, LEAKAGE_SAMPLE=0 the leakage);
# half an hour each for the pydantic, semconv and pnpm docs (OTHER_CORPORA="" skips them), then half
# an hour for the uv docs and ten minutes for its leakage on 3 questions (UV_LEAKAGE_SAMPLE=0 skips
# it). Refuses to start from a modified work tree unless ALLOW_DIRTY=1, so every results.json names
# code that was committed.
set -eu
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-.venv/bin/python}
BIN=$(dirname "$PYTHON")
MODEL=${MODEL:-local:qwen2.5-coder-1.5b}
UV_DOCS=${UV_DOCS:-../shared/corpora/uv-docs}
SHARED=${SHARED:-../shared/corpora}
OTHER_CORPORA=${OTHER_CORPORA-pydantic-docs semconv-docs pnpm-docs}
WORK=${WORK:-$(mktemp -d)}
made=""

if [ -n "$(git status --porcelain)" ] && [ "${ALLOW_DIRTY:-0}" != 1 ]; then
    echo "remake_results: the work tree has uncommitted changes; commit them (or ALLOW_DIRTY=1)" >&2
    exit 1
fi

# Every run starts from the committed tree: the runs write under $WORK and are moved into
# benchmarks/results only when all are done, so no run records another's output as a modified tree.
remake() {  # name, corpus, extra bench options...
    name=$1 corpus=$2
    shift 2
    out=$WORK/results/$name
    rm -rf "$out"
    echo "== re-making $name ($(date -u +%H:%M))" >&2
    "$BIN/contextpull" bench "$corpus" --store "$WORK/$name.sqlite" --model "$MODEL" --pull "$MODEL" \
        --pull scripted --n 25 "$@" --out "$out"
    echo "== replaying $name without the model" >&2
    "$BIN/contextpull" bench "$corpus" --store "$WORK/$name.sqlite" --replay "$out" --out "$WORK/$name-replay"
    made="$made $name"
}

# the reranked push row needs a model: the local one, listwise, on the seeded sample only
if [ "${BUNDLED:-1}" != 0 ]; then
    remake sample-corpus examples/corpus --sample 10 --reranker "llm:$MODEL"
fi
# the snippet-leakage experiment on the first LEAKAGE_SAMPLE of that sample: the full-width mode is the
# pull row's own runs (same key), so only the short and heading-path-only modes call the model
if [ "${BUNDLED:-1}" != 0 ] && [ "${LEAKAGE_SAMPLE:-5}" != 0 ]; then
    echo "== snippet leakage on sample-corpus ($(date -u +%H:%M))" >&2
    mkdir -p "$WORK/leakage-cache/full"
    cp -R "$WORK/results/sample-corpus/pull/pull_runs" "$WORK/leakage-cache/full/"
    "$PYTHON" benchmarks/snippet_leakage.py --run "$WORK/results/sample-corpus" --model "$MODEL" \
        --sample "${LEAKAGE_SAMPLE:-5}" --cache "$WORK/leakage-cache" --out "$WORK/results/sample-corpus/leakage"
    "$PYTHON" benchmarks/snippet_leakage.py --replay "$WORK/results/sample-corpus/leakage"
fi
# the corpora that are new to the published set first, then the uv docs and their leakage
for name in $OTHER_CORPORA; do
    if [ -d "$SHARED/$name" ]; then
        remake "$name" "$SHARED/$name" --judge none --sample "${UV_SAMPLE:-5}"
    else
        echo "remake_results: $SHARED/$name is absent; benchmarks/results/$name left as it was" >&2
    fi
done
if [ -d "$UV_DOCS" ]; then
    # the local model reads under the reading grammar (ADR 021): about 100 s a question on 2 cores, so
    # the uv docs run samples 5 questions (UV_SAMPLE=20 for the earlier size, about an hour more)
    remake uv-docs "$UV_DOCS" --judge none --sample "${UV_SAMPLE:-5}"
    # snippet leakage on the first UV_LEAKAGE_SAMPLE of the uv sample (about 100 s a question per mode)
    if [ "${UV_LEAKAGE_SAMPLE:-3}" != 0 ]; then
        echo "== snippet leakage on uv-docs ($(date -u +%H:%M))" >&2
        mkdir -p "$WORK/uv-leakage-cache/full"
        cp -R "$WORK/results/uv-docs/pull/pull_runs" "$WORK/uv-leakage-cache/full/"
        "$PYTHON" benchmarks/snippet_leakage.py --run "$WORK/results/uv-docs" --corpus "$UV_DOCS" --model "$MODEL" \
            --sample "${UV_LEAKAGE_SAMPLE:-3}" --cache "$WORK/uv-leakage-cache" --out "$WORK/results/uv-docs/leakage"
        "$PYTHON" benchmarks/snippet_leakage.py --replay "$WORK/results/uv-docs/leakage"
    fi
else
    echo "remake_results: $UV_DOCS is absent; benchmarks/results/uv-docs left as it was" >&2
fi
for name in $made; do
    rm -rf "benchmarks/results/$name"
    cp -R "$WORK/results/$name" "benchmarks/results/$name"
done
"$PYTHON" benchmarks/results_tables.py
echo "done: review and commit benchmarks/results, README.md and benchmarks/RESULTS.md" >&2
