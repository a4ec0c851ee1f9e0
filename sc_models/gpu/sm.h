// Streaming multiprocessor: resident thread blocks' warps, warp schedulers issuing one op per
// cycle each (loose round robin), and the execution of every op and lowered primitive against
// its L1. Event driven: the SM method runs only when a warp can issue or something it waits for
// happens (memory data, PB stall release, ack, flag release, barrier).
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>
#include <systemc>
#include "config.h"
#include "gpu_cfg.h"
#include "l1.h"
#include "persist_model.h"
#include "stats.h"
extern "C" {
#include "op.h"
}

namespace persim {

class Gpu;

// What a stalled warp waits for. PB: the L1's persist unit (its stalled() bit); PERSIST: the
// persistency model's GPU-wide hardware (it resumes the warp, e.g. an NVW-FIFO barrier's ack).
enum class Wait : uint8_t { NONE, PB, TICKET, FLAG, SYNC, DONE, PERSIST };
enum StallReason : uint8_t { ST_MEM = 0, ST_EDM, ST_ODM, ST_PB_FULL, ST_BARRIER, ST_ACQUIRE, ST_SYNC, ST__COUNT };

struct WarpCtx {
    bool active = false;
    uint32_t slot = 0;               // hardware warp id in this SM (PB warp bit)
    uint32_t block_slot = 0;         // resident block index in this SM
    uint32_t block = 0, warp = 0;    // ids in the kernel
    const persim_op *pc = nullptr, *end = nullptr;
    const persim_op *begin = nullptr, *last_reported = nullptr;   // stream start; op last reported complete
    Wait wait = Wait::NONE;
    uint8_t reason = ST_MEM;
    uint64_t ready_ps = 0, wait_since = 0;
    uint64_t ticket = 0;
    uint8_t after_ticket = 0;        // 0 none, 1 invalidate PM lines, 2 invalidate all
    Prim prims[4];
    uint8_t nprims = 0, pi = 0;
    uint8_t lines_done = 0;          // progress inside a multi-line memory op
    uint64_t mem_ready = 0;          // completion of the lines already done
    uint64_t flag_addr = 0;
    uint8_t persist_tag = 0;         // Wait::PERSIST: what the model's hardware will wake it for
};

struct BlockCtx {
    bool active = false;
    uint32_t block = 0;
    uint32_t live = 0, arrived = 0;  // warps not finished; warps waiting at a block sync
    uint32_t persist_arrived = 0;    // warps waiting at a block-wide primitive of the persistency model
    std::vector<uint32_t> slots;
};

class Sm : public sc_core::sc_module, public L1Client {
public:
    SC_HAS_PROCESS(Sm);
    Sm(sc_core::sc_module_name n, const GpuCfg &g, const Config &c, int id, const PersistModel *model, Gpu *gpu);
    ~Sm() override;

    L1 *l1;
    bool can_accept(uint32_t warps) const;
    void launch_block(const persim_prog *p, const persim_kernel *k, uint32_t block);
    // Kernel-end drain: everything written back and acknowledged, L1 invalidated.
    void begin_drain();
    bool drained() const { return drain_state_ == 0; }
    // Gpu callbacks.
    void wake_flag_waiters(uint64_t flag, uint64_t at_ps);
    void release_grid_sync(uint64_t at_ps);
    // L1Client.
    void on_pb_change(uint64_t stalled) override;
    void on_ticket_progress() override;

    // ---- primitive execution helpers (for the persistency model's hardware, persist_model.h) ----
    void advance_prim(WarpCtx &w);                       // the primitive took effect
    void stall(WarpCtx &w, Wait what, uint8_t reason, uint64_t t);
    void resume(WarpCtx &w, uint64_t at);                // the warp may go on at `at`
    uint64_t period_ps() const { return period_ps_; }
    int id() const { return id_; }
    std::vector<WarpCtx> &warps() { return warps_; }
    std::vector<BlockCtx> &blocks() { return blocks_; }
    void check_drain();                                  // re-evaluate the kernel-end drain
    void set_persist_hw(PersistHw *h) { hw_ = h; l1->set_persist_hw(h); }
    void report(StatsWriter &w, uint64_t sim_ps);
    std::string describe_stuck() const;
    uint64_t instructions() const { return st_.instructions; }
    bool busy() const;
    // Per-op timeline of one (block, warp) of every kernel to `f` (persim run --log-warp).
    void set_log(std::FILE *f, uint32_t block, uint32_t warp) { log_ = f; log_block_ = block; log_warp_ = warp; }
    uint32_t unfinished_warps() const { return (uint32_t)warps_.size() - free_slots_; }
    // Data-path tracking (docs/checking.md): op completions here, stores and flushes in the L1.
    void set_tracker(WriteTracker *t) { tracker_ = t; l1->set_tracker(t); }

private:
    void run();
    void kick(uint64_t at_ps);
    bool step(WarpCtx &w, uint64_t t, uint64_t &sched_cycles);
    bool exec_mem(WarpCtx &w, const persim_op &op, uint64_t t);
    bool exec_prim(WarpCtx &w, Prim p, const persim_op &op, uint64_t t);
    void finish_warp(WarpCtx &w, uint64_t t);
    void check_block_sync(BlockCtx &b, uint64_t t);

    void log_step(const WarpCtx &w, uint64_t t, const char *what);
    std::FILE *log_ = nullptr;
    WriteTracker *tracker_ = nullptr;
    uint32_t log_block_ = 0, log_warp_ = 0;
    int id_;
    Gpu *gpu_;
    const PersistModel *model_;
    PersistHw *hw_;
    const persim_prog *prog_ = nullptr;
    uint64_t period_ps_, l1_hit_ps_, l2_rt_ps_;
    uint32_t line_bytes_, nsched_, max_blocks_;
    std::vector<WarpCtx> warps_;
    std::vector<BlockCtx> blocks_;
    std::vector<uint64_t> sched_free_;
    std::vector<uint32_t> rr_;
    // Per scheduler: bit j = warp slot s + j * nsched is active and not waiting (kept by sync_ready
    // wherever active or wait change), so that issue and the next-issue time visit only those.
    std::vector<uint64_t> ready_;
    // Per Wait value: bit = warp slot that is active and waits for it (the wake-ups visit these).
    uint64_t waiting_[7] = {0};
    void sync_ready(const WarpCtx &w)
    {
        const uint64_t bit = 1ull << (w.slot / nsched_);
        if (w.active && w.wait == Wait::NONE) ready_[w.slot % nsched_] |= bit;
        else ready_[w.slot % nsched_] &= ~bit;
        const uint64_t sb = 1ull << w.slot;
        for (uint64_t &m : waiting_) m &= ~sb;
        if (w.active) waiting_[(int)w.wait] |= sb;
    }
    uint32_t free_slots_;
    sc_core::sc_event wake_;
    int drain_state_ = 0;           // 0 idle, 1 waiting for PB, 2 waiting for write-back ticket
    uint64_t drain_ticket_ = 0;
    struct {
        uint64_t instructions = 0, ops = 0, mem_ops = 0, blocks = 0, busy_ps = 0, first_ps = UINT64_MAX, last_ps = 0;
        uint64_t stall_ps[ST__COUNT] = {0};
        uint64_t prims[kPrimCount] = {0};
    } st_;
};

} // namespace persim
