# persim front door. `make demo` and `make test` work on a fresh Debian 12 machine.
#   make demo        install missing Debian packages, build, run the main demo
#   make test        install missing packages, build, run every test through ctest (SAN=1: ASan+UBSan)
#   make test-fast   build, run the quick tier only (ctest -L fast: cores, workloads, CLI basics)
#   make bench       simulation speed, every part side by side with a baseline revision (results/bench/README.md)
#   make figures-all every paper's evaluation, resumable, with progress (TIER=quick|paper; docs/figures.md)
#   make build       just build (SAN=1 for the sanitizer build in build-san/)
SHELL   := /bin/bash
.DEFAULT_GOAL := all
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
SAN     ?= 0
ifeq ($(SAN),1)
BUILD   ?= build-san
CMFLAGS := -DPERSIM_SAN=ON -DCMAKE_BUILD_TYPE=Debug
else
BUILD   ?= build
CMFLAGS := -DCMAKE_BUILD_TYPE=RelWithDebInfo
endif
PERSIM  := $(BUILD)/persim
# Debian's python3 has python3-matplotlib (installed by scripts/install-deps.sh).
PYTHON  ?= $(shell test -x /usr/bin/python3 && echo /usr/bin/python3 || echo python3)

.PHONY: all deps configure build test test-fast golden-compare demo bench clean help

# Extra targets from other areas (rtl/area/coverage, figures ...)
-include mk/*.mk
all: build

help:
	@sed -n '1,7p' Makefile

deps:
	@./scripts/install-deps.sh

$(BUILD)/build.ninja: CMakeLists.txt | deps
	cmake -S . -B $(BUILD) -G Ninja $(CMFLAGS)

configure: deps $(BUILD)/build.ninja

build: configure
	cmake --build $(BUILD) -j $(JOBS)

test: build
	ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=0 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# The quick tier (label `fast`); `make test` runs every test (label `full`). Builds only what the
# quick tier needs (target persim_fast_tests: no Verilator models).
test-fast: configure
	cmake --build $(BUILD) -j $(JOBS) --target persim_fast_tests
	ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=0 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -L fast

# Golden GPU stats alone (also ctest golden.gpu_stats): every figure of tests/golden/gpu_stats.json.
golden-compare: build
	$(PYTHON) scripts/golden.py --compare -j $(JOBS) --persim $(PERSIM)

demo: build
	$(PYTHON) scripts/demo.py --persim $(PERSIM) --out results/demo

bench: build
	$(PYTHON) scripts/bench.py --persim $(PERSIM) $(BENCH_ARGS)

clean:
	rm -rf build build-san
