# backtestd — two commands: `make run` starts the service, `make test` runs the whole suite.
# Both bootstrap a fresh machine: uv (if missing), the .venv from uv.lock, the Java engine.
SHELL := /bin/bash
VENV := .venv
UV := $(shell command -v uv 2>/dev/null || echo "python3 -m uv")
export BACKTESTD_HOST ?= 127.0.0.1
export BACKTESTD_PORT ?= 8080
export BACKTESTD_DATA_DIR ?= ./var

.PHONY: run test install install-run uv jvm bytecode lint unit bench

uv:
	@command -v uv >/dev/null 2>&1 || python3 -m uv --version >/dev/null 2>&1 || python3 -m pip install --quiet uv==0.13.9

# Everything the suite needs: run-time dependencies and the dev group (which includes the
# `sdk` group). An exact sync: it also removes what the lock no longer names.
$(VENV)/.installed: pyproject.toml uv.lock
	@$(MAKE) --no-print-directory uv
	$(UV) sync --frozen --compile-bytecode
	@touch $@ $(VENV)/.installed-run

# What `make run` needs: run-time dependencies and the official SDK (the `sdk` group), nothing
# of the dev group. `--inexact` keeps what `make test` installed in the same .venv, so a `make
# run` between two `make test`s never leaves the dev stamp above pointing at removed packages.
$(VENV)/.installed-run: pyproject.toml uv.lock
	@$(MAKE) --no-print-directory uv
	$(UV) sync --frozen --compile-bytecode --no-default-groups --group sdk --inexact
	@touch $@

# The newest official clients, beside the pinned older ones, for the two-generation journeys.
$(VENV)/next-clients/.installed: $(VENV)/.installed tests/clients-next.txt
	rm -rf $(VENV)/next-clients
	$(UV) pip install --quiet --python $(VENV)/bin/python --target $(VENV)/next-clients \
		--no-deps --require-hashes --compile-bytecode -r tests/clients-next.txt
	@touch $@

install: $(VENV)/.installed

install-run: $(VENV)/.installed-run

jvm:
	@if [ -f jvm/build.sh ]; then bash jvm/build.sh; fi

# The project's own bytecode, written ahead. Where PYTHONDONTWRITEBYTECODE is set (it is on our
# CI machines) Python never writes it, so every process (the server, each Dask worker at every
# start and restart, each CLI call) compiled the source again. compileall writes it regardless
# and skips what is up to date.
bytecode:
	@$(VENV)/bin/python -m compileall -q src

run: install-run jvm bytecode
	$(VENV)/bin/backtestd serve

lint: install
	$(VENV)/bin/ruff check src tests benchmarks
	$(VENV)/bin/ruff format --check src tests benchmarks
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

# The suite runs in TEST_PROCESSES pytest processes (pytest-xdist), a test module to a process
# (`--dist loadfile`: a module's servers and fixtures stay in one process): on two cores the e2e
# modules, mostly waiting on servers, overlap. `make test TEST_PROCESSES=0` runs serially.
TEST_PROCESSES ?= 2

test: install $(VENV)/next-clients/.installed jvm bytecode lint
	$(VENV)/bin/pytest -n $(TEST_PROCESSES) --dist loadfile

unit: install
	$(VENV)/bin/pytest tests/unit
