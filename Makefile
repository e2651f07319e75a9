# Everything runs from .venv, created on first use with $(PYTHON) (3.11 or newer), with
# every dependency at the version and hashes requirements-dev.lock names (`make lock`).
# `make test` is what CI runs; `make check` is its quick part (no voice, concurrency or
# subprocess tests); `make chat` talks to the agent with no server or keys.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
PIP := $(BIN)/python -m pip --disable-pip-version-check --quiet
IMAGE ?= customer-service-agent
ARGS ?=
# Test processes: one per core (pytest-xdist); TEST_WORKERS=0 runs the tests in this one.
TEST_WORKERS ?= auto
# Work stealing: an idle worker takes tests queued on the other, so the slow voice and
# subprocess tests end up spread over both.
PYTEST := $(BIN)/pytest -q -n $(TEST_WORKERS) --dist worksteal
# The slow kinds that `make check` leaves out (tests/conftest.py marks them).
SLOW_TESTS := voice or concurrency or subprocess

.DEFAULT_GOAL := help
.PHONY: help install lock chat check test lint scenarios bench tau2 console dev start download-files \
	migrate seed-demo docker-build clean

help:
	@echo "make install         create .venv and install the project with its dev tools"
	@echo "                     (every dependency as requirements-dev.lock pins it)"
	@echo "make lock            pin every dependency again after pyproject.toml changes (needs uv)"
	@echo "make chat            talk to the agent in this terminal (stdin may be piped)"
	@echo "make check           lint, type-check and the quick tests (no voice, concurrency"
	@echo "                     or subprocess tests): about a minute, while you work"
	@echo "make test            lint, type-check and every test, on all cores (what CI runs)"
	@echo "make lint            ruff (lint and format check) and mypy only"
	@echo "make scenarios       replay scenarios.yaml offline, graded by store state (ARGS=--help)"
	@echo "make bench           benchmarks with baselines and targets (ARGS=--help)"
	@echo "make tau2            τ²-bench's retail tasks played against the agent and graded"
	@echo "                     (needs model keys; ARGS='--offline' runs without; ARGS=--help)"
	@echo "make console         talk to the agent through this machine's audio devices"
	@echo "make dev | start     register with a LiveKit server (LIVEKIT_* in .env.local)"
	@echo "make download-files  fetch the turn-detector plugin's model files (multilingual, english)"
	@echo "make migrate         bring the database (DATABASE_URL) to the latest schema"
	@echo "make seed-demo       add the demo customers and orders to the database"
	@echo "make docker-build    build the container image $(IMAGE)"
	@echo "make clean           remove .venv and caches"
	@echo "Extra arguments for the agent: make dev ARGS='--log-level debug'"

install: $(INSTALLED)

# Re-runs only when pyproject.toml or the lock changes. Progress goes to stderr, so that
# the output of `make chat` stays the conversation alone.
$(INSTALLED): pyproject.toml requirements-dev.lock
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { \
		echo "Python 3.11 or newer is needed; try: make $(MAKECMDGOALS) PYTHON=python3.11" >&2; \
		exit 1; }
	@$(BIN)/python -m pip --version >/dev/null 2>&1 || { \
		echo "Creating the virtual environment $(VENV) with $(PYTHON) ..." >&2; \
		$(PYTHON) -m venv --clear $(VENV); }
	@echo "Upgrading pip in $(VENV) ..." >&2
	@$(PIP) install --upgrade pip
	@echo "Installing LiveKit Agents, its plugins and the dev tools into $(VENV), at the" \
		"versions requirements-dev.lock pins (a minute or two the first time) ..." >&2
	@$(PIP) install --require-hashes -r requirements-dev.lock
	@echo "Installing the agent itself into $(VENV) ..." >&2
	@$(PIP) install --no-deps -e .
	@touch $@
	@echo "Installed into $(VENV)." >&2

# Both locks from pyproject.toml, for every platform and Python 3.11 or newer, with hashes
# and no index address: the image's (requirements.lock) takes the development one's versions.
LOCK := uv pip compile pyproject.toml --quiet --universal --python-version 3.11 \
	--generate-hashes --no-emit-index-url --custom-compile-command 'make lock'

lock:
	$(LOCK) --extra dev -o requirements-dev.lock
	$(LOCK) --extra postgres --constraint requirements-dev.lock -o requirements.lock

chat: install
	@$(BIN)/python src/agent.py chat $(ARGS)

lint: install
	$(BIN)/ruff check src tests examples benchmarks
	$(BIN)/ruff format --check src tests examples benchmarks
	$(BIN)/mypy

check: lint
	$(PYTEST) -m 'not ($(SLOW_TESTS))'

test: lint
	$(PYTEST)

scenarios: install
	@$(BIN)/python -m customer_service.simulation $(ARGS)

bench: install
	$(BIN)/python -m benchmarks $(ARGS)

tau2: install
	$(BIN)/python -m benchmarks.tau2 run $(ARGS)

console: install
	$(BIN)/python src/agent.py console $(ARGS)

dev: install
	$(BIN)/python src/agent.py dev $(ARGS)

start: install
	$(BIN)/python src/agent.py start $(ARGS)

download-files: install
	$(BIN)/python src/agent.py download-files

migrate: install
	$(BIN)/python src/agent.py migrate

seed-demo: install
	$(BIN)/python src/agent.py seed-demo

docker-build:
	docker build -t $(IMAGE) .

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache build dist src/*.egg-info
	find src tests -name __pycache__ -type d -prune -exec rm -rf {} +
