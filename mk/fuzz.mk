# Fuzzing (included by the top Makefile; docs/testing.md "Fuzzing").
#   make fuzz        libFuzzer harnesses (clang, ASan+UBSan) in build-fuzz/, each target fuzzed FUZZ_SECONDS (default 60) from fuzz/corpus/
#                    (FUZZ_TARGETS="config set trace raw sweep accelsim" selects); prints executions, time, crashes; exit 1 on any finding
.PHONY: fuzz
FUZZ_SECONDS ?= 60
FUZZ_BUILD   ?= build-fuzz
FUZZ_TARGETS ?= config set trace raw sweep accelsim

fuzz:
	@./scripts/install-deps.sh fuzz
	@test -f $(FUZZ_BUILD)/CMakeCache.txt || cmake -S . -B $(FUZZ_BUILD) -G Ninja -DCMAKE_C_COMPILER=clang \
	  -DCMAKE_CXX_COMPILER=clang++ -DPERSIM_FUZZ=ON -DPERSIM_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target persim_fuzz
	$(PYTHON) scripts/fuzz.py --build $(FUZZ_BUILD) --seconds $(FUZZ_SECONDS) $(FUZZ_TARGETS)
