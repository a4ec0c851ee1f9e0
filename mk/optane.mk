# The Optane-class PM device (nvm.device = pm_dimm) against the published measurements (included by
# the top Makefile; uses BUILD, PERSIM, PYTHON from there).
#   make figures-optane   persim device on configs/nvm_optane_dcpmm.json and its two ablations (no
#                         on-DIMM buffer, no AIT cache), then results/optane/README.md and optane.png
#                         (every published figure of configs/validation/optane_dcpmm.json beside
#                         persim's, with the rule's verdict); about half a minute
.PHONY: figures-optane
figures-optane: build
	$(PYTHON) scripts/optane_figures.py --persim $(PERSIM) --out results/optane
