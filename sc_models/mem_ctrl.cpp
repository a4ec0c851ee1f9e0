#include "mem_ctrl.h"

#include <cmath>
#include "cores_util.h"

namespace persim {
using namespace sc_core;

MemCtrl::MemCtrl(sc_module_name n, const nvm_cfg &cfg, mem_image *backing, bool persistent)
    : sc_module(n), tsock("tsock"), img_(backing), persistent_(persistent)
{
    core_mem_.resize((nvm_bytes(&cfg) + 7) / 8);
    if (nvm_init(core_mem_.data(), &cfg) != 0)
        throw ConfigError(std::string(name()) + ": invalid memory timing configuration");
    core_ = reinterpret_cast<nvm *>(core_mem_.data());
    tsock.register_b_transport(this, &MemCtrl::b_transport);
}

void MemCtrl::b_transport(tlm::tlm_generic_payload &gp, sc_time &delay)
{
    MemExt *e = mem_ext(gp);
    const uint64_t t = now_ps() + delay.value();
    const uint64_t addr = gp.get_address();
    const uint32_t lb = gp.get_data_length();
    uint64_t done;
    if (gp.is_read()) {
        done = nvm_read(core_, t, addr, lb);
        mem_read(img_, addr, gp.get_data_ptr(), lb);
    } else {
        uint64_t accept;
        done = nvm_write(core_, t, addr, e ? sector_bytes(e->mask, lb) : lb, &accept);
        if (e) mem_write_masked(img_, addr, gp.get_data_ptr(), lb, e->mask);
        else mem_write(img_, addr, gp.get_data_ptr(), lb);
        done = accept;    // a write is acknowledged when the controller has accepted it
    }
    delay = ps(done - now_ps());
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

void MemCtrl::report(StatsWriter &w, uint64_t sim_ps) const
{
    const nvm_stats *s = nvm_get_stats(core_);
    const nvm_cfg *c = nvm_config(core_);
    const std::string g = name();
    const double sec = sim_ps * 1e-12;
    w.add(g, "reads", s->reads, "requests", "read requests served");
    w.add(g, "writes", s->writes, "requests", "write requests served");
    w.add(g, "read_bytes", s->read_bytes, "B", "bytes read from the device");
    w.add(g, "write_bytes", s->write_bytes, "B", "bytes written to the device");
    w.add(g, "read_bw", sec > 0 ? s->read_bytes / sec / 1e9 : 0, "GB/s", "average read bandwidth over the run");
    w.add(g, "write_bw", sec > 0 ? s->write_bytes / sec / 1e9 : 0, "GB/s", "average write bandwidth over the run");
    w.add(g, "row_hits", s->row_hits, "requests", "row-buffer hits");
    w.add(g, "row_misses", s->row_misses, "requests", "row-buffer misses");
    w.add(g, "bus_utilization", sim_ps ? (double)s->bus_busy_ps / ((double)sim_ps * c->channels) : 0, "fraction",
          "data-bus busy time over run time, averaged over channels");
    if (c->wpq_entries) {
        w.add(g, "wpq_full_stalls", s->wpq_full_stalls, "writes", "writes that waited for a free WPQ entry");
        w.add(g, "wpq_stall_ns", s->wpq_stall_ps / 1000.0, "ns", "total time writes waited for a WPQ entry");
        w.add(g, "wpq_read_hits", s->wpq_read_hits, "reads", "reads served from the WPQ");
    }
}

// ---------------------------------------------------------------------------------------------

nvm_cfg DramMc::make_cfg(const Config &c)
{
    nvm_cfg n{};
    n.channels = (uint32_t)c.i("dram.channels");
    n.banks = (uint32_t)c.i("dram.banks");
    n.line_bytes = (uint32_t)c.i("l1.line_bytes");
    n.row_bytes = (uint32_t)c.i("dram.row_bytes");
    n.read_latency_ps = ns_to_ps(c.f("dram.latency_ns"));
    n.write_latency_ps = ns_to_ps(c.f("dram.latency_ns"));
    n.row_hit_latency_ps = ns_to_ps(c.f("dram.row_hit_latency_ns"));
    n.bank_busy_miss_ps = ns_to_ps(c.f("dram.bank_busy_ns"));
    n.bank_busy_hit_ps = 0;
    n.read_gbps = c.f("dram.bw_gbps");
    n.write_gbps = c.f("dram.bw_gbps");
    n.wpq_entries = 0;
    n.wpq_hit_latency_ps = 0;
    return n;
}

DramMc::DramMc(sc_module_name n, const Config &c, mem_image *backing)
    : MemCtrl(n, make_cfg(c), backing, false) {}

nvm_cfg NvmMc::make_cfg(const Config &c, uint32_t controllers)
{
    nvm_cfg n{};
    uint32_t ch = (uint32_t)c.i("nvm.channels");
    n.channels = ch / controllers ? ch / controllers : 1;
    n.banks = (uint32_t)c.i("nvm.banks");
    n.line_bytes = (uint32_t)c.i("l1.line_bytes");
    n.row_bytes = (uint32_t)c.i("nvm.row_bytes");
    n.read_latency_ps = ns_to_ps(c.f("nvm.read_latency_ns"));
    n.write_latency_ps = ns_to_ps(c.f("nvm.write_latency_ns"));
    n.row_hit_latency_ps = ns_to_ps(c.f("nvm.row_hit_latency_ns"));
    n.bank_busy_miss_ps = ns_to_ps(c.f("nvm.bank_busy_ns"));
    n.bank_busy_hit_ps = ns_to_ps(c.f("nvm.bank_busy_ns"));
    n.read_gbps = c.f("nvm.read_bw_gbps") / controllers;
    n.write_gbps = c.f("nvm.write_bw_gbps") / controllers;
    n.wpq_entries = (uint32_t)c.i("nvm.wpq_entries");
    n.wpq_hit_latency_ps = ns_to_ps(c.f("nvm.wpq_hit_latency_ns"));
    if (c.b("system.pm_in_dram")) {
        // DRAM-only baseline: the persistent region's channels hold DRAM (DRAM timing, no WPQ).
        n.read_latency_ps = n.write_latency_ps = ns_to_ps(c.f("dram.latency_ns"));
        n.row_hit_latency_ps = ns_to_ps(c.f("dram.row_hit_latency_ns"));
        n.bank_busy_miss_ps = ns_to_ps(c.f("dram.bank_busy_ns"));
        n.bank_busy_hit_ps = 0;
        n.wpq_entries = 0;
    }
    return n;
}

NvmMc::NvmMc(sc_module_name n, const Config &c, mem_image *backing, uint32_t controllers)
    : MemCtrl(n, make_cfg(c, controllers), backing, true),
      eadr_(c.b("system.eadr") && c.s("system.pm_placement") == "far"),
      llc_ps_(ns_to_ps(c.f("host.llc_latency_ns"))), dram_only_(c.b("system.pm_in_dram")) {}

void NvmMc::b_transport(tlm::tlm_generic_payload &gp, sc_time &delay)
{
    MemExt *e = mem_ext(gp);
    if (gp.is_read()) {
        if (eadr_) delay += ps(llc_ps_);      // reads pass the host LLC too
        MemCtrl::b_transport(gp, delay);
        return;
    }
    const uint64_t t = now_ps() + delay.value();
    const uint32_t lb = gp.get_data_length();
    uint64_t accept;
    uint32_t bytes = e ? sector_bytes(e->mask, lb) : lb;
    if (eadr_) {
        // eADR: durable once in the host LLC; the LLC writes back to NVM in the background, which
        // still consumes NVM bandwidth (reserved here) but no longer sits on the ack path.
        accept = t + llc_ps_;
        uint64_t wpq_accept;
        nvm_write(core_, accept, gp.get_address(), bytes, &wpq_accept);
    } else {
        nvm_write(core_, t, gp.get_address(), bytes, &accept);
    }
    if (e) mem_write_masked(img_, gp.get_address(), gp.get_data_ptr(), lb, e->mask);
    else mem_write(img_, gp.get_address(), gp.get_data_ptr(), lb);
    if (e && !dram_only_) {
        e->durable_ps = accept;
        ++persists_;
        durable_bytes_ += bytes;
        sum_durable_lat_ps_ += accept - t;
        if (sink_) sink_->on_durable_ids(accept, gp.get_address(), gp.get_data_ptr(), e->mask, lb, e->sm, e->writers);
    }
    delay = ps(accept - now_ps());
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

void NvmMc::report(StatsWriter &w, uint64_t sim_ps) const
{
    MemCtrl::report(w, sim_ps);
    const std::string g = name();
    w.add(g, "persisted_writes", persists_, "writes", "writes that reached the persistence domain (ADR WPQ or eADR LLC)");
    w.add(g, "persisted_bytes", durable_bytes_, "B", "bytes made durable");
    w.add(g, "avg_persist_latency_ns", persists_ ? sum_durable_lat_ps_ / 1000.0 / persists_ : 0, "ns",
          "average time from arrival at the controller to durability");
    w.add(g, "eadr", eadr_ ? 1 : 0, "bool", "1 if the host LLC is in the persistence domain");
}

} // namespace persim
