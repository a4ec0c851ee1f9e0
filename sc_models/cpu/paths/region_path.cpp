// RegionPath: the persist path of the region models (LightWSP and its PPA- and Capri-like baselines;
// docs/models/lightwsp.md). A store leaves the store buffer into the front-end buffer (cores/fe_buf:
// FIFO, CAM for the L1's buffer snooping, IV-G) tagged with its region and goes, 8 bytes (Capri: 64)
// at a time, to the controller that owns its address; a region's boundary follows its stores to
// every controller (IV-B). Region IDs, durability, the end-of-region policy (LightWSP lazy, PPA
// waits at the core, Capri holds the path) and the checkpoint layout are the C core
// cores/region_seq's; this file maps them onto time and the wires (path_wires.h).
#include <algorithm>
#include <cstring>
#include <deque>
#include <memory>
#include <sstream>
#include <vector>
#include "cores_util.h"
#include "cpu_model.h"
#include "path_wires.h"
#include "region_check.h"
#include "wpq_gate_fe.h"
extern "C" {
#include "fe_buf.h"
#include "region_seq.h"
}

namespace persim {
using namespace sc_core;

namespace {
static_assert(kPcSlot == RSEQ_PC_SLOT, "the PC slot of the checkpoint layout");

class RegionPersistence;

class RegionPath : public PathWires {
public:
    SC_HAS_PROCESS(RegionPath);
    RegionPath(const CpuPathSite &s, PmControllers &pm, RegionPersistence &rp);

    void plan(const persim_prog *prog, uint64_t begin, uint64_t end, region_plan *p) override;
    bool may_go(bool, uint64_t, PathStall *s) override;
    void checkpoint(uint32_t slot, uint64_t *addr, uint64_t *value) override;
    void region_end(uint64_t t) override;
    bool store_room(uint64_t addr, uint32_t bytes, uint64_t t, PathStall *s) override;
    void store(uint64_t addr, uint32_t bytes, const uint8_t *data, uint64_t t) override;
    bool durable_point(PathStall *s) override;
    int32_t victim(cache *c, uint64_t line, uint64_t t) override;
    bool idle() const override { return q_.empty() && wires_idle(); }
    void power_off() override;
    std::string describe() const override;
    void report(StatsWriter &w, const std::string &g) const override;
    void on_late_ack(uint64_t token, uint64_t at) override;
    void trace(sc_core::sc_trace_file *tf, const std::string &prefix) override
    {
        trace_signals(tf, prefix, "fe_buffer_occupancy", "region");
        vcd_sample();
    }
    // Region IDs were freed while every ID was live: a thread of this path waiting for one may go.
    void ids_freed(uint64_t at) { host_.wake_if(wait_bit(CpuWait::REGION), std::max(at, now_ps())); }

private:
    void path_step();
    void slot_freed(uint64_t at) override { host_.wake_if(wait_bit(CpuWait::FE_FULL) | wait_bit(CpuWait::VICTIM), at); }
    bool fe_room(uint64_t t);
    void vcd_sample()
    {
        if (!vcd_) return;
        vcd_buffer_ = fe_buf_count(fe_.get());
        const uint64_t r = rseq_current(seq_, id_);
        vcd_id_ = r == RSEQ_NO_ID ? -1 : (int64_t)r;
    }
    RegionPersistence &rp_;
    region_seq *seq_;
    CoreState<fe_buf, fe_buf_cfg> fe_;
    std::deque<Item> q_;            // front-end buffer entries not yet sent, and boundaries
};

class RegionPersistence : public CpuPersistence {
public:
    explicit RegionPersistence(const CpuPersistEnv &e)
        : cfg_(e.cfg), model_(e.model),
          seq_((check(e), region_seq_cfg{e.cfg.cores + e.cfg.rdma_channels, gate(e.cc).rid_bits,
                                        (uint32_t)e.model.policy, e.cfg.sys.pm_base + (1ull << 39), gate(e.cc).regions}),
               region_seq_bytes, region_seq_init,
               "invalid region sequencer: cpu.cores + rdma.channels must be 1..4096, wpq_gate.rid_bits 1..16 "
               "and wpq_gate.regions < 2^wpq_gate.rid_bits")
    {
        if (e.cfg.crash_check) check_ = std::make_unique<RegionCheck>(e.backing);
    }
    std::unique_ptr<CpuPersistPath> make_path(const CpuPathSite &s, PmControllers &pm) override
    {
        auto p = std::make_unique<RegionPath>(s, pm, *this);
        paths_.push_back(p.get());
        return p;
    }
    bool idle() const override { return rseq_idle(seq_.get()); }
    // Every region ID is live (rseq_open refuses): a thread that wants one waits for the oldest to
    // become durable, which the acks of *another* thread's path may bring. Call before an event that
    // may free IDs (an ack, a region end), then ids_maybe_freed after it: the waiting threads of every
    // path are woken when IDs were freed.
    bool ids_exhausted() const { return rseq_ids_exhausted(seq_.get()); }
    void ids_maybe_freed(bool were_exhausted, uint64_t at)
    {
        if (were_exhausted && !ids_exhausted())
            for (RegionPath *p : paths_) p->ids_freed(at);
    }
    std::string progress() const override
    {
        return std::to_string(rseq_oldest_live(seq_.get())) + "/" + std::to_string(rseq_taken(seq_.get())) +
               " regions durable";
    }
    DurableSink *checker() override { return check_.get(); }
    void power_fail(uint64_t t) override
    {
        if (check_) check_->power_fail(t);
    }
    void finish_check(const CheckCtx &c) override
    {
        if (check_) check_->finish(c);
    }
    void report_check(StatsWriter &w) override
    {
        if (check_) check_->report(w);
    }
    uint64_t persist_latency_ps() const override { return rseq_persist_latency_ps(seq_.get()); }

    // A write of region `region` enters a path: its write id (and the checker's record of it).
    // thread: the path's id; ctrl: the controller it goes to; t: when it entered the path.
    uint64_t new_write(uint64_t region, uint64_t word, uint64_t mask, const uint8_t data[8], uint32_t thread, uint32_t ctrl,
                       uint64_t t)
    {
        const uint64_t wid = next_wid_++;
        if (check_) check_->path_write(wid, (uint32_t)region, word, mask, data, thread, ctrl, t);
        return wid;
    }
    // Region `region`'s boundary left a path; it reaches the last controller at last_ps.
    void boundary_sent(uint64_t region, uint64_t last_ps)
    {
        if (check_) check_->persisted((uint32_t)region, last_ps);
    }
    region_seq *seq() const { return seq_.get(); }
    const CpuCfg &cfg_;
    const CpuModel &model_;

private:
    // The region tags' width is the WPQ gate's region ID (wpq_gate.rid_bits); its region window
    // (wpq_gate.regions) is how many tags a controller may still hold behind the oldest live region.
    static wpq_gate_cfg gate(const Config &c)
    {
        wpq_gate_cfg g{};
        wpq_gate_table().fill(c, g);
        return g;
    }
    static void check(const CpuPersistEnv &e)
    {
        if (e.cfg.threads_per_core > 1)
            throw ConfigError("cpu.threads_per_core: model '" + std::string(e.model.name) + "' forms regions, and its "
                              "front-end buffer snooping (LightWSP IV-G) is per hardware thread; threads sharing an L1 "
                              "are modelled for the barrier models only (set cpu.threads_per_core = 1)");
    }
    CoreState<region_seq, region_seq_cfg> seq_;
    std::unique_ptr<RegionCheck> check_;
    std::vector<RegionPath *> paths_;      // every path made (owned by the cores)
    uint64_t next_wid_ = 1;
};

RegionPath::RegionPath(const CpuPathSite &s, PmControllers &pm, RegionPersistence &rp)
    : PathWires(s, rp.cfg_, pm, rp.model_.path_bytes), rp_(rp), seq_(rp.seq()),
      fe_(fe_buf_cfg{rp.cfg_.fe_entries, rp.cfg_.sys.line_bytes}, fe_buf_bytes, fe_buf_init,
          "persist_path.fe_entries: invalid front-end buffer (1..4096 entries, l1.line_bytes 8..128)")
{
    SC_METHOD(path_step);
    sensitive << path_ev_;
    dont_initialize();
}

void RegionPath::plan(const persim_prog *prog, uint64_t begin, uint64_t end, region_plan *p)
{
    if (region_form(prog, begin, end, &cfg_.regions, p) != 0) throw ConfigError("region formation failed (regions.* keys)");
}

bool RegionPath::may_go(bool, uint64_t, PathStall *s)
{
    if (rseq_core_may_go(seq_, id_)) return true;      // PPA: the core waits at the region end (woken by acks)
    *s = PathStall{CpuWait::REGION, UINT64_MAX};
    return false;
}

void RegionPath::checkpoint(uint32_t slot, uint64_t *addr, uint64_t *value) { rseq_ckpt(seq_, id_, slot, addr, value); }

void RegionPath::region_end(uint64_t t)
{
    Item b{};
    const bool exhausted = rp_.ids_exhausted();
    if (!rseq_end(seq_, id_, t, &b.region)) return;     // no store on the path since the last boundary
    rp_.ids_maybe_freed(exhausted, t);
    vcd_sample();
    b.message = true;
    b.tag = rseq_tag(seq_, b.region);
    q_.push_back(b);
    path_ev_.notify(SC_ZERO_TIME);
}

bool RegionPath::durable_point(PathStall *s)
{
    if (rseq_durable_point(seq_, id_)) return true;
    *s = PathStall{CpuWait::REGION, UINT64_MAX};
    return false;
}

bool RegionPath::fe_room(uint64_t t)
{
    frees_.pop_due(t, [&](uint64_t seq) { fe_buf_ack(fe_.get(), seq); });
    vcd_sample();
    return !fe_buf_full(fe_.get());
}

bool RegionPath::store_room(uint64_t addr, uint32_t bytes, uint64_t t, PathStall *s)
{
    const uint64_t words = (addr + bytes - 1) / 8 - addr / 8 + 1;
    if (!fe_room(t) || cfg_.fe_entries - fe_buf_count(fe_.get()) < words) {
        *s = PathStall{CpuWait::FE_FULL, victim_retry_at()};
        return false;
    }
    if (rseq_open(seq_, id_) == RSEQ_NO_ID) {     // every region ID is live: wait for the oldest
        *s = PathStall{CpuWait::REGION, UINT64_MAX};
        return false;
    }
    return true;
}

void RegionPath::store(uint64_t addr, uint32_t bytes, const uint8_t *data, uint64_t t)
{
    const uint64_t region = rseq_current(seq_, id_);
    for (uint64_t w = addr / 8; w <= (addr + bytes - 1) / 8; ++w) {
        Item it{};
        it.word = w;
        it.region = region;
        it.tag = rseq_tag(seq_, region);
        for (uint32_t b = 0; b < bytes; ++b) {
            const uint64_t a = addr + b;
            if (a / 8 != w) continue;
            it.data[a % 8] = data[b];
            it.mask |= 1ull << (a % 8);
        }
        it.wid = rp_.new_write(region, w, it.mask, it.data, id_, pm_.owner(w * 8), t);
        rseq_write(seq_, region);
        uint64_t d64;
        std::memcpy(&d64, it.data, 8);
        fe_buf_push(fe_.get(), w, d64, it.tag, &it.seq);      // room checked by store_room
        q_.push_back(it);
        ++path_writes_;
    }
    vcd_sample();
    path_ev_.notify(SC_ZERO_TIME);
}

// Victim: a dirty line with a store still in the front-end buffer must not leave before it (buffer
// snooping, IV-G); the policy (cores/fe_buf.h) says how far to look.
int32_t RegionPath::victim(cache *c, uint64_t line, uint64_t t)
{
    fe_room(t);
    const int pol = cfg_.victim_policy == VictimPolicy::FULL ? FE_VICTIM_FULL
                  : cfg_.victim_policy == VictimPolicy::HALF ? FE_VICTIM_HALF
                  : cfg_.victim_policy == VictimPolicy::ZERO ? FE_VICTIM_ZERO : FE_VICTIM_NONE;
    return fe_buf_victim(fe_.get(), c, line, pol, nullptr);
}

void RegionPath::path_step()
{
    if (off_) return;
    const uint64_t now = now_ps();
    while (!q_.empty()) {
        const Item &it = q_.front();
        // Capri with several controllers: the next region's stores wait until the previous one drained.
        if (!it.message && !rseq_path_may_send(seq_, id_)) return;    // woken by its acks
        const uint64_t free = link_free_at(&link_);
        if (free > now) {
            path_ev_.notify(ps(free - now));
            return;
        }
        if (it.message) {
            // the boundary goes to every controller (IV-B); persisted once the last one has it
            rp_.boundary_sent(it.region, send(it, -1, now));
            rseq_boundary_sent(seq_, id_, it.region);
        } else {
            fe_buf_entry fe;
            fe_buf_next_send(fe_.get(), &fe);        // the same entry: the buffer and the path are both FIFO
            outstanding_[it.wid] = Out{it.seq, it.region, false};
            send(it, pm_.owner(it.word * 8), now);
        }
        q_.pop_front();
    }
}

void RegionPath::on_late_ack(uint64_t token, uint64_t at)
{
    auto it = outstanding_.find(token);
    if (it == outstanding_.end()) return;
    free_slot(token, at);
    const uint64_t region = it->second.region;
    outstanding_.erase(it);
    const bool exhausted = rp_.ids_exhausted();
    rseq_ack(seq_, region, at);
    host_.wake_if(wait_bit(CpuWait::REGION), std::max(at, now_ps()));
    rp_.ids_maybe_freed(exhausted, at);
    if (rseq_path_holds(seq_, id_)) path_ev_.notify(SC_ZERO_TIME);
}

void RegionPath::power_off()
{
    off_ = true;
    q_.clear();          // the front-end buffer and the path are volatile
}

std::string RegionPath::describe() const
{
    std::ostringstream o;
    const uint64_t open = rseq_current(seq_, id_);
    o << ", region " << (open == RSEQ_NO_ID ? -1 : (int64_t)open) << ", front-end buffer " << fe_buf_count(fe_.get())
      << "/" << cfg_.fe_entries << ", " << q_.size() << " unsent, " << outstanding_.size() << " unacknowledged";
    return o.str();
}

void RegionPath::report(StatsWriter &w, const std::string &g) const
{
    report_common(w, g, path_writes_, fe_buf_get_stats(fe_.get()), link_.st.busy_ps / 1000.0);
}

} // namespace

std::unique_ptr<CpuPersistence> make_region_persistence(const CpuPersistEnv &e)
{
    return std::make_unique<RegionPersistence>(e);
}

} // namespace persim
