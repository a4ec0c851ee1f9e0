// The SBRP persist buffer beside an L1 (model `sbrp`, persist/sbrp.cpp): the SystemC side of the
// `sbrp_pb` core (cores/sbrp_pb.h, the block the RTL co-simulation checks).
#include "cores_util.h"
#include "persist/sbrp_pb_hw.h"
#include <sstream>
#include <vector>
#include "config_table.h"
#include "l1.h"
#include "sm.h"
extern "C" {
#include "cache.h"
#include "sbrp_pb.h"
}

namespace persim {
namespace {

// persist.* keys of the SBRP persist buffer: the core's sbrp_pb_cfg (entries, policy, window; warps
// and lines come from the SM and its L1) and the coverage an entry count of 0 is derived from.
struct SbrpPbCfg {
    sbrp_pb_cfg pb;
    double pb_coverage_pct;
};

const ConfigTable<SbrpPbCfg> &sbrp_pb_table()
{
    using K = SbrpPbCfg;
    static const ConfigTable<K> t =
        ConfigTable<K>("sbrp_pb", "sc_models/gpu/persist/sbrp_pb_hw.cpp")
            .row(config_def("persist.flush_policy", PType::Enum, "window", "-", "SBRP PB flush policy (section 6.2)", -1e300, 1e300,
                            {"eager", "lazy", "window"}),
                 "sbrp_pb_cfg::policy", "", [](K &k, const Config &c) {
                     const std::string pol = c.s("persist.flush_policy");
                     k.pb.policy = pol == "eager" ? SBRP_EAGER : pol == "lazy" ? SBRP_LAZY : SBRP_WINDOW;
                 })
            .row(config_def("persist.window", PType::Int, 6, "lines",
                            "max flushed, unacknowledged persists per SM under the window policy (Table 1)", 1, 1024),
                 "sbrp_pb_cfg::window", "WINDOW", [](K &k, const Config &c) { k.pb.window = (uint32_t)c.i("persist.window"); })
            .real("persist.pb_coverage_pct", PERSIM_FIELD(K, pb_coverage_pct), 50.0, "%", 0.1, 100,
                  "PB entries as a percentage of L1 lines (Table 1 text: 50%)")
            .row(config_def("persist.pb_entries", PType::Int, 0, "entries", "PB entries; 0 = derived from persist.pb_coverage_pct", 0, 65534),
                 "sbrp_pb_cfg::entries (0: from pb_coverage_pct)", "", [](K &k, const Config &c) {
                     k.pb.entries = (uint32_t)c.i("persist.pb_entries");
                 });
    return t;
}
PERSIM_CONFIG_TABLE(sbrp_pb_table, 400);

// The persist buffer of one L1.
class SbrpL1 : public L1Persist {
public:
    SbrpL1(const Config &c, L1 &l1) : l1_(l1), cache_(l1.cache_core())
    {
        SbrpPbCfg k{};
        sbrp_pb_table().fill(c, k);
        sbrp_pb_cfg pc = k.pb;
        uint32_t lines = cache_num_lines(cache_);
        int64_t e = pc.entries;
        if (e == 0) e = (int64_t)((double)lines * k.pb_coverage_pct / 100.0 + 0.5);
        if (e < 1) e = 1;
        pc.entries = (uint32_t)e;
        pc.warps = l1.gpu_cfg().max_warps_per_sm;
        pc.lines = lines;
        pb_ = mem_.make(pc, sbrp_pb_bytes, sbrp_pb_init,
                        "persist: invalid persist-buffer configuration (persist.pb_entries / pb_coverage_pct)");
        hist_.init(pc.entries);
    }

    StallWhy store(uint32_t warp, int32_t idx) override
    {
        cache_line *l = cache_line_at(cache_, idx);
        uint32_t entry;
        sbrp_result r = sbrp_pb_store(pb_, warp, (uint32_t)idx, l->pb_index, &entry);
        if (r == SBRP_STALL_ORDER) return StallWhy::EDM;
        if (r == SBRP_STALL_FULL) return StallWhy::PB_FULL;
        if (r == SBRP_ALLOCATED) l->pb_index = (uint16_t)entry;
        return StallWhy::NONE;
    }
    bool pinned(int32_t idx) const override
    {
        const cache_line *l = cache_line_at_const(cache_, idx);
        if (!l->present || l->pb_index == CACHE_NO_PB) return false;
        return !sbrp_pb_can_evict(pb_, l->pb_index);
    }
    bool evict(uint32_t warp, int32_t idx, uint32_t *phase) override
    {
        uint32_t line;
        *phase = 0;
        return sbrp_pb_evict(pb_, warp, cache_line_at(cache_, idx)->pb_index, &line, phase) == SBRP_OK;
    }
    bool holds(int32_t idx) const override { return cache_line_at_const(cache_, idx)->pb_index != CACHE_NO_PB; }
    FenceResult fence(uint32_t warp, Prim p) override
    {
        sbrp_type t = p == Prim::OFENCE ? SBRP_OFENCE : p == Prim::DFENCE ? SBRP_DFENCE : p == Prim::PACQ_BLK ? SBRP_ACQ_BLK
                      : p == Prim::PREL_BLK ? SBRP_REL_BLK : p == Prim::PACQ_DEV ? SBRP_ACQ_DEV : SBRP_REL_DEV;
        sbrp_result r = sbrp_pb_fence(pb_, warp, t);
        return r == SBRP_STALL_FULL ? FenceResult::FULL : r == SBRP_STALL_FENCE ? FenceResult::WAIT : FenceResult::OK;
    }
    void ack(uint32_t phase) override { sbrp_pb_ack(pb_, phase); }
    void pump() override
    {
        uint32_t line, phase;
        sbrp_drain r;
        while ((r = sbrp_pb_drain(pb_, &line, &phase)) != SBRP_DRAIN_IDLE)
            if (r == SBRP_DRAIN_FLUSH) l1_.persist_writeback((int32_t)line, phase);
        sample();
    }
    void sample() override
    {
        hist_.update(now_ps(), sbrp_pb_count(pb_));
        actr_mirror_ = sbrp_pb_actr(pb_);
    }
    uint64_t stalled() const override { return sbrp_pb_stalled(pb_); }
    void drain_all(bool on) override { sbrp_pb_drain_all(pb_, on ? 1 : 0); }
    bool idle() const override { return sbrp_pb_empty(pb_) && sbrp_pb_actr(pb_) == 0; }
    std::string describe() const override
    {
        std::ostringstream o;
        o << "ODM=0x" << std::hex << sbrp_pb_odm(pb_) << " EDM=0x" << sbrp_pb_edm(pb_) << std::dec
          << " ACTR=" << sbrp_pb_actr(pb_) << " entries=" << sbrp_pb_count(pb_);
        return o.str();
    }
    void trace(sc_core::sc_trace_file *tf, const std::string &l1_name) override
    {
        sc_core::sc_trace(tf, hist_.cur, l1_name + ".pb_occupancy");
        sc_core::sc_trace(tf, actr_mirror_, l1_name + ".actr");
    }
    void report(StatsWriter &w, const std::string &g, uint64_t sim_ps) override
    {
        const sbrp_pb_stats *s = sbrp_pb_get_stats(pb_);
        const std::string p = g + ".pb";
        w.add(p, "stores", s->stores, "persists", "PM stores presented to the PB");
        w.add(p, "coalesced", s->coalesced, "persists", "stores coalesced into an existing entry");
        w.add(p, "allocated", s->allocated, "entries", "entries allocated by stores");
        w.add(p, "fences", s->fences, "fences", "ordering operations (oFence, dFence, pAcq, pRel)");
        w.add(p, "fences_coalesced", s->fences_coalesced, "fences", "ordering operations merged into the tail entry");
        w.add(p, "flushes", s->flushes, "lines", "persists flushed from the PB head");
        w.add(p, "evictions", s->evictions, "lines", "persists that left early by eviction");
        w.add(p, "stall_order", s->stall_order, "events", "stores/evictions stalled by an ordering entry (EDM)");
        w.add(p, "stall_full", s->stall_full, "events", "operations stalled on a full PB");
        w.add(p, "stall_fence", s->stall_fence, "events", "dFence / device-scope operations that stalled (ODM)");
        w.add(p, "fsm_blocks", s->fsm_blocks, "events", "head persists held by the FSM until ACTR reached zero");
        hist_.update(sim_ps, hist_.cur);
        std::vector<std::string> labels;
        for (uint32_t b = 0; b < hist_.nbins; ++b)
            labels.push_back(std::to_string(b * 100 / hist_.nbins) + "-" + std::to_string((b + 1) * 100 / hist_.nbins) + "%");
        std::vector<double> ns;
        for (double v : hist_.bins) ns.push_back(v / 1000.0);
        w.add_hist(p, "occupancy_hist", ns, labels, "ns", "time spent with the PB filled to each fraction of its entries");
        w.add(p, "avg_occupancy", sim_ps ? hist_.weighted / sim_ps : 0, "entries", "time-averaged occupied entries");
        w.add(p, "peak_occupancy", hist_.peak, "entries", "most entries in use at once");
        w.add(p, "entries", sbrp_pb_config(pb_)->entries, "entries", "PB capacity");
    }

private:
    L1 &l1_;
    cache *cache_;
    CoreState<sbrp_pb, sbrp_pb_cfg> mem_;
    sbrp_pb *pb_;
    OccupancyHist hist_;
    uint32_t actr_mirror_ = 0;
};

// The SM side of the PB primitives: a fence stalls its warp while the PB says so.
class SbrpHw : public PersistHw {
public:
    void exec(Sm &sm, WarpCtx &w, Prim p, const persim_op &, uint64_t t) override
    {
        L1Result r = sm.l1->persist_fence(w.slot, p);
        if (r.done) {
            sm.advance_prim(w);
            w.ready_ps = r.ready_ps;
            return;
        }
        if (r.advance) sm.advance_prim(w);
        sm.stall(w, Wait::PB, r.advance ? ST_ODM : ST_PB_FULL, t);
        if (!(sm.l1->persist_stalled() >> w.slot & 1)) sm.resume(w, t + sm.period_ps());
    }
};

} // namespace

std::unique_ptr<L1Persist> make_sbrp_pb(const Config &c, L1 &l1) { return std::make_unique<SbrpL1>(c, l1); }
std::unique_ptr<PersistHw> make_sbrp_pb_exec() { return std::make_unique<SbrpHw>(); }

} // namespace persim
