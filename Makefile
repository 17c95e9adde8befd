# Kuzya: `make demo` sets up .venv and runs the offline demo; `make test` runs the tests.
VENV ?= .venv
PY := $(VENV)/bin/python
KUZYA := $(VENV)/bin/kuzya
LOCOMO ?= ../shared/locomo
SCENARIOS ?= ../shared/scenarios

.PHONY: demo install install-dev test lint bench bench-scale clean

demo: install
	$(KUZYA) demo

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e .
	touch $@

install-dev: $(VENV)/.installed-dev

# torch is pinned to the CPU build (torch==2.13.0) by the sentence-transformers extra.
$(VENV)/.installed-dev: $(VENV)/.installed
	$(PY) -m pip install -q -e '.[dev,sentence-transformers]'
	touch $@

test: install-dev
	$(PY) -m pytest -q

lint: install-dev
	$(VENV)/bin/ruff check src tests
	$(VENV)/bin/ruff format --check src tests
	$(VENV)/bin/mypy

bench: install
	$(KUZYA) eval scenarios $(SCENARIOS) --mode recall --json bench-out/scenarios.json
	$(KUZYA) bench locomo $(LOCOMO)/*.json --budget-words 400 --json bench-out/locomo.json
	$(KUZYA) bench scale --episodes 100000 --json bench-out/scale.json
	$(KUZYA) bench groupchat --json bench-out/groupchat.json

clean:
	rm -rf $(VENV) bench-out build src/*.egg-info
