// The GPU system (system.kind = gpu): SMs, crossbar and L2 (Gpu), the GDDR controller and the PM
// path: NVM controller(s) on the GPU (PM-near) or behind PCIe on the host (PM-far, optionally
// with eADR). One implementation of the System interface (system.h).
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
#include "system.h"

namespace persim {

class GpuSystem : public sc_core::sc_module, public System {
public:
    GpuSystem(sc_core::sc_module_name n, const Config &c, const PersistModel *model, const persim_prog *prog,
              mem_image *backing);

    static const SystemKind kind;

    // System
    bool finished() const override { return gpu->finished(); }
    uint64_t finish_ps() const override { return gpu->finish_ps(); }
    uint64_t period_ps() const override { return period_ps_; }
    uint64_t instructions() const override { return gpu->instructions(); }
    std::string progress_line() const override { return gpu->progress_line(); }
    std::string describe_stuck() const override { return gpu->describe_stuck() + pm->describe_stuck(); }
    void set_durable_sink(DurableSink *s) override;
    void set_tracker(WriteTracker *t) override;
    void set_log(std::FILE *f, uint32_t block, uint32_t warp) override;
    void trace(sc_core::sc_trace_file *tf) override;
    void drain_functional(mem_image *img) override { gpu->drain_functional(img); }
    void report(StatsWriter &w, uint64_t sim_ps) override;

    // Owned (a constructor that throws half-way frees what it built).
    std::unique_ptr<Gpu> gpu;
    std::unique_ptr<MemCtrl> dram;
    std::unique_ptr<Pcie> pcie;
    std::unique_ptr<PmControllers> pm;

private:
    uint64_t period_ps_;
    void summarize(StatsWriter &w, uint64_t sim_ps) const;
};

} // namespace persim
