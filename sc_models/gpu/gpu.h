// The GPU: SMs, crossbar and L2, plus the kernel/block dispatcher, the table of release flags
// (visibility of released values per scope) and grid-wide barriers.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>
#include <systemc>
#include "config.h"
#include "gpu_cfg.h"
#include "interconnect.h"
#include "l2.h"
#include "persist_model.h"
#include "sm.h"
#include "stats.h"
extern "C" {
#include "op.h"
#include "mem_image.h"
}

namespace persim {

class Gpu : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(Gpu);
    Gpu(sc_core::sc_module_name n, const Config &c, const PersistModel *model, const persim_prog *prog,
        mem_image *backing);
    ~Gpu() override;

    std::vector<Sm *> sms;
    Interconnect *icnt;
    L2 *l2;
    PersistHw &persist() { return *hw_; }   // the persistency model's GPU-wide hardware

    // From SMs.
    void block_done(int sm, uint64_t t);
    void sm_drained(int sm, uint64_t t);
    void publish_flag(uint64_t addr, uint32_t elem, uint64_t val, int sm, persim_scope scope, uint64_t t);
    // True if the flag holds `val` visibly for `sm` at `scope` at time t. Otherwise *vis is the
    // time the awaited value becomes visible if it has been published, else UINT64_MAX.
    bool flag_check(uint64_t addr, uint32_t elem, uint64_t val, int sm, persim_scope scope, uint64_t t, uint64_t *vis);
    void add_flag_waiter(uint64_t addr, int sm);
    void grid_arrive(uint64_t t);
    void grid_recheck(uint64_t t);
    // Every block of the running kernel is resident on an SM (a kernel-wide barrier can complete).
    bool kernel_resident() const;
    uint32_t unfinished_warps() const;

    uint64_t period_ps() const { return g_.period_ps; }
    const GpuCfg &cfg() const { return g_; }
    bool finished() const { return finished_; }
    uint64_t finish_ps() const { return finish_ps_; }
    uint32_t kernel_index() const { return kernel_; }
    const persim_prog *prog() const { return prog_; }
    std::string describe_stuck() const;
    std::string progress_line() const;
    void report(StatsWriter &w, uint64_t sim_ps);
    uint64_t instructions() const;
    void drain_functional(mem_image *img);
    void set_tracker(WriteTracker *t);

private:
    void launch_method();
    void dispatch(uint64_t t);
    struct Flag { uint64_t val = 0; int sm = -1; uint64_t t_local = 0, t_global = 0; };
    Flag &flag(uint64_t addr, uint32_t elem);

    GpuCfg g_;
    const persim_prog *prog_;
    mem_image *backing_;
    uint32_t kernel_ = 0, next_block_ = 0, blocks_done_ = 0, drained_ = 0, rr_ = 0;
    uint32_t grid_arrived_ = 0;
    bool finished_ = false, draining_ = false;
    uint64_t finish_ps_ = 0, launch_gap_ps_, l1_ps_, l2_ps_;
    sc_core::sc_event launch_ev_;
    std::map<uint64_t, Flag> flags_;
    std::map<uint64_t, std::vector<int>> waiters_;
    std::vector<uint64_t> kernel_ps_;
    uint64_t kernel_start_ps_ = 0, launched_at_host_ = 0;
    WriteTracker *tracker_ = nullptr;
    std::unique_ptr<PersistHw> hw_own_;
    PersistHw *hw_;
};

} // namespace persim
