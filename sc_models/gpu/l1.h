// Per-SM L1 data cache (cores/cache.h). The L1 is write-back with allocate-on-write (per-byte dirty
// masks, no fetch on a write miss), as in the SBRP artifact. Fences flush dirty lines and wait for
// their acknowledgements ("tickets"). A persistency model may put hardware beside the L1 (L1Persist,
// persist_model.h; SBRP: the persist buffer): the L1 then asks it on every PM store and eviction,
// writes back what it releases and hands it the acknowledgements.
// Acknowledgements come back at times computed by the memory side; an ack event wakes the L1.
#pragma once
#include <cstdint>
#include <map>
#include <queue>
#include <set>
#include <vector>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include "cache_ctrl.h"
#include "config.h"
#include "gpu_cfg.h"
#include "mem_proto.h"
#include "persist_model.h"
#include "stats.h"
extern "C" {
#include "cache.h"
#include "mem_image.h"
}

namespace persim {

struct L1Client {
    virtual ~L1Client() = default;
    virtual void on_pb_change(uint64_t stalled_mask) = 0;   // persist-unit stall mask may have shrunk
    virtual void on_ticket_progress() = 0;                  // tracked write-backs acknowledged
};

class L1 : public sc_core::sc_module, public AckReceiver {
public:
    tlm_utils::simple_initiator_socket<L1> isock;
    SC_HAS_PROCESS(L1);
    // `c` is handed to the persistency model (its persist.* keys) when it builds its L1 hardware.
    L1(sc_core::sc_module_name n, const GpuCfg &g, const Config &c, int sm_id, const PersistModel *model,
       L1Client *client);
    const GpuCfg &gpu_cfg() const { return g_; }

    // One line of a warp's load: bytes [off, off+len) of line `la` (line address).
    // `log`: the read of an undo-log update (`ld log`: the data the log copies), reported to the
    // persist hardware's locality hook (AGPM buffers) as part of the log update.
    L1Result load(uint32_t warp, uint64_t la, uint32_t off, uint32_t len, uint64_t t, bool log = false);
    // One line of a warp's store: bytes in mask. `op` = the store's op id (persim_op.id), kept per
    // byte while a tracker is installed (set_tracker) and carried by the line's flush.
    // A PM store line asks the model's PersistHw for its data path (PersistHw::pm_store_path; `log`:
    // a log write, `nseg`: lines of the warp's op) unless `ask_path` is false (flag stores): T
    // stores into the L1, NT writes around the L1 and L2 into the NVM controller's write queue
    // (acknowledged with a ticket, like a write-back), T_WB stores and writes the line back at once.
    L1Result store(uint32_t warp, uint64_t la, const uint8_t *data, const uint64_t mask[2], uint64_t t,
                   uint32_t op = 0, bool log = false, uint32_t nseg = 1, bool ask_path = false);
    uint32_t dirty_pm_lines() const { return cache_count_dirty(cache_, 1); }
    // Data-path tracking (persim run --check / check / crash): writer op id per byte of every line.
    void set_tracker(WriteTracker *t);
    // An ordering primitive of the model's persist unit (SBRP: a PB fence).
    L1Result persist_fence(uint32_t warp, Prim p);
    // Write back dirty lines (PM, volatile or both) and return a ticket: done when every tracked
    // write-back issued so far has been acknowledged.
    uint64_t flush(bool pm, bool vol);
    bool ticket_done(uint64_t ticket) const { return acks_.ticket_done(sm_, ticket); }
    // Invalidate clean lines (pm_only: only PM lines).
    void invalidate_clean(bool pm_only);
    // Kernel end: drain the persist unit completely / whether it holds nothing (true without one).
    void set_drain_all(bool on);
    bool persist_idle() const { return !unit_ || unit_->idle(); }
    uint64_t persist_stalled() const { return unit_ ? unit_->stalled() : 0; }   // bit = warp slot
    std::string persist_describe() const { return unit_ ? unit_->describe() : ""; }
    uint32_t dirty_lines() const { return cache_count_dirty(cache_, -1); }
    // End of run (untimed): copy dirty bytes into the image.
    void drain_functional(mem_image *img);
    void report(StatsWriter &w, uint64_t sim_ps);
    // The model's GPU-wide hardware sees every PM store performed here (PersistHw::on_l1_pm_store).
    void set_persist_hw(PersistHw *h) { hw_ = h; paths_ = h->chooses_store_path(); }
    // Writes PM line `la` back to the L2 if it is dirty here (returns whether it was): a persist
    // model's hardware flushing a line (nvwfifo: a dequeued L1 NVW-FIFO entry).
    bool flush_pm_line(uint64_t la);
    // The persist unit releases line `idx` as a persist of `phase` (its ack goes back to the unit).
    void persist_writeback(int32_t idx, uint32_t phase) { writeback(idx, false, true, phase); }
    cache *cache_core() { return cache_; }
    // A write-back acknowledged later than its return (a controller front end such as broi).
    void on_late_ack(uint64_t token, uint64_t ack_ps) override;
    void trace(sc_core::sc_trace_file *tf);   // VCD: the persist unit's waveforms (SBRP: PB occupancy, ACTR)

private:
    enum class Evict { OK, STALL };
    Evict make_room(uint32_t warp, uint64_t la, int32_t *idx, uint64_t t, StallWhy *why);
    void writeback(int32_t idx, bool tracked, bool pb_persist, uint32_t phase = 0);
    void pump();                           // run the persist unit's head actions until idle
    void arm_ack();                        // wake ack_method at the next acknowledgement
    void ack_method();
    void track_store(int32_t idx, uint64_t la, const uint64_t mask[2], uint64_t t, uint32_t op);
    L1Result store_nt(uint64_t la, int32_t idx, const uint8_t *data, const uint64_t mask[2], uint64_t t, uint32_t op);

    const GpuCfg &g_;
    int sm_;
    L1Client *client_;
    WriteTracker *tracker_ = nullptr;
    PersistHw *hw_;
    bool paths_ = false;                   // the model chooses PM store paths (PersistHw::chooses_store_path)
    std::vector<uint32_t> writers_;        // tracking: writer op id of each byte (line index * line_bytes)
    CacheCtrl ctrl_;                       // line storage, write-backs, functional drain
    cache *cache_;
    std::unique_ptr<L1Persist> unit_;      // the model's hardware beside this L1, if any
    uint32_t line_bytes_;
    uint64_t pm_base_, hit_ps_, period_ps_;

    std::vector<int32_t> flush_lines_;     // flush(): the dirty lines collected
    MemReqPool reqs_;                      // the L1's read and non-temporal write requests
    AckQueue acks_;
    std::map<uint64_t, uint64_t> late_pm_sent_;   // PM write-backs acknowledged later: seq -> send time                        // write-back acknowledgements (tickets keyed by requester = SM)
    sc_core::sc_event ack_ev_;

    struct {
        uint64_t loads = 0, load_hits = 0, pm_loads = 0, pm_load_misses = 0, vol_load_misses = 0, mshr_merges = 0;
        uint64_t stores = 0, pm_stores = 0, store_misses = 0;
        uint64_t writebacks = 0, pm_persists = 0, vol_writebacks = 0, acks = 0, late_acks = 0;
        uint64_t evictions = 0, evict_stalls = 0, invalidations = 0;
        uint64_t persist_ack_ps = 0;       // sum of flush-to-ack times of PM persists
        uint64_t nt_stores = 0, nt_log_stores = 0, t_log_stores = 0, added_wbs = 0, nt_evicted = 0;
    } st_;
    std::map<uint64_t, uint64_t> late_nt_sent_;   // NT stores acknowledged later: seq -> send time
};

} // namespace persim
