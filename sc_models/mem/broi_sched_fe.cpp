// Front end `broi`: the BROI controller of "Persistence Parallelism Optimization"
// (broi-persistence-parallelism.md, IV-C/D/E) in front of the device: a thin wrapper of
// cores/broi_sched.h, which makes every decision (entries, barrier sets, BLP-aware choice,
// local-before-remote, starvation, the completion floors of barrier sets and global epochs, the
// per-line completion order); this file maps time and messages onto core calls.
//
// Mapping:
//   entry    a write of requester (hardware thread) r goes to local entry r % broi.local_entries
//            (IV-E: one entry per thread); a remote writer (requester >= kRemoteRequester, an RDMA
//            channel) goes to remote entry channel % broi.remote_entries.
//   unit     {bank, tag}: bank = the device bank of the address as cores/nvm computes it
//            (nvm_bank_of: (addr / row_bytes) % nvm.banks), masked to the core's bank count. The core
//            has a power of two <= 16 banks: nvm.banks when it is one, otherwise the largest power of
//            two below min(nvm.banks, 16); device banks d and d + k*core_banks then share BROI bank d.
//            tag = a free slot of the entry (< 2^broi.tag_bits) that maps back to the write id.
//   barrier  McMsg::BARRIER with src = the requester: broi_sched_barrier on its entry.
//   order    writes and barriers of one entry enter the core in arrival order: an operation the
//            core refuses (BROI_FULL: no free unit / barrier register) waits in a per-entry FIFO
//            with everything behind it, and is retried after the next schedule step frees room.
// Scheduling: one broi_sched_schedule clock per period (broi.clock_ghz) while anything is
// buffered, never otherwise (no wake-up when idle). With the serial scheduler (broi.serial = K) a
// decision takes ceil(entries / K) clocks; the sweep is clocked to its end, but an idle or blocked
// scheduler stops clocking and starts at the sweep position it stopped at when it wakes (the
// hardware's free-running sweep could be at another phase then: up to one sweep of difference per
// wake-up). bank_ready bit b = some device bank that BROI
// bank b stands for is free now (nvm_bank_free_at <= now) and the memory controller's write queue
// is not full; mc_low = device writes in flight < half of broi.mc_queue_entries (the paper only
// says "low utilization"; half is our rule). A step that issues nothing sleeps until the next bank
// frees (or an in-flight write completes, when the queue was full), at least one period.
// Acknowledgement (durability): in BPS a persist is done when its NVM write is done (IV-C, the
// memory controller acknowledges after the request drained to the device, step 8-9 of Figure 6(b));
// so a write is acknowledged late (kAckLater) at the completion time of its device write. The
// durability order is the core's (cores/broi_sched.h, cfg.order): each issued request comes with
// its start floor (the earlier barrier sets of its entry, and with broi.epoch_merge the earlier
// global epochs, have completed), which the front end maps to the device write's start time
// (max(now, floor)); the device's completion goes back through broi_sched_complete, which returns
// it in per-line issue order (the completion the write is acknowledged at) and records it for the
// floors. The core's line table has broi.mc_queue_entries + banks slots, more than the writes
// this front end can have in flight.
#include "cores_util.h"
#include "broi_sched_fe.h"
#include "fe_tuning.h"
#include "mem_ctrl.h"
#include <algorithm>
#include <deque>
#include <functional>
#include <queue>
#include <sstream>
#include <vector>
#include <cmath>
extern "C" {
#include "broi_sched.h"
}

namespace persim {

// The BROI controller's keys: the scheduler core's (cores/broi_sched.h; each a Verilog parameter of
// rtl/broi_sched.v, so a config names its RTL preset: configs/rtl_presets.json, checked by
// cli.ConfigTables.*) and the front end's own (its clock, the controller queue behind it).
const ConfigTable<broi_sched_cfg> &broi_sched_table()
{
    using K = broi_sched_cfg;
    static const ConfigTable<K> t =
        ConfigTable<K>("broi_sched", "sc_models/mem/broi_sched_fe.cpp")
            .num("broi.local_entries", PERSIM_FIELD(K, local_entries), 8, "entries", 1, 32,
                 "broi front end: local BROI entries, one per hardware thread (requester r uses entry r % this; BROI "
                 "IV-E: eight, one per core)", "LOCAL")
            .num("broi.remote_entries", PERSIM_FIELD(K, remote_entries), 2, "entries", 0, 31,
                 "broi front end: remote BROI entries for RDMA writers (BROI IV-E: two, one per RDMA channel; no local "
                 "writer uses them)", "REMOTE")
            .num("broi.units", PERSIM_FIELD(K, units), 8, "requests", 1, 16,
                 "broi front end: request units per BROI entry (BROI IV-E: 8)", "UNITS")
            .num("broi.local_barriers", PERSIM_FIELD(K, local_barriers), 2, "registers", 1, 2,
                 "broi front end: barrier index registers per local entry (BROI IV-E: two)", "LBARS")
            .num("broi.remote_barriers", PERSIM_FIELD(K, remote_barriers), 1, "registers", 1, 2,
                 "broi front end: barrier index registers per remote entry (BROI IV-E: one)", "RBARS")
            .num("broi.tag_bits", PERSIM_FIELD(K, tag_bits), 4, "bits", 1, 8,
                 "broi front end: request tag width (BROI IV-E: 4-bit persist-buffer index); >= log2(broi.units)", "TAG_W")
            .num("broi.sigma_eighths", PERSIM_FIELD(K, sigma), 4, "1/8", 0, 15,
                 "broi front end: sigma of eq. 2 in eighths (BROI IV-D gives no value, only that BLP weighs more than "
                 "size; 4 = 0.5, as the core tests and RTL presets)", "SIGMA")
            .num("broi.starve_steps", PERSIM_FIELD(K, starve), 64, "steps", 1, 65535,
                 "broi front end: schedule steps a blocked remote entry waits before it beats local ones (BROI IV-D "
                 "Discussion 1 gives no number; 64 as the broi_table2 RTL preset)", "STARVE")
            .num("broi.serial", PERSIM_FIELD(K, serial), 0, "entries/cycle", 0, 32,
                 "broi front end: 0 = the parallel scheduler (eq. 2 for every entry each cycle, the paper's); K >= 1 = "
                 "persim's serial variant (cores/broi_sched.h, rtl/broi_sched.v SERIAL): K entries evaluated per cycle, "
                 "one decision every ceil(entries / K) cycles (results/area/broi_design_space.md)", "SERIAL")
            .row(config_def("broi.epoch_merge", PType::Bool, false, "-",
                            "broi front end: merge every local entry's i-th barrier set into global epoch i, no "
                            "BLP-aware choice (cores/broi_sched.h epoch_merge: the Epoch baseline of BROI section "
                            "III, Figure 3(a); set by the cpu model broi-epoch; false = BROI's per-thread sets)"),
                 "broi_sched_cfg::epoch_merge", "MERGE",
                 [](K &k, const Config &c) { k.epoch_merge = c.b("broi.epoch_merge") ? 1 : 0; });
    return t;
}
PERSIM_CONFIG_TABLE(broi_sched_table, 600);

const ConfigTable<BroiFeCfg> &broi_fe_table()
{
    using K = BroiFeCfg;
    static const ConfigTable<K> t =
        ConfigTable<K>("broi front end", "sc_models/mem/broi_sched_fe.cpp")
            .row(config_def("broi.clock_ghz", PType::Float, 2.5, "GHz",
                            "broi front end: BROI controller clock, one schedule step per cycle (Table III: 2.5 "
                            "GHz; IV-E: the scheduling logic takes about 0.4 ns = one such cycle)", 0.001, 100),
                 "BroiFeCfg::period_ps", "",
                 [](K &k, const Config &c) {
                     k.period_ps = std::max<uint64_t>(1, (uint64_t)std::llround(1000.0 / c.f("broi.clock_ghz")));
                 })
            .num("broi.mc_queue_entries", PERSIM_FIELD(K, mc_entries), 64, "entries", 1, 65536,
                 "broi front end: memory-controller write queue behind the BROI controller (Table III: 64 entries); "
                 "device writes in flight; full = no issue, under half = low utilisation (remote entries may issue)");
    return t;
}
PERSIM_CONFIG_TABLE(broi_fe_table, 610);

namespace {

class BroiSchedFe : public WriteQueue {
public:
    BroiSchedFe(const Config &c, McPort &p) : port_(p)
    {
        broi_sched_cfg bc{};
        broi_sched_table().fill(c, bc);
        if (p.config().tuning) p.config().tuning->apply(bc);      // the persistency model's settings
        uint32_t nb = std::min<uint32_t>(p.device_banks(), BROI_MAX_BANKS), b = 1;
        while (b * 2 <= nb) b *= 2;
        bc.banks = b;
        BroiFeCfg fc{};
        broi_fe_table().fill(c, fc);
        // Durability order in the core: floors and per-line completion order. Device writes in
        // flight are fewer than broi.mc_queue_entries before a step and grow by at most one per
        // bank in it, so this many line slots never overflow.
        bc.order = 1;
        bc.lines = fc.mc_entries + bc.banks;
        bc.line_bits = 64;
        bc.time_bits = 64;
        const std::string bad = "broi front end: invalid configuration (broi.local_entries + broi.remote_entries <= 32, "
                                "broi.units 1..16 and <= 2^broi.tag_bits, barrier registers 1..2)";
        if (bc.units > (1u << bc.tag_bits)) throw ConfigError(bad);
        s_ = mem_.make(bc, broi_sched_bytes, broi_sched_init, bad);
        period_ = fc.period_ps;
        mc_entries_ = fc.mc_entries;
        const uint32_t n = broi_sched_entries(s_);
        ent_.resize(n);
        for (auto &e : ent_) e.slot.assign(1u << bc.tag_bits, Slot{});
        issue_.resize(bc.banks);
    }

    bool acks_on_entry() const override { return false; }   // barrier-set floors, per-line completion order
    uint64_t write(uint64_t t, const McWrite &w) override
    {
        const uint32_t e = entry_of(w.requester);
        const uint32_t bank = port_.device_bank_of(w.addr) & (broi_sched_config(s_)->banks - 1);
        ent_[e].wait.push_back(Op{false, w.id, w.addr, w.bytes, bank});
        accept(t);
        kick(t);
        return kAckLater;
    }

    bool read(uint64_t, uint64_t, uint64_t *) override { return false; }   // data stays in the persist buffer

    // Local requester r: local entry r % local_entries; remote (RDMA channel c = r - kRemoteRequester):
    // remote entry c % remote_entries (IV-E), or a local one when the core has no remote entries.
    uint32_t entry_of(int r) const
    {
        const broi_sched_cfg *c = broi_sched_config(s_);
        if (r >= kRemoteRequester && c->remote_entries)
            return c->local_entries + (uint32_t)(r - kRemoteRequester) % c->remote_entries;
        return (uint32_t)((r < 0 ? 0 : r) % (int)c->local_entries);
    }

    void message(uint64_t t, const McMsg &m) override
    {
        if (m.kind != McMsg::BARRIER) return;
        const uint32_t e = entry_of((int)m.src);
        ent_[e].wait.push_back(Op{true, 0, 0, 0, 0});
        accept(t);
        kick(t);
    }

    void wake(uint64_t t) override
    {
        if (t < next_wake_) return;          // superseded by an earlier wake-up
        next_wake_ = kNone;
        step(t);
    }

    std::string describe() const override
    {
        size_t waiting = 0;
        for (const auto &e : ent_) waiting += e.wait.size();
        const uint32_t occ = broi_sched_occupancy(s_);
        if (!occ && !waiting) return "";
        std::ostringstream o;
        o << "broi: " << occ << " request units buffered, " << waiting << " writes/barriers waiting for room";
        return o.str();
    }

    void report(StatsWriter &w, const std::string &g, uint64_t sim_ps) const override
    {
        const broi_sched_stats *s = broi_sched_get_stats(s_);
        w.add(g, "broi_pushes", s->pushes, "requests", "write requests stored in BROI entries");
        w.add(g, "broi_barriers", s->barriers, "barriers", "barriers recorded in BROI entries");
        w.add(g, "broi_merged", s->merged, "barriers", "barriers with nothing to order (merged, dropped)");
        w.add(g, "broi_full", s->full, "events", "pushes/barriers refused by a full entry (waited in order)");
        w.add(g, "broi_issued", s->issued, "requests", "requests issued to the device");
        w.add(g, "broi_barriers_issued", s->barriers_issued, "barriers", "barriers issued to the memory controller");
        w.add(g, "broi_steps", s->steps, "steps", "schedule decisions (parallel: one per BROI clock while anything is "
                                                   "buffered; serial: one per completed sweep)");
        w.add(g, "broi_clocks", s->clocks, "cycles", "BROI scheduler clocks (equal to broi_steps with the parallel scheduler)");
        w.add(g, "broi_starve_grants", s->starve_grants, "requests", "remote requests issued because they starved");
        w.add(g, "broi_avg_occupancy", sim_ps ? occ_area_ / (double)sim_ps : 0.0, "units",
              "time-averaged request units buffered (all entries)");
        w.add(g, "broi_peak_occupancy", peak_occ_, "units", "most request units buffered at once");
        w.add(g, "broi_barrier_wait_ns", barrier_wait_ps_ / 1000.0, "ns",
              "total time issued writes waited for an earlier barrier set of their entry to complete");
    }

private:
    static constexpr uint64_t kNone = UINT64_MAX;
    struct Op {
        bool barrier;
        uint64_t id, addr;
        uint32_t bytes, bank;
    };
    struct Slot {
        bool used = false;
        uint64_t id = 0, addr = 0;
        uint32_t bytes = 0;
    };
    struct Entry {
        std::deque<Op> wait;          // not yet accepted by the core, in arrival order
        std::vector<Slot> slot;       // tag -> write
    };

    // Offer every waiting operation to the core, in order per entry, until one is refused.
    void accept(uint64_t t)
    {
        account(t);
        for (uint32_t e = 0; e < ent_.size(); ++e) {
            Entry &en = ent_[e];
            while (!en.wait.empty()) {
                const Op &op = en.wait.front();
                if (op.barrier) {
                    if (broi_sched_barrier(s_, e) == BROI_FULL) break;
                } else {
                    uint32_t tag = 0;
                    while (tag < en.slot.size() && en.slot[tag].used) ++tag;
                    if (tag == en.slot.size() || broi_sched_push(s_, e, op.bank, tag) != BROI_OK) break;
                    en.slot[tag] = Slot{true, op.id, op.addr, op.bytes};
                }
                en.wait.pop_front();
            }
        }
        peak_occ_ = std::max<uint64_t>(peak_occ_, broi_sched_occupancy(s_));
    }

    bool busy() const
    {
        if (broi_sched_occupancy(s_)) return true;
        for (uint32_t e = 0; e < ent_.size(); ++e)
            if (!ent_[e].wait.empty() || broi_sched_pending_barriers(s_, e)) return true;
        return false;
    }

    // Step at the next clock edge (not before one period after the previous step) if anything waits.
    void kick(uint64_t t)
    {
        if (!busy()) return;
        wake_later(std::max(t, last_step_ == kNone ? t : last_step_ + period_));
    }
    void wake_later(uint64_t at)
    {
        if (at >= next_wake_) return;        // an earlier (or the same) wake-up is pending
        next_wake_ = at;
        port_.wake_at(at);
    }

    void step(uint64_t t)
    {
        account(t);
        last_step_ = t;
        while (!inflight_.empty() && inflight_.top() <= t) inflight_.pop();
        const broi_sched_cfg *c = broi_sched_config(s_);
        const uint32_t dev_banks = port_.device_banks();
        uint32_t ready = 0;
        uint64_t next_free = kNone;
        const bool mc_full = mc_entries_ && inflight_.size() >= mc_entries_;
        for (uint32_t d = 0; d < dev_banks; ++d) {
            const uint64_t f = port_.device_bank_free_at(d);
            if (f <= t) ready |= 1u << (d & (c->banks - 1));
            else next_free = std::min(next_free, f);
        }
        if (mc_full) ready = 0;
        const int mc_low = 2 * inflight_.size() < mc_entries_;
        uint32_t bar = 0;
        const uint32_t n = broi_sched_schedule(s_, ready, mc_low, issue_.data(), &bar);
        for (uint32_t b = 0; b < c->banks; ++b) {
            if (!issue_[b].valid) continue;
            Entry &en = ent_[issue_[b].entry];
            Slot &sl = en.slot[issue_[b].tag];
            // The core's floor: the earlier barrier sets (and merged global epochs) have completed.
            const uint64_t start = std::max(t, issue_[b].floor);
            barrier_wait_ps_ += start - t;
            // The core puts the device's completion in line order and records it for the floors.
            const uint64_t done = broi_sched_complete(s_, t, issue_[b].entry, sl.addr / port_.config().line_bytes,
                                                      port_.device_write(start, sl.addr, sl.bytes));
            inflight_.push(done);
            sl.used = false;
            port_.ack(sl.id, done);
        }
        accept(t);      // units freed: waiting operations may enter
        if (!busy()) return;
        uint64_t next = t + period_;
        // Serial scheduler: the sweep is clocked to its end (its middle clocks issue nothing).
        if (n == 0 && bar == 0 && broi_sched_sweep_pos(s_) == 0) {
            // Nothing moved: sleep until something can change (a bank frees, a queued write drains).
            uint64_t ev = mc_full ? inflight_.top() : next_free;
            if (ev != kNone) next = std::max(next, ev);
        }
        wake_later(next);
    }

    // Occupancy integral for the time average.
    void account(uint64_t t)
    {
        if (t > last_acct_) occ_area_ += (double)broi_sched_occupancy(s_) * (double)(t - last_acct_);
        last_acct_ = std::max(last_acct_, t);
    }

    McPort &port_;
    CoreState<broi_sched, broi_sched_cfg> mem_;
    broi_sched *s_;
    std::vector<Entry> ent_;
    std::vector<broi_issue> issue_;
    std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<uint64_t>> inflight_;   // device completions
    uint64_t period_ = 400;
    uint32_t mc_entries_ = 64;
    uint64_t next_wake_ = kNone, last_step_ = kNone, last_acct_ = 0;
    double occ_area_ = 0;
    uint64_t peak_occ_ = 0, barrier_wait_ps_ = 0;
};

std::unique_ptr<WriteQueue> make(const Config &c, McPort &p) { return std::make_unique<BroiSchedFe>(c, p); }

} // namespace

const WriteQueueKind kBroiSchedFe{"broi", "BROI controller: per-thread entries split by barriers, BLP-aware issue "
                                          "to the device banks; acknowledged when the device write completes", make, true};

} // namespace persim
PERSIM_REGISTER(persim::WriteQueueKind, "broi", persim::kBroiSchedFe, 40);
