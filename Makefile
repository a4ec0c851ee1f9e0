# persim front door. `make demo` and `make test` work on a fresh Debian 12 machine.
#   make demo        install what the persim binary needs, build only it, run the main demo (first result)
#   make test        install everything, build, run every test through ctest (SAN=1: ASan+UBSan)
#   make help        this list (every target of this Makefile and mk/*.mk)
#   make install     persim, configs, docs, man page, bash completion under PREFIX (default /usr/local)
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

.PHONY: all deps deps-min configure build install test test-fast golden-compare demo bench clean help

# Extra targets from other areas (rtl/area/coverage, figures ...)
-include mk/*.mk
all: build

# Every target's one-line description: the "#   make X  ..." lines of this file and of mk/*.mk.
help:
	@grep -h '^#   make ' Makefile mk/*.mk | sed 's/^#   //' 

deps:
	@./scripts/install-deps.sh

# What `make demo` needs: the persim binary's build dependencies and matplotlib (no googletest,
# Verilator, Yosys, Valgrind or PMDK; `make test` installs those).
deps-min:
	@./scripts/install-deps.sh minimal

$(BUILD)/build.ninja: CMakeLists.txt | deps
	cmake -S . -B $(BUILD) -G Ninja $(CMFLAGS)

# Always (cheap): a build tree first configured by `make demo` (PERSIM_TESTS=OFF) gets its tests.
configure: deps $(BUILD)/build.ninja
	@grep -q '^PERSIM_TESTS:BOOL=ON' $(BUILD)/CMakeCache.txt || cmake -S . -B $(BUILD) -G Ninja $(CMFLAGS) -DPERSIM_TESTS=ON

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

# The first result: installs only what the persim binary needs, builds only it (a tree already
# configured with the tests keeps them), runs the demo.
demo: deps-min
	@test -f $(BUILD)/CMakeCache.txt || cmake -S . -B $(BUILD) -G Ninja $(CMFLAGS) -DPERSIM_TESTS=OFF
	cmake --build $(BUILD) -j $(JOBS) --target persim
	$(PYTHON) scripts/demo.py --persim $(PERSIM) --out results/demo

bench: build
	$(PYTHON) scripts/bench.py --persim $(PERSIM) $(BENCH_ARGS)

# Installs persim, its configs, docs, man page and bash completion under PREFIX (default /usr/local).
PREFIX ?= /usr/local
install: deps-min
	@test -f $(BUILD)/CMakeCache.txt || cmake -S . -B $(BUILD) -G Ninja $(CMFLAGS) -DPERSIM_TESTS=OFF
	cmake -S . -B $(BUILD) -G Ninja >/dev/null
	cmake --build $(BUILD) -j $(JOBS) --target persim
	-cmake --build $(BUILD) --target persim_man
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf build build-san
