// PCIe link between the GPU and the host (PM-far): two `link` cores (cores/link.h), one per
// direction. A read sends a header-only request down and gets the line back up; a persist write
// carries its sectors down and gets a header-only acknowledgement back up (the GPU must learn
// that the write reached the persistence domain).
#pragma once
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include "config.h"
#include "mem_proto.h"
#include "stats.h"
extern "C" {
#include "link.h"
}

namespace persim {

class Pcie : public sc_core::sc_module, public AckRelay {
public:
    tlm_utils::simple_target_socket<Pcie> tsock;       // from the GPU L2
    tlm_utils::simple_initiator_socket<Pcie> isock;    // to the host memory
    Pcie(sc_core::sc_module_name n, const Config &c);
    void report(StatsWriter &w, uint64_t sim_ps) const;

private:
    // A late acknowledgement from the host side travels back up the link (header only).
    uint64_t return_ps(uint32_t, uint64_t ack_ps) override { return link_send(&up_, ack_ps, 0); }
    void b_transport(tlm::tlm_generic_payload &gp, sc_core::sc_time &delay);
    link_state down_{}, up_{};
};

} // namespace persim
