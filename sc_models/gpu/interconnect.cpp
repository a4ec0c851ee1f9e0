#include "interconnect.h"
#include "cores_util.h"

namespace persim {
using namespace sc_core;

Interconnect::Interconnect(sc_module_name n, const GpuCfg &g)
    : sc_module(n), tsock("tsock"), isock("isock"), banks_(g.l2_banks), line_bytes_(g.line_bytes)
{
    link_cfg lc{};
    lc.latency_ps = g.icnt_hop_ps;
    lc.gbps = (double)g.icnt_flit_bytes * 1000.0 / (double)g.period_ps;  // one flit per cycle
    lc.header_bytes = g.icnt_header_bytes;
    lc.max_payload = 0;
    to_bank_.resize(banks_);
    to_sm_.resize(g.num_sms);
    for (auto &l : to_bank_) link_init(&l, &lc);
    for (auto &l : to_sm_) link_init(&l, &lc);
    tsock.register_b_transport(this, &Interconnect::b_transport);
}

void Interconnect::b_transport(int id, tlm::tlm_generic_payload &gp, sc_time &delay)
{
    MemExt *e = mem_ext(gp);
    const uint32_t lb = gp.get_data_length();
    const bool rd = gp.is_read();
    uint32_t bank = l2_bank_of(gp.get_address(), line_bytes_, banks_);
    uint64_t t = now_ps() + delay.value();
    uint64_t at_l2 = link_send(&to_bank_[bank], t, rd ? 0 : (e ? sector_bytes(e->mask, lb) : lb));
    sc_time d = ps(at_l2 - now_ps());
    const Saved sv = enter(rd ? nullptr : e);
    isock->b_transport(gp, d);
    if (!rd && leave(e, sv, (uint32_t)id)) {
        delay = SC_ZERO_TIME;
        return;
    }
    uint64_t back = link_send(&to_sm_[(size_t)id], now_ps() + d.value(), rd ? lb : 0);
    delay = ps(back - now_ps());
}

void Interconnect::report(StatsWriter &w, uint64_t sim_ps) const
{
    const std::string g = name();
    uint64_t bytes_req = 0, bytes_resp = 0, busy_b = 0, q_b = 0, q_s = 0;
    for (auto &l : to_bank_) { bytes_req += l.st.wire_bytes; busy_b += l.st.busy_ps; q_b += l.st.queue_ps; }
    for (auto &l : to_sm_) { bytes_resp += l.st.wire_bytes; q_s += l.st.queue_ps; }
    w.add(g, "request_bytes", bytes_req, "B", "bytes sent SM -> L2 (headers included)");
    w.add(g, "response_bytes", bytes_resp, "B", "bytes sent L2 -> SM (headers included)");
    w.add(g, "l2_port_utilization", sim_ps ? (double)busy_b / ((double)sim_ps * to_bank_.size()) : 0, "fraction",
          "average busy fraction of the L2 slices' input ports");
    w.add(g, "request_queue_ns", q_b / 1000.0, "ns", "total time requests waited for an L2 input port");
    w.add(g, "response_queue_ns", q_s / 1000.0, "ns", "total time responses waited for an SM ejection port");
}

} // namespace persim
