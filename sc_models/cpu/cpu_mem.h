// The memory side of the cpu system below the private L1s (docs/models/lightwsp.md):
//   CpuL2      the shared, inclusive L2 (tag-only cache core; hit latency + port occupancy); an
//              eviction back-invalidates the L1s (inclusion) and writes a dirty line down;
//   DramCache  the direct-mapped DRAM cache in front of PM (Optane memory mode; tag-only): a hit is
//              a DRAM access (a MemCtrl with DRAM timing), a miss reads PM and fills; a dirty
//              victim is written to PM, or dropped when the persistency model persists through
//              its own path (LightWSP IV-G: LLC dirty evictions are dropped silently).
// Lines carry no data: the cpu system keeps values in its functional image, and the persistent
// state is what the persist path delivers to the controllers (cpu_system.h).
#pragma once
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <memory>
#include <functional>
#include <string>
#include <vector>
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include "cores_util.h"
#include "cpu_cfg.h"
#include "mem_proto.h"
#include "stats.h"
extern "C" {
#include "cache.h"
}

namespace persim {

// A tag-only cache core in caller-owned storage: calloc'd and initialised with cache_init_zeroed,
// so a large cache (the DRAM cache's tags) is zeroed once, by the OS, page by page on first touch.
class TagCache {
public:
    TagCache(const cache_cfg &c, const std::string &what);
    cache *get() { return c_; }
    const cache *get() const { return c_; }

private:
    std::unique_ptr<void, void (*)(void *)> mem_{nullptr, std::free};
    cache *c_ = nullptr;
};

// A core's L1 (tags and its port), shared by the core's hardware threads (cpu.threads_per_core).
struct L1Port {
    TagCache tags;
    uint64_t busy_until = 0;       // the port takes one access per l1.busy period
    explicit L1Port(const cache_cfg &c) : tags(c, "l1 (l1.size_kb, l1.assoc, l1.line_bytes)") {}
};

// The request an initiator reuses for its line accesses (they never nest on one initiator): made as a
// fresh MemReq is, without constructing a payload and its extension array per access.
class LineReq {
public:
    LineReq() : r_(tlm::TLM_READ_COMMAND, 0, 0) {}
    MemReq &make(tlm::tlm_command cmd, uint64_t addr, uint32_t lb)
    {
        std::memset(r_.data, 0, sizeof r_.data);
        tlm::tlm_generic_payload &gp = r_.gp;
        gp.set_command(cmd);
        gp.set_address(addr);
        gp.set_data_ptr(r_.data);
        gp.set_data_length(lb);
        gp.set_streaming_width(lb);
        gp.set_byte_enable_ptr(nullptr);
        gp.set_byte_enable_length(0);
        gp.set_dmi_allowed(false);
        gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        r_.ext = MemExt();
        r_.ext.line_bytes = lb;
        return r_;
    }

private:
    MemReq r_;
};

// A line read or written downstream at `t` (>= now) with the initiator's request `lr`; returns the
// completion time.
template <class Socket>
uint64_t line_access(Socket &sock, LineReq &lr, bool write, uint64_t line_addr, uint32_t lb, uint64_t t)
{
    MemReq &req = lr.make(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND, line_addr * lb, lb);
    req.ext.pm = true;
    if (write) cache_mask_range(req.ext.mask, 0, lb);
    sc_core::sc_time d = ps(t - now_ps());
    sock->b_transport(req.gp, d);
    return now_ps() + (uint64_t)d.value();
}

class DramCache;

class CpuL2 : public sc_core::sc_module {
public:
    tlm_utils::multi_passthrough_target_socket<CpuL2> tsock;   // one binding per core
    tlm_utils::simple_initiator_socket<CpuL2> isock;           // DRAM cache, or PM (no DRAM cache)
    // Back-invalidation of a line in every L1 (inclusion); returns true if some L1 held it dirty.
    std::function<bool(uint64_t line)> back_invalidate;
    // Dirty victims are dropped, not written down (no DRAM cache, and the model persists through its
    // own path: its stores reach PM in the order it enforces, a write-back would bypass it).
    bool drop_dirty = false;
    CpuL2(sc_core::sc_module_name n, const CpuCfg &c);
    void report(StatsWriter &w, uint64_t sim_ps) const;
    // Functional warming (sim.warmup): an L1 miss of `line` in the L2 (and, on a miss, the DRAM
    // cache below): tags and LRU only, installed clean, inclusion kept; no time, no statistics.
    DramCache *warm_below = nullptr;
    void warm(uint64_t line);

private:
    void b_transport(int id, tlm::tlm_generic_payload &gp, sc_core::sc_time &delay);
    TagCache tags_;
    LineReq req_;
    uint32_t lb_;
    uint64_t hit_ps_, busy_ps_, free_ps_ = 0;
    struct {
        uint64_t reads = 0, writes = 0, read_misses = 0, write_misses = 0, writebacks = 0, back_inval = 0, dropped = 0;
    } st_;
};

class DramCache : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<DramCache> tsock;          // from the L2
    tlm_utils::simple_initiator_socket<DramCache> dram_isock;  // DRAM timing (MemCtrl, direct)
    tlm_utils::simple_initiator_socket<DramCache> pm_isock;    // PM (router)
    DramCache(sc_core::sc_module_name n, const CpuCfg &c, bool drop_dirty_evictions);
    void report(StatsWriter &w, uint64_t sim_ps) const;
    void warm(uint64_t line);        // functional warming: tag installed clean (see CpuL2::warm)

private:
    void b_transport(tlm::tlm_generic_payload &gp, sc_core::sc_time &delay);
    int32_t allocate(uint64_t line, uint64_t t);
    TagCache tags_;
    LineReq req_;
    uint32_t lb_;
    bool drop_;
    struct {
        uint64_t reads = 0, writes = 0, read_misses = 0, write_misses = 0, pm_writebacks = 0, dropped = 0;
    } st_;
};

} // namespace persim
