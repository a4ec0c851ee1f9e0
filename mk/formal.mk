# Formal targets (included by the top Makefile). Uses BUILD, JOBS from there.
#   make formal     every property of the four RTL blocks (k-induction or BMC, formal/prove.py) and every
#                   planted mutant; writes results/formal/formal.csv, mutants.csv and README.md
.PHONY: formal
FORMAL_JOBS := $(shell j=$(JOBS); [ $$j -gt 2 ] && j=2; echo $$j)

formal:
	@./scripts/install-deps.sh
	$(PYTHON) formal/prove.py --mutants --props --jobs $(FORMAL_JOBS) --work $(BUILD)/formal/all \
	  --write-results results/formal
