// The whole system built from a config: GPU (SMs, crossbar, L2), GDDR controller, and the PM
// path: NVM controller(s) on the GPU (PM-near) or behind PCIe on the host (PM-far, optionally
// with eADR).
#pragma once
#include <memory>
#include <vector>
#include <systemc>
#include "config.h"
#include "gpu.h"
#include "mem_ctrl.h"
#include "pcie.h"
#include "persist_model.h"
#include "stats.h"

namespace persim {

class Top : public sc_core::sc_module {
public:
    Top(sc_core::sc_module_name n, const Config &c, const PersistModel *model, const persim_prog *prog,
        mem_image *backing);
    ~Top() override;
    Gpu *gpu;
    DramMc *dram;
    Pcie *pcie = nullptr;
    PmRouter *router;
    std::vector<NvmMc *> nvm;
    uint64_t period_ps;
    void set_durable_sink(DurableSink *s);
    // Follow every PM store to the persistence domain (docs/checking.md); also its durable sink.
    void set_tracker(WriteTracker *t);
    void report(StatsWriter &w, uint64_t sim_ps);
};

} // namespace persim
