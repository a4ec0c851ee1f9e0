#include "pcie.h"
#include <string>
#include "config_table.h"
#include "cores_util.h"

namespace persim {
using namespace sc_core;

// pcie.* keys: the host link of a PM-far system (cores/link.h link_cfg, both directions alike).
const ConfigTable<link_cfg> &pcie_table()
{
    using K = link_cfg;
    static const ConfigTable<K> t =
        ConfigTable<K>("pcie", "sc_models/mem/pcie.cpp")
            .real("pcie.bw_gbps", PERSIM_FIELD(K, gbps), 28.0, "GB/s", 0.001, 1e6, "PCIe bandwidth per direction (Table 1, PCIe 4.0 x16)")
            .ns("pcie.latency_ns", PERSIM_FIELD(K, latency_ps), 300.0, 0, 1e6, "PCIe one-way latency (Table 1)")
            .num("pcie.header_bytes", PERSIM_FIELD(K, header_bytes), 24, "B", 0, 256, "TLP header + framing bytes per packet")
            .num("pcie.max_payload", PERSIM_FIELD(K, max_payload), 256, "B", 0, 4096, "TLP max payload size");
    return t;
}
PERSIM_CONFIG_TABLE(pcie_table, 320);

Pcie::Pcie(sc_module_name n, const Config &c) : sc_module(n), tsock("tsock"), isock("isock")
{
    link_cfg lc{};
    pcie_table().fill(c, lc);
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
