# RTL targets (included by the top Makefile). Uses BUILD, JOBS from there.
#   make area       Yosys synthesis of every preset under "synth" in configs/rtl_presets.json (cached
#                   per preset in $(BUILD)/synth, RTL_JOBS presets at a time), writes
#                   results/area/area.csv and area.md, then runs `make timing`'s report
#   make timing     OpenSTA on the cached netlists (synthesizes missing or stale ones), writes
#                   results/area/timing.csv, README.md and sdc/<block>.sdc
#   make coverage   Verilator line/toggle coverage of the co-simulation suite (build in $(BUILD)-cov)
#   make rtl-lint   verilator --lint-only -Wall on every block and preset
#   make cosim      only the co-simulation tests (PERSIM_SEED / PERSIM_COSIM_N from the environment)
#   make cosim-bench co-simulation speed, CSV block,preset,cycles,seconds,cycles_per_s (tb/cosim_bench.py)
#   make broi-design-space   results/area/broi_design_space.md (BROI parallel vs serial scheduler)
.PHONY: area timing coverage rtl-lint cosim cosim-bench

RTL_JOBS := $(shell j=$(JOBS); [ $$j -gt 2 ] && j=2; echo $$j)
COV_BUILD ?= $(BUILD)-cov
PY3 ?= python3

area:
	@./scripts/install-deps.sh
	$(PY3) synth/area.py --jobs $(RTL_JOBS) --work $(BUILD)/synth --out results/area
	$(PY3) synth/timing.py --jobs $(RTL_JOBS) --work $(BUILD)/synth --out results/area

timing:
	@./scripts/install-deps.sh
	$(PY3) synth/timing.py --jobs $(RTL_JOBS) --work $(BUILD)/synth --out results/area

rtl-lint:
	sh tb/lint.sh .

cosim: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(RTL_JOBS) -R cosim

COSIM_BENCH_N ?= 1000000
cosim-bench: build
	$(PY3) tb/cosim_bench.py --build $(BUILD) --cycles $(COSIM_BENCH_N)

coverage:
	@./scripts/install-deps.sh
	cmake -S . -B $(COV_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPERSIM_RTL_COVERAGE=ON
	cmake --build $(COV_BUILD) -j $(RTL_JOBS) --target $(addsuffix _cosim,$(shell $(PYTHON) synth/rtl_presets.py blocks))
	rm -rf $(COV_BUILD)/coverage && mkdir -p $(COV_BUILD)/coverage
	PERSIM_COVERAGE_DIR=$(abspath $(COV_BUILD))/coverage \
	  ctest --test-dir $(COV_BUILD) --output-on-failure -j $(RTL_JOBS) -R cosim
	$(PY3) tb/coverage_report.py $(COV_BUILD)/coverage --annotate $(COV_BUILD)/coverage/annotated

# BROI scheduler design space (parallel vs serial, SERIAL presets): area from results/area/area.csv
# (run `make area` first) beside the scheduling-latency cost measured on the C core.
.PHONY: broi-design-space
broi-design-space:
	cmake --build $(BUILD) -j $(JOBS) --target core_tests
	$(PY3) synth/broi_design_space.py --core-tests $(BUILD)/tests/core_tests --area results/area/area.csv \
	  --out results/area/broi_design_space.md
