#include "pcie.h"
#include <string>
#include "cores_util.h"

namespace persim {
using namespace sc_core;

Pcie::Pcie(sc_module_name n, const Config &c) : sc_module(n), tsock("tsock"), isock("isock")
{
    link_cfg lc{};
    lc.latency_ps = ns_to_ps(c.f("pcie.latency_ns"));
    lc.gbps = c.f("pcie.bw_gbps");
    lc.header_bytes = (uint32_t)c.i("pcie.header_bytes");
    lc.max_payload = (uint32_t)c.i("pcie.max_payload");
    if (link_init(&down_, &lc) != 0 || link_init(&up_, &lc) != 0)
        throw ConfigError("pcie: invalid link configuration");
    tsock.register_b_transport(this, &Pcie::b_transport);
}

void Pcie::b_transport(tlm::tlm_generic_payload &gp, sc_time &delay)
{
    MemExt *e = mem_ext(gp);
    const uint32_t lb = gp.get_data_length();
    const uint64_t t = now_ps() + delay.value();
    const bool rd = gp.is_read();
    uint64_t at_host = link_send(&down_, t, rd ? 0 : (e ? sector_bytes(e->mask, lb) : lb));
    sc_time d = ps(at_host - now_ps());
    const Saved sv = enter(rd ? nullptr : e);
    isock->b_transport(gp, d);
    if (!rd && leave(e, sv, 0)) {
        delay = SC_ZERO_TIME;
        return;
    }
    uint64_t host_done = now_ps() + d.value();
    uint64_t back = link_send(&up_, host_done, rd ? lb : 0);
    delay = ps(back - now_ps());
}

void Pcie::report(StatsWriter &w, uint64_t sim_ps) const
{
    const std::string g = name();
    auto one = [&](const char *dir, const link_state &l) {
        std::string p = dir;
        w.add(g, p + "_packets", l.st.packets, "TLPs", "packets sent " + p + " (GPU->host is down)");
        w.add(g, p + "_payload_bytes", l.st.payload_bytes, "B", "payload bytes sent " + p);
        w.add(g, p + "_wire_bytes", l.st.wire_bytes, "B", "payload + header bytes sent " + p);
        w.add(g, p + "_bw", sim_ps ? l.st.wire_bytes / (sim_ps * 1e-12) / 1e9 : 0, "GB/s", "average wire bandwidth " + p);
        w.add(g, p + "_utilization", sim_ps ? (double)l.st.busy_ps / sim_ps : 0, "fraction", "link busy time " + p + " over run time");
        w.add(g, p + "_queue_ns", l.st.queue_ps / 1000.0, "ns", "total time packets waited for the link " + p);
    };
    one("down", down_);
    one("up", up_);
}

} // namespace persim
