// Crossbar between the SMs' L1s and the L2 slices. Contention is modelled at the crossbar's
// output ports with `link` cores: requests serialize at their L2 slice's input port, responses
// at their SM's ejection port; each port moves one flit (icnt.flit_bytes) per core cycle.
#pragma once
#include <vector>
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include "config.h"
#include "gpu_cfg.h"
#include "mem_proto.h"
#include "stats.h"
extern "C" {
#include "link.h"
}

namespace persim {

inline uint32_t l2_bank_of(uint64_t addr, uint32_t line_bytes, uint32_t banks)
{
    uint64_t l = addr / line_bytes;
    return (uint32_t)((l ^ (l >> 7) ^ (l >> 13)) % banks);
}

class Interconnect : public sc_core::sc_module, public AckRelay {
public:
    tlm_utils::multi_passthrough_target_socket<Interconnect> tsock;  // one binding per SM
    tlm_utils::simple_initiator_socket<Interconnect> isock;           // to the L2
    Interconnect(sc_core::sc_module_name n, const GpuCfg &g);
    void report(StatsWriter &w, uint64_t sim_ps) const;

private:
    void b_transport(int id, tlm::tlm_generic_payload &gp, sc_core::sc_time &delay);
    // A late acknowledgement returns to SM `port` over its crossbar port (header only).
    uint64_t return_ps(uint32_t port, uint64_t ack_ps) override { return link_send(&to_sm_[port], ack_ps, 0); }
    std::vector<link_state> to_bank_, to_sm_;
    uint32_t banks_, line_bytes_;
};

} // namespace persim
