// The hardware of model `nvwfifo` (persist/nvwfifo.cpp; a PersistHw, persist_model.h): scoped persist barriers with NVW-FIFOs: "Exploring the Design Space of Scoped
// Persist Barriers for GPUs" (the scoped persist barriers paper (docs/papers.md)), sections 5,
// 6 and 6.1; docs/models/nvwfifo.md.
//
// One NVW-FIFO (cores/nvw_fifo.{h,c}, the block's single source of truth, also the RTL's) beside
// every L1 and one beside the L2. The data path:
//   - every PM store an L1 performs appends the line address to that L1's FIFO (an "NV write");
//     PM lines are write-back in the L1 and in the L2 (L2(..., pm_write_back = true));
//   - an entry leaving an L1 FIFO (behind a p_flush marker, or because the FIFO is full) flushes
//     its line from the L1 to the L2 if it is still dirty there; every NV line written into the L2
//     (flush or L1 eviction) is appended to the L2 FIFO (section 6.1 step 2);
//   - an entry leaving the L2 FIFO writes the line back to NVM if it is still dirty (step 4);
//   - a marker at the head of an L1 FIFO moves to the L2 FIFO (step 3); at the head of the L2 FIFO
//     it waits until every write-back issued before it is acknowledged (step 5), then the
//     acknowledgement returns to the L1 and the SM (step 6/7) and the stalled warps resume.
// Barriers (NvwSystem::exec, the model's primitives): p_barrier_wi stalls only the issuing warp; p_barrier_wg first waits for
// every warp of the block; p_barrier_kr waits for every warp of the kernel (all blocks resident,
// as for a grid sync) and puts a marker into every L1 FIFO; NVW_ALL (device-scope release) puts
// markers into every L1 FIFO and stalls only the issuing warp.
//
// Timing follows the rest of the memory side (loosely timed): FIFO actions happen at the call
// time, one after another; lines travel with the crossbar/L2/NVM latencies their b_transport calls
// return; a marker reaches the L2 one crossbar hop after it leaves the L1 and its acknowledgement
// returns one hop after the last write-back it waited for is acknowledged.
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>
#include <systemc>
#include "config.h"
#include "persist_model.h"
#include "sm.h"
#include "stats.h"
#include "timed_queue.h"
extern "C" {
#include "nvw_fifo.h"
}

namespace persim {

class Gpu;

// What a p_flush marker's acknowledgement wakes up.
enum class NvwKind : uint8_t { NONE = 0, WI, WG, KR, ALL, END };

class NvwSystem : public sc_core::sc_module, public PersistHw {
public:
    SC_HAS_PROCESS(NvwSystem);
    // Builds the FIFOs beside every L1 and the L2 of `gpu`.
    NvwSystem(sc_core::sc_module_name n, const Config &c, Gpu *gpu);

    // ---- PersistHw: data path (L1 / L2) ----
    void on_l1_pm_store(int sm, uint32_t slot, uint64_t line_addr) override;   // an NV write performed in an L1
    bool l2_pm_write_back() const override { return true; }
    void on_l2_pm_write(uint64_t line_addr) override;                          // an NV line written into the L2
    void on_l2_pm_evicted(uint64_t ack_ps) override;                           // NV-dirty L2 line evicted to NVM
    // ---- PersistHw: SM and GPU ----
    void exec(Sm &sm, WarpCtx &w, Prim p, const persim_op &op, uint64_t t) override;
    void on_block_launch(Sm &sm, BlockCtx &b) override;
    void on_warp_finished(Sm &sm, BlockCtx &b, uint64_t t) override;   // p_barrier_wg: whole block arrived?
    bool kernel_end_pending(Sm &sm) override;
    void on_grid_recheck(uint64_t t) override { kr_recheck(t); }

    // ---- barriers (called by Sm) ----
    void note_pbarrier(int sm, uint32_t slot);                   // a p_barrier op issued (Table 3 level)
    void on_launch(int sm, uint32_t slot);                       // a new warp in this slot
    // p_barrier_wi (all_l1s = false) or the device-scope release action (all_l1s = true).
    void barrier_warp(int sm, uint32_t slot, bool all_l1s, bool pbarrier);
    // p_barrier_wg once every warp of the block (slots) has arrived.
    void barrier_block(int sm, uint32_t block_slot, const std::vector<uint32_t> &slots, bool pbarrier);
    void kr_arrive(bool pbarrier, uint64_t t);
    void kr_recheck(uint64_t t);                                 // a warp or block finished
    void kernel_end(int sm);                                     // persist everything before the SM's drain ends

    void report(StatsWriter &w, uint64_t sim_ps) override;
    std::string describe() const override;                       // FIFO state for deadlock reports

private:
    struct Fifo {
        std::vector<uint64_t> mem;
        nvw_fifo *f = nullptr;
        OccupancyHist hist;
        uint64_t forced = 0, flushed = 0, clean = 0;
    };
    struct Tag { NvwKind kind; int sm; uint32_t idx; uint64_t group; uint64_t issued_ps; };
    struct Ev {
        uint8_t type;            // 0 = L2 write-back acknowledged (a = its core epoch), 1 = deliver acknowledgement of tag a
        uint64_t a;
    };

    void init_fifo(Fifo &q, uint32_t entries, uint32_t ack_mode);
    uint64_t new_tag(NvwKind k, int sm, uint32_t idx, uint64_t group);
    void push_marker(int sm, uint64_t tag);
    void l1_action(int sm, nvw_action a, uint64_t payload);
    void l1_pump(int sm);
    void l2_push(bool marker, uint64_t payload);
    void l2_pump();
    void schedule(uint64_t at, uint8_t type, uint64_t a);
    void event_method();
    void deliver(uint64_t tag);
    // A barrier's acknowledgement: wake the warp (WI/ALL: slot idx), the block (WG: block slot idx),
    // every KR waiter, or finish the SM's kernel-end drain (END).
    void wake(Sm &sm, NvwKind k, uint32_t idx);
    void record(int scope, uint32_t level, uint64_t writes);
    uint64_t take_writes(int sm, uint32_t slot);

    Gpu *gpu_;
    bool pm_in_dram_;
    std::vector<int> drain_;     // per SM, kernel end: 0 not started, 1 marker in flight, 2 done
    // persist.nvw_l2_pipelined: the L2 FIFO keeps dequeuing entries behind a marker that waits for
    // its acknowledgements; each marker waits only for the write-backs of its epoch and earlier ones
    // (the L2 core runs in ack_mode 2, which keeps the epochs and the waiting markers).
    bool pipelined_;
    uint32_t max_markers_ = 1;     // persist.nvw_l2_markers resolved: 1 (blocking) or the waiting-queue size
    uint32_t waiting_peak_ = 0;    // most markers waiting aside at once (pipelined)
    uint64_t period_ps_, hop_ps_;
    uint32_t nsm_, nslots_;
    std::vector<Fifo> l1_;
    Fifo l2_;
    std::deque<std::pair<bool, uint64_t>> staged_;   // L2 FIFO full: waiting in order (back-pressure)
    std::map<uint64_t, Tag> tags_;
    std::map<uint64_t, uint64_t> at_l2_;             // marker tag -> arrival time at the L2
    std::map<uint64_t, uint32_t> group_left_;        // multi-FIFO barrier -> markers not yet acknowledged
    uint64_t next_tag_ = 1, next_group_ = 1, evict_until_ = 0;
    TimedQueue<Ev> evq_;   // ties: push order
    sc_core::sc_event ev_;
    // Per warp slot (sm * nslots + slot): NV writes since the warp's last persist barrier, and the
    // number of p_barrier ops it has issued in this launch (= the tree level of a B+tree barrier).
    std::vector<uint64_t> writes_;
    std::vector<uint32_t> level_;
    uint32_t kr_arrived_ = 0;
    bool kr_pbarrier_ = false;
    // Table 3: per scope (0 wi, 1 wg, 2 kr) and barrier level, NV writes to persist and barriers.
    std::map<std::pair<int, uint32_t>, std::pair<uint64_t, uint64_t>> levels_;
    struct { uint64_t n = 0, ps = 0; } lat_[6];      // barriers completed and their latency, per kind
    uint64_t staged_peak_ = 0, l2_evictions_ = 0;
};

} // namespace persim
