// Shared, banked L2 (one `cache` core per slice). Volatile lines are write-back (dirty lines
// evicted to GDDR); PM lines are write-through (SBRP section 6: "we let the persists write
// through the L2"), so a PM write is forwarded to the PM path (NVM controller, or PCIe to the
// host) and acknowledged when the persistence domain has accepted it.
#pragma once
#include <vector>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include "config.h"
#include "mem_proto.h"
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

    L2(sc_core::sc_module_name n, const Config &c, uint64_t period_ps);
    void report(StatsWriter &w, uint64_t sim_ps) const;
    // End of run (untimed): write dirty volatile bytes into the backing image.
    void drain_functional(mem_image *img);

private:
    void b_transport(tlm::tlm_generic_payload &gp, sc_core::sc_time &delay);
    int32_t allocate(cache *c, uint64_t line_addr, bool pm, uint64_t t);
    std::vector<std::vector<uint64_t>> mem_;
    std::vector<cache *> banks_;
    std::vector<uint64_t> bank_free_;
    uint32_t line_bytes_;
    uint64_t pm_base_, hit_ps_, busy_ps_;
    struct { uint64_t reads = 0, read_hits = 0, pm_reads = 0, pm_read_misses = 0, vol_read_misses = 0,
                      writes = 0, pm_writes = 0, evictions = 0, dirty_evictions = 0, mshr_merges = 0; } st_;
};

// Byte-masked write of a line into a cache line (runs of set bits).
void cache_write_masked(cache *c, int32_t idx, const uint8_t *data, const uint64_t mask[2], uint32_t line_bytes);

} // namespace persim
