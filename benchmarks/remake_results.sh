#!/bin/sh
# Re-make the published bench runs at the current commit, check that each replays byte for byte
# without the model, and regenerate the tables in README.md and benchmarks/RESULTS.md.
#
#   PYTHON=.venv/bin/python sh benchmarks/remake_results.sh      (or: make remake-results)
#
# Needs the local model and runtime (`pushpull models install-local --with-runtime`) and, for the
# other runs, ../shared/corpora. On 2 cores: about an hour for the bundled corpus (its model rows
# and reranked row on a sample of 10) and a quarter of an hour for its snippet leakage on 5
# questions (BUNDLED=0 skips both); about 25 minutes for each shared corpus in CORPORA (the model's
# rows on a sample of SAMPLE=5) and ten more for its leakage on SHARED_LEAKAGE_SAMPLE=3 questions
# (0 skips every leakage run). Refuses to start from a modified work tree unless ALLOW_DIRTY=1, so
# every results.json names code that was committed.
#
# REEXECUTE=1 (make reexecute-results) re-executes the published runs instead (docs/adr/023):
# every row computed again by this code, each model call answered as recorded, and only a question
# whose requests changed run again by the model: minutes when no request changed. A run with no
# leakage folder gets one made in full.
set -eu
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-.venv/bin/python}
BIN=$(dirname "$PYTHON")
MODEL=${MODEL:-local:qwen2.5-coder-1.5b}
SHARED=${SHARED:-../shared/corpora}
CORPORA=${CORPORA-pydantic-docs semconv-docs pnpm-docs uv-docs}
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

# The snippet-leakage experiment on the first questions of a run's sample: the full-width mode is
# the pull row's own runs (same key), so only the short and heading-path-only modes call the model
# (about 100 s a question per mode).
leakage() {  # name, corpus, questions
    name=$1 corpus=$2 questions=$3
    [ "$questions" != 0 ] || return 0
    echo "== snippet leakage on $name ($(date -u +%H:%M))" >&2
    rm -rf "$WORK/$name-leakage-cache"
    mkdir -p "$WORK/$name-leakage-cache/full"
    cp -R "$WORK/results/$name/pull/pull_runs" "$WORK/$name-leakage-cache/full/"
    "$PYTHON" benchmarks/snippet_leakage.py --run "$WORK/results/$name" --corpus "$corpus" --model "$MODEL" \
        --sample "$questions" --cache "$WORK/$name-leakage-cache" --out "$WORK/results/$name/leakage"
    "$PYTHON" benchmarks/snippet_leakage.py --replay "$WORK/results/$name/leakage"
}

# Re-execute a published run and its leakage folder: the answers it recorded, today's code.
reexecute() {  # name, corpus
    name=$1 corpus=$2
    out=$WORK/results/$name
    rm -rf "$out"
    echo "== re-executing $name ($(date -u +%H:%M))" >&2
    "$BIN/contextpull" bench "$corpus" --store "$WORK/$name.sqlite" --replay "benchmarks/results/$name" \
        --re-execute --out "$out" --view none
    echo "== replaying $name without the model" >&2
    "$BIN/contextpull" bench "$corpus" --store "$WORK/$name.sqlite" --replay "$out" --out "$WORK/$name-replay" \
        --view none
    made="$made $name"
    recorded=benchmarks/results/$name/leakage
    if [ ! -f "$recorded/leakage.json" ]; then
        leakage "$name" "$corpus" "$( [ "$name" = sample-corpus ] && echo "${LEAKAGE_SAMPLE:-5}" || echo "${SHARED_LEAKAGE_SAMPLE:-3}")"
        return 0
    fi
    echo "== re-executing the snippet leakage of $name ($(date -u +%H:%M))" >&2
    mkdir -p "$WORK/$name-leakage-cache"  # answers already there (an earlier try) are kept
    rm -rf "$WORK/$name-leakage-cache/full"
    mkdir -p "$WORK/$name-leakage-cache/full"
    cp -R "$out/pull/pull_runs" "$WORK/$name-leakage-cache/full/"
    "$PYTHON" benchmarks/snippet_leakage.py --run "$out" --corpus "$corpus" --re-execute "$recorded" \
        --cache "$WORK/$name-leakage-cache" --out "$out/leakage"
    "$PYTHON" benchmarks/snippet_leakage.py --replay "$out/leakage"
}

if [ "${REEXECUTE:-0}" != 0 ]; then
    for name in ${RUNS-sample-corpus $CORPORA}; do
        if [ "$name" = sample-corpus ]; then
            reexecute "$name" examples/corpus
        elif [ -d "$SHARED/$name" ]; then
            reexecute "$name" "$SHARED/$name"
        else
            echo "remake_results: $SHARED/$name is absent; benchmarks/results/$name left as it was" >&2
        fi
    done
else
    if [ "${BUNDLED:-1}" != 0 ]; then
        # the reranked push row needs a model: the local one, listwise, on the seeded sample only
        remake sample-corpus examples/corpus --sample 10 --reranker "llm:$MODEL"
        leakage sample-corpus examples/corpus "${LEAKAGE_SAMPLE:-5}"
    fi
    for name in $CORPORA; do
        if [ -d "$SHARED/$name" ]; then
            remake "$name" "$SHARED/$name" --judge none --sample "${SAMPLE:-5}"
            leakage "$name" "$SHARED/$name" "${SHARED_LEAKAGE_SAMPLE:-3}"
        else
            echo "remake_results: $SHARED/$name is absent; benchmarks/results/$name left as it was" >&2
        fi
    done
fi
for name in $made; do  # the run is replaced; its hand-written WRITEUP.md stays (review it against the new table)
    kept=""
    if [ -f "benchmarks/results/$name/WRITEUP.md" ]; then
        kept=$WORK/$name-WRITEUP.md
        cp "benchmarks/results/$name/WRITEUP.md" "$kept"
    fi
    rm -rf "benchmarks/results/$name"
    cp -R "$WORK/results/$name" "benchmarks/results/$name"
    [ -z "$kept" ] || cp "$kept" "benchmarks/results/$name/WRITEUP.md"
done
"$PYTHON" benchmarks/results_tables.py
echo "done: review and commit benchmarks/results, README.md and benchmarks/RESULTS.md" >&2
