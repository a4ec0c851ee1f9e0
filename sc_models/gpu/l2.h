// Shared, banked L2 (one `cache` core per slice). Volatile lines are write-back (dirty lines
// evicted to GDDR); PM lines are write-through (SBRP section 6: "we let the persists write
// through the L2"), so a PM write is forwarded to the PM path (NVM controller, or PCIe to the
// host) and acknowledged when the persistence domain has accepted it — unless the persistency
// model's hardware keeps PM lines write-back here (PersistHw::l2_pm_write_back, nvwfifo).
#pragma once
#include <unordered_map>
#include <vector>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
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

class L2 : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<L2> tsock;          // from the crossbar
    tlm_utils::simple_initiator_socket<L2> dram_isock;  // to the GDDR controller
    tlm_utils::simple_initiator_socket<L2> pm_isock;    // to the NVM controller(s) or PCIe

    L2(sc_core::sc_module_name n, const GpuCfg &g);
    // The persistency model's hardware: sees PM writes and evictions; with l2_pm_write_back() PM
    // lines stay dirty here and leave by writeback_pm_line (or by replacement), not on every write.
    void set_persist_hw(PersistHw *h) { hw_ = h; pm_wb_ = h->l2_pm_write_back(); }
    // With l2_pm_write_back(): a flushed byte overwriting an NV-dirty byte of another writer is
    // reported to the tracker (the old value never leaves the L2; it is durable once the new one is).
    void set_tracker(WriteTracker *t) { tracker_ = t; }
    // Writes line `la` back to NVM if it is PM-dirty here; *ack_ps = its acknowledgement time.
    bool writeback_pm_line(uint64_t la, uint64_t *ack_ps);
    void report(StatsWriter &w, uint64_t sim_ps) const;
    // End of run (untimed): write dirty volatile bytes into the backing image.
    void drain_functional(mem_image *img);

private:
    void b_transport(tlm::tlm_generic_payload &gp, sc_core::sc_time &delay);
    int32_t allocate(uint32_t b, uint64_t line_addr, bool pm, uint64_t t);
    uint64_t write_pm_line(uint32_t b, int32_t idx, uint64_t start);   // pm_write_back: NV line -> NVM
    MemReqPool reqs_;                      // fill requests to GDDR / NVM
    bool pm_wb_ = false, pm_in_dram_ = false;
    PersistHw *hw_;
    WriteTracker *tracker_ = nullptr;
    std::unordered_map<uint64_t, std::vector<uint32_t>> pm_writers_;  // writer op ids of NV-dirty lines (tracking)
    uint64_t pm_writebacks_ = 0, pm_evictions_ = 0, nt_writes_ = 0;
    std::vector<std::unique_ptr<CacheCtrl>> ctrls_;   // one cache controller per bank
    std::vector<cache *> banks_;
    std::vector<uint64_t> bank_free_;
    uint32_t line_bytes_;
    uint64_t pm_base_, hit_ps_, busy_ps_;
    struct { uint64_t reads = 0, read_hits = 0, pm_reads = 0, pm_read_misses = 0, vol_read_misses = 0,
                      writes = 0, pm_writes = 0, evictions = 0, dirty_evictions = 0, mshr_merges = 0; } st_;
};


} // namespace persim
