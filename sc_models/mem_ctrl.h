// Memory controllers: a TLM target in front of the `nvm` timing core (cores/nvm.h) and the
// functional backing store. DramMc is GDDR (writes complete at the device); NvmMc adds the ADR
// write-pending queue (durable once accepted) and, for PM-far with eADR, durability on reaching
// the host LLC. Both are thin: timing decisions are the core's.
#pragma once
#include <string>
#include <vector>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "config.h"
#include "mem_proto.h"
#include "stats.h"
extern "C" {
#include "nvm.h"
#include "mem_image.h"
}

namespace persim {

class MemCtrl : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<MemCtrl> tsock;

    MemCtrl(sc_core::sc_module_name n, const nvm_cfg &cfg, mem_image *backing, bool persistent);
    void report(StatsWriter &w, uint64_t sim_ps) const;

protected:
    virtual void b_transport(tlm::tlm_generic_payload &gp, sc_core::sc_time &delay);
    std::vector<uint64_t> core_mem_;   // storage of the nvm core (8-byte aligned)
    nvm *core_;
    mem_image *img_;
    bool persistent_;
};

class DramMc : public MemCtrl {
public:
    DramMc(sc_core::sc_module_name n, const Config &c, mem_image *backing);
    static nvm_cfg make_cfg(const Config &c);
};

class NvmMc : public MemCtrl {
public:
    // `eadr`: durable on arrival at the host LLC (PM-far with eADR) instead of at WPQ accept.
    NvmMc(sc_core::sc_module_name n, const Config &c, mem_image *backing, uint32_t controllers);
    static nvm_cfg make_cfg(const Config &c, uint32_t controllers);
    void set_durable_sink(DurableSink *s) { sink_ = s; }
    void report(StatsWriter &w, uint64_t sim_ps) const;

private:
    void b_transport(tlm::tlm_generic_payload &gp, sc_core::sc_time &delay) override;
    bool eadr_;
    uint64_t llc_ps_;
    bool dram_only_;     // system.pm_in_dram: DRAM timing, nothing is persisted
    DurableSink *sink_ = nullptr;
    uint64_t persists_ = 0, durable_bytes_ = 0;
    uint64_t sum_durable_lat_ps_ = 0;
};

} // namespace persim
