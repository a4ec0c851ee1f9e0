// The cpu system (system.kind = cpu; docs/models/lightwsp.md): trace-driven cores with private
// L1s (CpuCore), the shared inclusive L2 (CpuL2), a DRAM cache in front of PM (DramCache, with a
// DRAM-timed MemCtrl behind it), and the PM controllers every system builds (PmControllers, with
// the front end the persistency model needs). The persistency model (cpu_model.h) makes each core's
// persist path (persist_path.h), which decides what a store, an ordering op and a region boundary
// do beyond the caches. One implementation of System.
#pragma once
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>
#include <systemc>
#include "config.h"
#include "cpu_cfg.h"
#include "cpu_core.h"
#include "cpu_mem.h"
#include "cpu_model.h"
#include "mem_ctrl.h"
#include "persist_path.h"
#include "stats.h"
#include "system.h"

namespace persim {

class CpuSystem : public sc_core::sc_module, public System, public CpuCoreHost {
public:
    SC_HAS_PROCESS(CpuSystem);
    CpuSystem(sc_core::sc_module_name n, const Config &c, const CpuModel &m, const persim_prog *prog, mem_image *backing);
    ~CpuSystem() override;
    static const SystemKind kind;

    // System
    bool finished() const override;
    uint64_t finish_ps() const override { return exec_done_ps_; }
    uint64_t period_ps() const override { return cfg_.period_ps; }
    uint64_t instructions() const override;
    std::string progress_line() const override;
    std::string describe_stuck() const override;
    bool power_failed() const override { return power_failed_; }
    void set_durable_sink(DurableSink *s) override;
    void set_tracker(WriteTracker *t) override { set_durable_sink(t); }
    void drain_functional(mem_image *) override {}     // the functional image is the backing image
    void report(StatsWriter &w, uint64_t sim_ps) override;
    // VCD (persim run --vcd): the PM controllers' write queues (wpq_gate: occupancy, flush region).
    void trace(sc_core::sc_trace_file *tf) override;
    void set_crash_select(const CrashSelect &s) override { sel_ = s; has_sel_ = true; }

    // ---- what the cores use (CpuCoreHost) ----
    const persim_prog *prog() const override { return prog_; }
    void functional_store(uint64_t addr, const uint8_t *data, uint32_t bytes) override;
    void functional_load(uint64_t addr, uint64_t *v, uint32_t bytes) const override;
    void wait_flag(uint64_t addr, CpuCore *c) override { waiters_[addr].push_back(c); }
    uint64_t barrier_arrive() override;
    bool barrier_passed(uint64_t gen) const override { return barrier_gen_ > gen; }
    void thread_done(CpuCore *c) override;
    // Functional warming (sim.warmup): an L1 miss of `line` during the warm-up replay.
    void warm_line(uint64_t line) override { l2_->warm(line); }

private:
    void start_kernel();
    void warm_up();
    void skip_prefixes();
    void power_fail_method();
    Config cc_;                      // the run's configuration (the model's front-end settings are typed: CpuModel::front_end)
    CpuCfg cfg_;
    const CpuModel &model_;
    const persim_prog *prog_;
    mem_image *img_;                 // functional memory (the run's image)
    std::unique_ptr<CpuPersistence> persistence_;   // the model's (made before any module: it checks the config)
    std::unique_ptr<mem_image, void (*)(mem_image *)> pm_img_;   // what the controllers' devices hold
    std::unique_ptr<PmControllers> pm_;
    std::unique_ptr<MemCtrl> dram_;
    std::unique_ptr<DramCache> dc_;
    std::unique_ptr<CpuL2> l2_;
    std::vector<std::unique_ptr<CpuCore>> cores_;
    bool check_done_ = false;
    CrashSelect sel_;                // persim crash's image choice (has_sel_)
    bool has_sel_ = false;
    struct Tee : DurableSink {      // the model's crash checker first, then the run's observer
        DurableSink *a = nullptr, *b = nullptr;
        void on_durable(uint64_t, uint64_t, const uint8_t *, const uint64_t *, uint32_t, int) override {}
        void on_durable_ids(uint64_t at, uint64_t addr, const uint8_t *d, const uint64_t *m, uint32_t lb, int r,
                            const uint32_t *w) override
        {
            if (a) a->on_durable_ids(at, addr, d, m, lb, r, w);
            if (b) b->on_durable_ids(at, addr, d, m, lb, r, w);
        }
    } tee_;
    std::unordered_map<uint64_t, std::vector<CpuCore *>> waiters_;
    uint32_t kernel_ = 0, running_threads_ = 0, kernel_threads_ = 0;
    uint64_t barrier_count_ = 0, barrier_gen_ = 0;
    bool all_done_ = false, power_failed_ = false;
    uint64_t exec_done_ps_ = 0, power_fail_at_ = 0;
    uint64_t warm_accesses_ = 0, warm_ops_ = 0;     // sim.warmup: line accesses and ops replayed
    std::vector<uint64_t> starts_;                  // sim.fastforward/warmup_instructions: each stream's first timed op
    uint64_t ff_done_ = 0, fw_done_ = 0;            // instructions fast-forwarded / functionally warmed
    sc_core::sc_event start_ev_, pf_ev_;
};

} // namespace persim
