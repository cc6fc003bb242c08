# The two set-up commands in the README: `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
CORPUS ?= examples/corpus

.PHONY: demo test install install-test clean

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

clean:
	rm -rf $(VENV) $(CORPUS)/.contextpull
