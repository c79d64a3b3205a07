# The two README commands are `make dev` and `make test`; everything else is a helper.
SHELL  := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   ?= .venv
BIN     = $(VENV)/bin

.PHONY: install dev test lint format program program-check bench clean sdk-models sdk-ts prod-local chaos \
	openapi openapi-tools openapi-check openapi-release docs-callers

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml sdk/python/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]' -e sdk/python
	touch $@

## README command 1: the whole stack on embedded services (Ctrl-C stops all of it).
dev: install
	ENVIRONMENT=$${ENVIRONMENT:-dev} $(BIN)/mccgw dev

## README command 2: the whole test suite against real PostgreSQL, Redis, Temporal and chain.
test: install
	ENVIRONMENT=test $(BIN)/pytest

## Regenerate both SDKs' generated modules from the app's OpenAPI (after adding routes).
sdk-models: install
	$(BIN)/python -m mccgw.sdkgen

## The API's contract (docs/versioning.md): openapi.json regenerated from the app (after a route
## change; make test fails while it is stale), its tools (Redocly CLI, Optic: npm ci from
## contract/package-lock.json), the whole check make test runs, and the release step.
openapi: install
	$(BIN)/python -m mccgw.contract write

openapi-tools:
	cd contract && npm ci --no-audit --no-fund

openapi-check: install openapi-tools
	$(BIN)/python -m mccgw.contract check

openapi-release: install openapi-tools
	$(BIN)/python -m mccgw.contract release
## Rewrite docs/security.md's table of who may call each operation from the routes'
## declarations (after adding or changing a route; tests/api/test_declarations.py checks it).
docs-callers: install
	ENVIRONMENT=test $(BIN)/python -m mccgw.callers_table

## The TypeScript SDK alone: install from its lock file, build, unit tests (make test also runs
## its live tests, via tests/sdk/test_typescript.py).
sdk-ts:
	cd sdk/typescript && npm ci --no-audit --no-fund && npm test

## docker-compose.yml's topology as processes from the built wheel (deploy/topology.py; README).
PROD_LOCAL_DIR ?= /tmp/mccgw-prod-local
prod-local: install
	$(BIN)/python -m deploy.topology --dir $(PROD_LOCAL_DIR)

## The chaos suite's long form: >= 10 minutes, every fault >= 5 times (docs/reliability.md).
## CHAOS_WEATHER=all runs a phase per weather of the chain node (issue 39), each that long.
CHAOS_MINUTES ?= 10
CHAOS_WEATHER ?= calm
CHAOS_ARGS ?=
chaos: install
	ENVIRONMENT=test $(BIN)/python -m tests.chaos --minutes $(CHAOS_MINUTES) --weather $(CHAOS_WEATHER) $(CHAOS_ARGS)

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy .

format: install
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

## Rebuild the on-chain whitelist program (needs Debian's clang).
program:
	$(MAKE) -C devchain/program build

## Prove the committed .so is what the source builds, byte for byte.
program-check:
	bash devchain/program/check_reproducible.sh

# Every bench writes its figures to $(BENCH_JSON_DIR); bench/summary.py then prints one table
# (issue 18's ratios beside the same run's references, each aim met or not). The KPI bench
# measures only the bonus read here (its full run builds 1,000,000 members: run it alone).
BENCH_JSON_DIR ?= /tmp/mccgw-bench
# name[:arg,arg...] each
BENCHES ?= engine webhooks_mining webhooks_pump tokens kpi:--bonus-only views access chain_node deposits idle:--warmup,95,--seconds,90 costs
bench: install
	@rm -rf $(BENCH_JSON_DIR) && mkdir -p $(BENCH_JSON_DIR)
	@for b in $(BENCHES); do m=$${b%%:*}; a=$${b#$$m}; a=$${a#:}; echo "== bench.$$m $${a//,/ }"; \
	  BENCH_JSON_DIR=$(BENCH_JSON_DIR) $(BIN)/python -m bench.$$m $${a//,/ } || exit 1; done
	@BENCH_JSON_DIR=$(BENCH_JSON_DIR) $(BIN)/python -m bench.summary

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
