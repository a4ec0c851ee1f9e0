# Real programs on the cpu system (docs/real-programs.md): record PMDK programs and sqlite3 with
# `persim trace-program` (persim-vgtrace) and repeat the LightWSP (Figure 7) and BROI (Figures
# 9/10) headline comparisons on the traces: results/real-programs/{lightwsp,broi,runs}.csv + PNGs.
#   make figures-real              record (traces already recorded are reused) and run
#   make figures-real REAL_FORCE=1 re-record and rerun everything
.PHONY: figures-real
figures-real: build
	cmake --build $(BUILD) -j$(JOBS) --target persim-vgtrace pmdk_ds
	$(PYTHON) scripts/real_programs.py --persim $(PERSIM) $(if $(filter 1,$(REAL_FORCE)),--force)
