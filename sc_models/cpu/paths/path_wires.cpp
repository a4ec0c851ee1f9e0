#include "path_wires.h"
#include <algorithm>
#include <cstring>

namespace persim {

void PathWires::trace_signals(sc_core::sc_trace_file *tf, const std::string &prefix, const char *buffer, const char *id)
{
    vcd_ = true;
    sc_core::sc_trace(tf, vcd_buffer_, prefix + "." + buffer);
    sc_core::sc_trace(tf, vcd_id_, prefix + "." + id);
}
using namespace sc_core;

PathWires::PathWires(const CpuPathSite &s, const CpuCfg &c, PmControllers &pm, uint32_t wire_bytes)
    : sc_module(sc_module_name(s.name.c_str())), cfg_(c), pm_(pm), host_(*s.host), id_(s.id), remote_(s.remote),
      requester_(s.requester), lb_(c.sys.line_bytes), wire_bytes_(wire_bytes)
{
    init_link(&link_, c.path_latency_ps, c.path_gbps, "persist_path.*: invalid persist path (latency, bandwidth)");
    SC_METHOD(deliver_step);
    sensitive << deliver_ev_;
    dont_initialize();
}

void PathWires::init_link(link_state *l, uint64_t latency_ps, double gbps, const char *keys) const
{
    link_cfg lc{};
    lc.latency_ps = latency_ps;
    lc.gbps = gbps;
    lc.header_bytes = cfg_.path_header;
    lc.max_payload = 0;
    if (link_init(l, &lc) != 0) throw ConfigError(keys);
}

uint64_t PathWires::send(const Item &it, int64_t ctrl, uint64_t now)
{
    const uint64_t arrive = link_send(&link_, now, it.message ? 8 : wire_bytes_);
    auto fly = [&](uint32_t c) {
        const uint64_t at = arrive + (uint64_t)c * cfg_.path_skew_ps;
        if (flight_.empty() || at < flight_.next_at()) deliver_ev_.notify(ps(at - now));
        flight_.push(Flight{c, it}, at);
        return at;
    };
    if (ctrl >= 0) return fly((uint32_t)ctrl);
    uint64_t last = 0;
    for (uint32_t c = 0; c < pm_.count(); ++c) last = std::max(last, fly(c));
    return last;
}

void PathWires::deliver_step()
{
    if (off_) {
        flight_.clear();         // the persist path is volatile: what is on it is lost
        return;
    }
    const uint64_t now = now_ps();
    flight_.pop_due(now, [&](const Flight &f) { deliver(f.item, f.ctrl); });
    if (!flight_.empty()) deliver_ev_.notify(ps(flight_.next_at() - now));
}

void PathWires::payload(const Item &it, uint8_t *data, uint64_t mask[2]) const
{
    std::memcpy(data, it.data, 8);
    mask[0] = it.mask;
    mask[1] = 0;
}

// An item arriving now at controller `ctrl`.
void PathWires::deliver(const Item &it, uint32_t ctrl)
{
    if (it.message) {
        pm_.message(ctrl, it.barrier ? McMsg{McMsg::BARRIER, 0, (uint32_t)requester_} : McMsg{McMsg::BOUNDARY, it.tag, id_});
        return;
    }
    const uint32_t lb = it.line ? lb_ : 8;
    MemReq req(tlm::TLM_WRITE_COMMAND, it.word * 8, lb);
    payload(it, req.data, req.ext.mask);
    req.ext.pm = true;
    req.ext.persist = true;
    req.ext.requester = requester_;
    req.ext.region = it.tag;
    req.ext.line_bytes = lb;
    req.ext.wire_bytes = wire_bytes_;
    req.ext.ack_to = this;
    req.ext.ack_token = it.wid;
    uint32_t writers[128];
    for (auto &w : writers) w = (uint32_t)it.wid;
    req.ext.writers = writers;
    sc_time d = SC_ZERO_TIME;
    pm_.write(ctrl, req.gp, d);
    if (!req.ext.ack_later) on_late_ack(it.wid, now_ps() + (uint64_t)d.value());
    else if (req.ext.accept_ps) free_slot(it.wid, req.ext.accept_ps);
}

void PathWires::free_slot(uint64_t wid, uint64_t at)
{
    auto it = outstanding_.find(wid);
    if (it == outstanding_.end() || it->second.freed) return;
    it->second.freed = true;
    const uint64_t ft = std::max(at, now_ps()) + cfg_.path_latency_ps;   // the ACK travels back to the buffer
    frees_.push(it->second.seq, ft, it->second.seq);
    slot_freed(ft);
}

} // namespace persim
