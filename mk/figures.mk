# SBRP evaluation figures (included by the top Makefile; uses BUILD, PERSIM, PYTHON, JOBS from there).
#   make figures          run every sweep in configs/experiments/sbrp/ (points whose results exist
#                         and are newer than the persim binary are skipped) and redraw results/sbrp/:
#                         figN.csv, figN.png, README.md (persim beside the paper's numbers): input
#                         seeds 1-3 per spec, mean and 95% CI per number, verdicts by the rule of
#                         scripts/verdict.py (docs/figures.md); the wall time goes into timing.json
#                         and the README
#   make figures FORCE=1  rerun every point;  FIG_JOBS=N  runs at a time (default: JOBS = cores)
#   make figures-plot     only redraw from the existing sweep CSVs
#   (window_far.json, issue 21: SBRP-far/near over epoch against persist.window 4-48, 132 runs)
.PHONY: figures figures-plot

FIG_OUT  ?= results/sbrp
FIG_JOBS ?= $(JOBS)

figures: build
	$(PYTHON) scripts/sbrp_figures.py --persim $(PERSIM) -j $(FIG_JOBS) --out $(FIG_OUT) $(if $(filter 1,$(FORCE)),--force)

figures-plot:
	$(PYTHON) scripts/sbrp_figures.py --persim $(PERSIM) --no-run --out $(FIG_OUT)

# LightWSP evaluation (section V: Figures 7, 8, 9, 11, 12, 13, 15, 16, 17, Table II) on the cpu system:
# specs in configs/experiments/lightwsp/, raw sweeps in results/lightwsp/raw/, figN.csv/png and README.md
# in results/lightwsp/ (seeds 1-3, mean and 95% CI, verdicts by scripts/verdict.py; docs/figures.md).
#   make figures-lightwsp             run the sweeps (points already run are skipped) and redraw
#   make figures-lightwsp LW_FORCE=1  rerun every point;  LW_JOBS=N  runs at a time (default 1)
.PHONY: figures-lightwsp
LW_OUT  ?= results/lightwsp
LW_JOBS ?= 1

figures-lightwsp: build
	$(PYTHON) scripts/lightwsp_figures.py --persim $(PERSIM) -j $(LW_JOBS) --out $(LW_OUT) $(if $(filter 1,$(LW_FORCE)),--force)

# BROI evaluation (section VII: Figures 9-13) on the cpu system: specs in configs/experiments/broi/,
# raw sweeps in results/broi/raw/, figN.csv/png and README.md in results/broi/ (small sizes, seeds 1-2,
# mean and 95% CI, verdicts by scripts/verdict.py; docs/figures.md). Figure 10 comes from Figure 9's runs.
#   make figures-broi               run the sweeps (points already run are skipped) and redraw
#   make figures-broi BROI_FORCE=1  rerun every point;  BROI_JOBS=N  runs at a time (default 1)
.PHONY: figures-broi
BROI_OUT  ?= results/broi
BROI_JOBS ?= 1

figures-broi: build
	$(PYTHON) scripts/broi_figures.py --persim $(PERSIM) -j $(BROI_JOBS) --out $(BROI_OUT) $(if $(filter 1,$(BROI_FORCE)),--force)

# AGPM evaluation (Figure 3, Table II, Figure 7) on the gpu system: specs in configs/experiments/agpm/,
# raw sweeps in results/agpm/raw/, fig3/fig7/sens.csv/png, table2.csv and README.md in results/agpm/
# (scripts/agpm_figures.py; verdicts by scripts/verdict.py; docs/workloads-agpm.md).
#   make figures-agpm                 run the sweeps (points already run are skipped) and redraw
#   make figures-agpm AGPM_FORCE=1    rerun every point;  AGPM_JOBS=N  runs at a time (default 1)
#   make figures-agpm AGPM_ARGS='--config configs/gpu_small.json --size small --model-map static-nt=epoch,...'
#                                     a quick check of the pipeline with other models (see the script's help)
.PHONY: figures-agpm
AGPM_OUT  ?= results/agpm
AGPM_JOBS ?= 1
AGPM_ARGS ?=

figures-agpm: build
	$(PYTHON) scripts/agpm_figures.py --persim $(PERSIM) -j $(AGPM_JOBS) --out $(AGPM_OUT) $(if $(filter 1,$(AGPM_FORCE)),--force) $(AGPM_ARGS)

# Every GPU persistency model on every GPU workload (issue 15, "one matrix"): results/matrix/matrix.csv,
# matrix.png (time over a no-persistence run, crash-recovery marks) and README.md (scripts/gpu_matrix.py).
#   make figures-matrix                    small sizes on configs/gpu_small.json, 8 crash points per pair
#   make figures-matrix MATRIX_FORCE=1     rerun everything;  MATRIX_JOBS=N  runs at a time (default JOBS)
#   make figures-matrix MATRIX_ARGS='--size default --crash-points 50'
.PHONY: figures-matrix
MATRIX_OUT  ?= results/matrix
MATRIX_JOBS ?= $(JOBS)
MATRIX_ARGS ?=

figures-matrix: build
	$(PYTHON) scripts/gpu_matrix.py --persim $(PERSIM) -j $(MATRIX_JOBS) --out $(MATRIX_OUT) $(if $(filter 1,$(MATRIX_FORCE)),--force) $(MATRIX_ARGS)

# Every paper's evaluation in one command (issue 23; scripts/figures_all.py, docs/figures.md): SBRP,
# scoped barriers, AGPM, LightWSP, BROI one after the other on one pool of JOBS runs at a time, with
# overall progress (points done / to run, ETA). Resumable: points already run are skipped, and an
# evaluation recorded as finished with nothing left to run is skipped whole. Each evaluation's wall
# time goes into its README (timing.json) and, with the total, into results/figures-all.json.
#   make figures-all                   the quick tier (today's sizes; what CI runs)
#   make figures-all TIER=paper        paper-like scale where a script defines it (its TIERS table)
#   make figures-all-plan              count the points still to run and estimate the time; run nothing
#   make figures-all FIGALL_ARGS='--only lightwsp --with-real --redraw --force --evals-at-once 2 -v'
#                                      (see the script's help)
.PHONY: figures-all figures-all-plan
TIER        ?= quick
FIGALL_JOBS ?= $(JOBS)
FIGALL_ARGS ?=

figures-all: build
	$(PYTHON) scripts/figures_all.py --persim $(PERSIM) -j $(FIGALL_JOBS) --tier $(TIER) $(FIGALL_ARGS)

figures-all-plan: build
	$(PYTHON) scripts/figures_all.py --persim $(PERSIM) -j $(FIGALL_JOBS) --tier $(TIER) --dry-run $(FIGALL_ARGS)
