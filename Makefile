# persim front door. `make demo` and `make test` work on a fresh Debian 12 machine.
#   make demo        install missing Debian packages, build, run the main demo
#   make test        install missing packages, build, run every test through ctest (SAN=1: ASan+UBSan)
#   make bench       simulation speed for a fixed set of runs
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

.PHONY: all deps configure build test demo bench clean help

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

demo: build
	$(PYTHON) scripts/demo.py --persim $(PERSIM) --out results/demo

bench: build
	$(PYTHON) scripts/bench.py --persim $(PERSIM)

clean:
	rm -rf build build-san
