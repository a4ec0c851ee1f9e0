# Scoped persist barriers with NVW-FIFOs (issue 5): Figures 5, 6, 7 and Table 3 of the paper, with
# the nvwfifo model on configs/gpu_scoped_barriers_table2.json (included by the top Makefile; uses
# BUILD, PERSIM, PYTHON, JOBS from there). Output: results/scoped-barriers/{figN,table3,logging}.{csv,png},
# README.md (persim beside the paper; seeds 1-3, mean and 95% CI, verdicts by scripts/verdict.py,
# docs/figures.md). Points already run are skipped (persim sweep resume).
#   make scoped-barriers        everything (the last wall time is in results/scoped-barriers/README.md)
#   make scoped-fig5 / scoped-fig6 / scoped-fig7 / scoped-table3 / scoped-logging   one of them
#   make scoped-wgs / scoped-markers   Table 3 and Figure 5's time against Algorithm 2's workgroups /
#                                      the L2 markers in flight (issue 21)
#   make scoped-barriers SB_FORCE=1   rerun every point;   SB_JOBS=N   runs at a time
.PHONY: scoped-barriers scoped-fig5 scoped-fig6 scoped-fig7 scoped-table3 scoped-logging scoped-wgs scoped-markers

SB_OUT  ?= results/scoped-barriers
SB_JOBS ?= $(JOBS)
SB_ARGS  = --persim $(PERSIM) -j $(SB_JOBS) --out $(SB_OUT) $(if $(filter 1,$(SB_FORCE)),--force)

scoped-barriers: build
	$(PYTHON) scripts/scoped_barriers.py $(SB_ARGS)

scoped-fig5 scoped-fig6 scoped-fig7 scoped-table3 scoped-logging scoped-wgs scoped-markers: scoped-%: build
	$(PYTHON) scripts/scoped_barriers.py $(SB_ARGS) --only $*
