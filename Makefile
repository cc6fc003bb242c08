# The two set-up commands in the README: `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
CORPUS ?= examples/corpus
SMOKE  ?= .smoke

.PHONY: demo test smoke install install-test clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# MiniLM's tokenizer and the static embedding table ship inside pullvec (docs/adr/010-embeddings.md).
install: $(BIN)/python
	@echo "[install] contextpull with its eval and format extras into $(VENV) (about 30 s on a warm pip cache)"
	$(BIN)/pip install --quiet -e '.[eval,all]'

install-test: $(BIN)/python
	$(BIN)/pip install --quiet -e '.[test]'
	@# tests/js: the TypeScript MCP SDK (a second, independent client) and the pinned real Claude Code
	@# (tests/test_claudecode_real.py); skipped without npm.
	if command -v npm >/dev/null 2>&1; then cd tests/js && npm ci --silent --no-audit --no-fund; fi

# Ingest the bundled corpus; print the published push-and-pull table (pull rows re-scored from the
# committed records of the local-model run: no model needed); then score the rows that need no model now.
demo: install
	@echo "[demo 1/3] ingest the bundled corpus $(CORPUS)"
	$(BIN)/contextpull ingest $(CORPUS)
	@echo "[demo 2/3] the published push-and-pull table (benchmarks/results/sample-corpus)"
	$(BIN)/contextpull results benchmarks/results/sample-corpus --explain
	@echo "[demo 3/3] push rows and the pull baseline computed now by this code (no model; about 10 s)"
	$(BIN)/contextpull bench $(CORPUS)

# Lint, format and types first (seconds), then the built package as a user gets it, then the suite
# (which reuses the smoke's base venv rather than installing the wheel again).
test: install-test
	$(BIN)/ruff check src tests benchmarks scripts
	$(BIN)/ruff format --check src tests benchmarks scripts
	$(BIN)/mypy src
	$(BIN)/python scripts/smoke_wheel.py --work $(SMOKE)
	CONTEXTPULL_SMOKE_BASE=$(SMOKE)/base $(BIN)/python -m pytest

# Build the sdist and the wheel, install the wheel (no -e) into fresh venvs without extras and with
# [all], run the first commands, bench --push bm25, the missing-extra refusals and the uvx launcher.
smoke: install-test
	$(BIN)/python scripts/smoke_wheel.py --work $(SMOKE)

clean:
	rm -rf $(VENV) $(SMOKE) dist $(CORPUS)/.contextpull
