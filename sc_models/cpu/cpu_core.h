// One core of the cpu system (docs/models/lightwsp.md, docs/architecture.md "The cpu side"): replays
// one hardware thread's op stream (workloads/op.h) with compute gaps at cpu.width instructions per
// cycle, at most cpu.max_loads outstanding loads, a store buffer of cpu.sb_entries and a private L1
// (tag-only cache core, shared by the core's hardware threads), and calls its persist path
// (persist_path.h) for what a store, load, ordering op or region boundary does beyond the caches:
// the checkpoint and PC stores at the region boundaries that region formation
// (workloads/region_form.h) placed go through the same store path.
// Values live in the system's functional image (loads of lock flags read it); the persistent
// state is what the path delivers.
#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <queue>
#include <string>
#include <vector>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include "cpu_cfg.h"
#include "cpu_mem.h"
#include "persist_path.h"
#include "stats.h"
extern "C" {
#include "cache.h"
#include "mem_image.h"
#include "op.h"
#include "region_form.h"
}

namespace persim {

// What a core needs from its system (CpuSystem).
class CpuCoreHost {
public:
    virtual ~CpuCoreHost() = default;
    virtual const persim_prog *prog() const = 0;
    virtual void functional_store(uint64_t addr, const uint8_t *data, uint32_t bytes) = 0;
    virtual void functional_load(uint64_t addr, uint64_t *v, uint32_t bytes) const = 0;
    virtual void wait_flag(uint64_t addr, class CpuCore *c) = 0;    // wake c when addr is written
    virtual uint64_t barrier_arrive() = 0;                           // returns the barrier's generation
    virtual bool barrier_passed(uint64_t gen) const = 0;
    virtual void thread_done(class CpuCore *c) = 0;
    virtual void warm_line(uint64_t line) = 0;                       // sim.warmup: an L1 miss below
};

class CpuCore : public sc_core::sc_module, public CpuPathHost {
public:
    tlm_utils::simple_initiator_socket<CpuCore> l2_isock;
    SC_HAS_PROCESS(CpuCore);
    // remote = an RDMA channel of a remote client (BROI V): no caches; its path crosses the network;
    // requester id kRemoteRequester + channel.
    CpuCore(sc_core::sc_module_name n, uint32_t id, const CpuCfg &c, CpuPersistence &persistence, PmControllers &pm,
            CpuCoreHost &sys, std::shared_ptr<L1Port> l1, bool remote = false);
    ~CpuCore() override { region_plan_free(&plan_); }

    // Starts running ops [begin, end) of the program (one kernel's stream) with its region plan.
    void start(uint64_t begin, uint64_t end, uint32_t thread);
    bool running() const { return running_; }
    // Nothing of this thread's left to persist.
    bool path_idle() const { return path_->idle(); }
    void trace(sc_core::sc_trace_file *tf) { path_->trace(tf, name()); }   // --vcd: its persist path's signals
    void wake() { ev_.notify(sc_core::SC_ZERO_TIME); }
    void wake_at(uint64_t t) { ev_.notify(t > now_ps() ? ps(t - now_ps()) : sc_core::SC_ZERO_TIME); }
    void power_off();
    // Inclusion: drop the line from the L1; true if it was dirty.
    bool invalidate(uint64_t line);
    // Functional warming (sim.warmup): the line of `addr` into this core's L1 and, on a miss, the
    // L2 and DRAM cache below (tags and LRU only, installed clean); no time, no statistics, no
    // persist path. RDMA channels have no caches.
    void warm(uint64_t addr);
    uint64_t instructions() const { return st_.instr; }
    // Sampling (sim.sample_period_instructions): each detailed window's cycles per instruction and
    // persist-path stall cycles per instruction, and the instructions run functionally.
    struct Window { double cpi, persist_stall_cpi; };
    const std::vector<Window> &windows() const { return windows_; }
    uint64_t functional_instructions() const { return func_instr_; }
    uint64_t finish_ps() const { return finish_ps_; }
    std::string describe() const;
    void report(StatsWriter &w, uint64_t sim_ps) const;

    // CpuPathHost
    void wake_if(uint32_t waits, uint64_t at) override;

private:
    void step();
    void run_ahead();
    bool sample_step();          // sampling: true = the op at pc_ was handled (functionally)
    void open_window(uint64_t t);
    void close_window(uint64_t t);
    uint64_t persist_stall_ps() const;
    bool exec(const persim_op &op, uint64_t t);
    bool store(uint64_t addr, uint32_t bytes, const uint8_t *data, uint64_t t);
    bool boundary_store(uint64_t t);
    int64_t l1_access(uint64_t addr, bool write, uint64_t t);   // completion time, -1: wait (victim)
    void stall(CpuWait w, uint64_t until);
    void stall(const PathStall &s) { stall(s.wait, s.until); }
    void done();

    uint32_t id_;
    bool remote_ = false;
    const CpuCfg &cfg_;
    CpuCoreHost &sys_;
    std::shared_ptr<L1Port> l1_;      // this thread's core's L1 (shared by its hardware threads)
    uint32_t lb_;
    sc_core::sc_event ev_;
    LineReq req_;                   // its L1 misses and write-backs to the L2
    std::unique_ptr<CpuPersistPath> path_;

    // program
    const persim_op *ops_ = nullptr;
    uint64_t pc_ = 0, end_ = 0, begin_ = 0;
    uint32_t thread_ = 0;
    bool running_ = false, off_ = false;
    region_plan plan_{};
    size_t next_bd_ = 0;
    uint32_t bd_left_ = 0;          // checkpoint + PC stores still to emit at the current boundary
    bool bd_active_ = false;
    // timing
    uint64_t t_ = 0;                // local issue time (>= now)
    std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<uint64_t>> loads_;
    std::deque<uint64_t> sb_;       // store-buffer slots: when each drains into the L1
    CpuWait wait_ = CpuWait::NONE;
    uint64_t wait_since_ = 0;
    uint64_t finish_ps_ = 0;
    uint32_t lane_ = 0;             // next lane of a vector store that stalled
    bool barrier_waiting_ = false;
    uint64_t barrier_gen_ = 0;
    // sampling
    bool func_ = false;             // in the functional part of a period
    uint64_t period_pos_ = 0;       // instructions of the current period so far
    uint64_t win_t_ = 0, win_instr_ = 0, win_stall_ = 0;
    uint64_t func_instr_ = 0;
    std::vector<Window> windows_;
    // statistics
    struct {
        uint64_t instr = 0, ckpt_instr = 0, loads = 0, stores = 0, l1_read_misses = 0, l1_write_misses = 0;
        uint64_t l1_writebacks = 0, regions = 0, ckpt_stores = 0, pc_stores = 0;
        uint64_t lock_spins = 0;
        uint64_t wait_ps[kCpuWaits] = {0};
    } st_;
};

} // namespace persim
