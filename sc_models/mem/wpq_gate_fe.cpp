// Front end `wpq_gate`: LightWSP's region-gated write-pending queue (cores/wpq_gate.h, the core the
// RTL co-simulation checks; lightwsp-whole-system-persistence.md sections III-B, IV-B/C/D).
//
// Every write carries its region ID (MemExt::region) and enters the queue as one 8-byte entry per
// word it moves. A requester ends a region by broadcasting a BOUNDARY to every controller
// (PmControllers::broadcast); each controller answers with a BDRY_ACK to the others over the
// controller links. The flush-ID region is persisted once its boundary is known everywhere: its
// writes are then durable and acknowledged (late acknowledgement, McPort::ack), and only its
// entries drain to the device. When none is left here the controller sends a FLUSH_ACK; with every
// other controller's FLUSH_ACK the region commits and the next one may drain. Younger regions stay
// gated, so they never persist before an older one, whichever controller they reach first.
// A write that finds the queue full (or declined in overflow mode) waits here in its persist path's
// order (one FIFO per requester), and a boundary waits behind its own path's writes.
// Deadlock (IV-D): a full queue whose flush-ID region has no boundary yet enters overflow mode;
// its entries then drain undo-logged, and its writes into a full queue are written through.
// Draining is paced by the device: an entry leaves the queue (and frees its slot) no sooner than
// 8 B / (this controller's share of nvm.write_bw_gbps) after the previous one, so a queue whose
// device cannot keep up fills and back-pressures the persist paths, as the ADR WPQ does.
#include "cores_util.h"
#include "wpq_gate_fe.h"
#include "fe_tuning.h"
#include "mem_ctrl.h"
#include <deque>
#include <map>
#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>
extern "C" {
#include "wpq_gate.h"
}

namespace persim {

const ConfigTable<wpq_gate_cfg> &wpq_gate_table()
{
    using K = wpq_gate_cfg;
    static const ConfigTable<K> t =
        ConfigTable<K>("wpq_gate", "sc_models/mem/wpq_gate_fe.cpp")
            .num("wpq_gate.regions", PERSIM_FIELD(K, regions), 8, "regions", 1, 64,
                 "wpq_gate front end: region window tracked per controller (power of two, < 2^wpq_gate.rid_bits)", "REGIONS")
            .num("wpq_gate.rid_bits", PERSIM_FIELD(K, rid_bits), 16, "bits", 1, 16,
                 "wpq_gate front end: region ID width (LightWSP: 2 B flush ID); also the width of the region tags "
                 "the persist paths put on writes and boundaries (cores/region_seq)", "RID_W")
            .row(config_def("wpq_gate.ungated", PType::Bool, false, "-",
                            "wpq_gate front end: disable the region gate (cores/wpq_gate.h ungated mode: ADR-like, "
                            "entries drain as they come); the cpu model lightwsp-ungated runs so, a deliberately "
                            "broken variant for crash checks"),
                 "wpq_gate_cfg::ungated", "UNGATED",
                 [](K &k, const Config &c) { k.ungated = c.b("wpq_gate.ungated") ? 1 : 0; });
    return t;
}
PERSIM_CONFIG_TABLE(wpq_gate_table, 500);

namespace {

class WpqGateFe : public WriteQueue {
public:
    WpqGateFe(const Config &c, McPort &p) : port_(p)
    {
        wpq_gate_cfg gc{};
        gc.entries = p.config().wpq_entries;
        gc.mcs = p.peers();
        wpq_gate_table().fill(c, gc);
        gc.addr_bits = 61;    // word (8 B) addresses of a 64-bit byte address space
        gc.data_bits = 64;
        gc.line_words = p.config().line_bytes / 8;
        gc.pf_wait = 1;
        if (p.config().tuning) p.config().tuning->apply(gc);      // the persistency model's settings
        g_ = mem_.make(gc, wpq_gate_bytes, wpq_gate_init,
                       "wpq_gate front end: invalid configuration (nvm.wpq_entries 1..4096, nvm.controllers "
                       "<= 16, wpq_gate.regions a power of two < 2^wpq_gate.rid_bits)");
        // Entries leave the queue no faster than the device writes them. The bank device: one
        // 8-byte entry per 8 B / (this controller's write bandwidth); until then they hold their
        // WPQ slot. A device that paces writes itself (pm_dimm) decides: the next entry leaves
        // when the previous one has entered the DIMM's buffer (its channel and buffer entry).
        const double gbps = p.config().dev.write_gbps;
        drain_ps_ = p.device_accepts() ? 0 : gbps > 0 ? (uint64_t)std::llround(8.0 * 1000.0 / gbps) : 0;
    }

    uint64_t write(uint64_t t, const McWrite &w) override
    {
        const uint32_t words = (w.bytes + 7) / 8;
        std::deque<Item> &q = path_of(w.requester).q;
        if (q.empty()) ++paths_gen_;     // a new head
        for (uint32_t i = 0; i < words; ++i) q.push_back(Item{false, w.id, w.region, w.addr / 8 + i, i + 1 == words});
        pump(t);
        return kAckLater;
    }

    // IV-H: an LLC read miss searches the queue while the device read starts. On a hit the PM data
    // is stale: the read is replayed after the entry drains. The drain time is not known yet (it
    // waits for its region), so persim charges one device write (the drain) and one device read
    // (the reload) from now; hits are rare (LightWSP Figure 18) and counted.
    bool read(uint64_t t, uint64_t addr, uint64_t *ready) override
    {
        const uint32_t line_words = wpq_gate_config(g_)->line_words;
        uint32_t shift = 0;
        while ((1u << shift) < line_words) ++shift;
        if (!wpq_gate_load_hit(g_, (addr / 8) >> shift)) return false;
        ++load_hits_;
        *ready = t + port_.config().dev.write_latency_ps + port_.config().dev.read_latency_ps;
        return true;
    }

    void message(uint64_t t, const McMsg &m) override
    {
        switch (m.kind) {
        case McMsg::BOUNDARY:
        {
            std::deque<Item> &q = path_of((int)m.src).q;
            if (q.empty()) ++paths_gen_;     // a new head
            q.push_back(Item{true, 0, m.region, 0, false});   // in order behind its path's writes
        }
            break;
        case McMsg::BDRY_ACK:
            wpq_gate_bdry_ack(g_, m.region);
            break;
        case McMsg::FLUSH_ACK:
            wpq_gate_flush_ack(g_, m.region);
            break;
        case McMsg::BARRIER:      // persist barriers order nothing here (regions do)
            return;
        }
        pump(t);
    }

    // IV-F: power fails at t. The persist paths are volatile: writes and boundaries still waiting to
    // enter are lost. Persisted regions keep draining and committing as the in-flight bdry-/flush-
    // ACKs arrive (battery power); the core decides when the sequence ends (wpq_gate_pf_settle):
    // persim looks once per worst-case ACK latency (a round trip on the controller link), and the
    // core ends it when its progress counter (wpq_gate_progress: entries drained or written
    // through, regions committed) has not moved since the last look and no entry can still drain
    // (wpq_gate_can_drain); then the entries left, all of unpersisted regions, are discarded
    // (ungated: the queue drains everything first, nothing is discarded). This replaces a mark
    // drains + commits * 1000003 + flush ID computed here, which stood for the same two counts.
    void power_fail(uint64_t t) override
    {
        wpq_gate_power_fail(g_);
        paths_.clear();
        ++paths_gen_;
        pf_ = true;
        pump(t);
        pf_seen_ = wpq_gate_progress(g_);
        pf_check_at_ = t + pf_wait_ps();
        port_.wake_at(pf_check_at_);
    }
    bool power_done() const override { return !pf_ || pf_done_; }
    bool acks_on_entry() const override { return wpq_gate_ack_on_entry(g_) != 0; }
    void wake(uint64_t t) override
    {
        if (pf_done_) return;
        pump(t);                        // a paced drain may go on (drain_ps_)
        if (!pf_ || t < pf_check_at_) return;
        if (!wpq_gate_pf_settle(g_, &pf_seen_)) {
            pf_check_at_ = t + pf_wait_ps();
            port_.wake_at(pf_check_at_);
            return;
        }
        int undo = 0;
        pf_discarded_ = wpq_gate_pf_discard(g_, &undo);
        pf_undo_ = undo;
        pf_done_ = true;
    }

    std::string describe() const override
    {
        if (wpq_gate_count(g_) == 0 && waiting() == 0 && unacked_.empty()) return "";
        std::ostringstream o;
        o << "wpq_gate flush ID " << wpq_gate_flush_id(g_) << " (boundary " << (wpq_gate_bdry_bit(g_) ? "received" : "not received")
          << (wpq_gate_overflow(g_) ? ", overflow mode" : "") << "), " << wpq_gate_count(g_) << " entries queued, "
          << waiting() << " waiting to enter";
        for (auto &p : paths_)
            if (!p.q.empty())
                o << "; path " << p.requester << ": " << p.q.size() << " waiting, head "
                  << (p.q.front().boundary ? "boundary" : "write") << " of region " << p.q.front().region;
        return o.str();
    }

    void report(StatsWriter &w, const std::string &g, uint64_t) const override
    {
        const wpq_gate_stats *s = wpq_gate_get_stats(g_);
        w.add(g, "wpq_pushes", s->pushes, "entries", "8-byte entries queued (region-tagged words)");
        w.add(g, "wpq_full", s->full, "events", "pushes refused by a full queue (the write waited)");
        w.add(g, "wpq_declined", s->declined, "events", "pushes declined in overflow mode (the write waited)");
        w.add(g, "wpq_drains", s->drains, "entries", "entries drained to the device");
        w.add(g, "wpq_undo_drains", s->undo_drains, "entries", "entries drained undo-logged (overflow mode, IV-D)");
        w.add(g, "wpq_bypasses", s->bypasses, "writes", "overflow-mode words written through a full queue");
        w.add(g, "wpq_commits", s->commits, "regions", "regions committed at this controller");
        w.add(g, "wpq_deadlocks", s->deadlocks, "events", "deadlocks detected (full queue, flush-ID boundary missing)");
        w.add(g, "wpq_window_errors", s->window_errors, "events", "boundaries/ACKs outside the region window (dropped)");
        w.add(g, "wpq_load_hits", load_hits_, "reads", "LLC read misses that found their line in the queue (IV-H)");
        w.add(g, "wpq_flush_id", wpq_gate_flush_id(g_), "region", "flush ID at the end: the oldest uncommitted region (after a power failure: the recovery point, IV-F)");
        if (pf_) {
            w.add(g, "pf_discarded", pf_discarded_, "entries", "entries of unpersisted regions discarded after the power failure");
            w.add(g, "pf_undo_restore", pf_undo_ ? 1 : 0, "-", "undo-logged overflow writes had to be rolled back (IV-D/F)");
        }
    }

private:
    struct Item {
        bool boundary;
        uint64_t id;         // write id (McWrite::id)
        uint32_t region;
        uint64_t word;       // word address
        bool last;           // last word of the write
    };

    // A persist path's writes and boundaries not yet in the queue, in order. When its head was
    // refused, `blocked` remembers under what: the core's offer state (wpq_gate_offer_state) and,
    // for a store, whether the device could take a write. While both are the same again the same
    // offer gets the same answer (cores/wpq_gate.h), so the head is not offered again: the refusal
    // is counted (wpq_gate_count_refusals) as the offer would have counted it.
    struct Path {
        int requester;
        std::deque<Item> q;
        bool blocked = false;
        bool dev_ready = false;          // a store was refused with the device ready
        wpq_result refused = WPQ_NONE;   // WPQ_FULL / WPQ_DECLINED (store); WPQ_NONE (boundary beyond the window)
        uint64_t state = 0;
    };
    Path &path_of(int requester)
    {
        auto it = std::lower_bound(paths_.begin(), paths_.end(), requester,
                                   [](const Path &p, int r) { return p.requester < r; });
        if (it == paths_.end() || it->requester != requester) {
            it = paths_.insert(it, Path{requester, {}});
            ++paths_gen_;
        }
        return *it;
    }

    // Everything the core allows at time t, repeated until nothing changes. Each round offers
    // every path's head in requester order (as long as the path's items are taken); a head refused
    // under the same offer state as before is not offered again but its refusal is counted.
    void pump(uint64_t t)
    {
        uint64_t refused_full = 0, refused_declined = 0;
        for (bool again = true; again;) {
            again = false;
            uint64_t st = wpq_gate_offer_state(g_);
            if (sweep_.gen == paths_gen_ && sweep_.state == st && sweep_.dev_ready == (next_drain_ps_ <= t)) {
                // no path changed since a round in which every head was a known refusal, and
                // neither the offer state nor the device moved: this round is that round again
                refused_full += sweep_.full;
                refused_declined += sweep_.declined;
                if (sweep_.full_not_ready) drain_wake();
            } else {
            const uint64_t gen0 = paths_gen_;
            const bool ready0 = next_drain_ps_ <= t;
            const uint64_t st_round = st;
            uint64_t full0 = refused_full, declined0 = refused_declined;
            bool full_not_ready = false;
            for (Path &pq : paths_) {
              std::deque<Item> &path = pq.q;
              if (path.empty()) continue;
              if (pq.blocked) {
                  const bool device_ready = next_drain_ps_ <= t;
                  // a store refused while the device was ready is refused when it is not, too
                  // (only the write-through and the deadlock check need the device)
                  // a boundary's answer depends on the flush ID only, a declined store's on all
                  // but the queue's room (cores/wpq_gate.h, WPQ_OFFER_*)
                  const uint64_t relevant = pq.refused == WPQ_NONE       ? WPQ_OFFER_FLUSH_ID
                                            : pq.refused == WPQ_DECLINED ? ~WPQ_OFFER_FULL
                                                                         : ~0ull;
                  if (((pq.state ^ st) & relevant) == 0 && (pq.refused != WPQ_FULL || pq.dev_ready || !device_ready)) {
                      // refused before, nothing it depends on moved: the same answer
                      if (pq.refused == WPQ_FULL) {
                          ++refused_full;
                          if (!device_ready) {
                              drain_wake();
                              full_not_ready = true;
                          }
                      } else if (pq.refused == WPQ_DECLINED) {
                          ++refused_declined;
                      }
                      continue;
                  }
                  pq.blocked = false;
                  ++paths_gen_;
              }
              while (!path.empty()) {
                const Item &it = path.front();
                if (it.boundary) {
                    // the core refuses a boundary beyond its region window: it waits (with its
                    // path) until older regions commit
                    if (wpq_gate_boundary(g_, it.region) == WPQ_BDRY_WAIT) {
                        pq.blocked = true;
                        pq.state = st;
                        pq.refused = WPQ_NONE;
                        ++paths_gen_;
                        break;
                    }
                    st = wpq_gate_offer_state(g_);
                    for (uint32_t d = 0; d < port_.peers(); ++d)
                        if (d != port_.index()) port_.send(d, McMsg{McMsg::BDRY_ACK, it.region, port_.index()}, t);
                } else {
                    // the core decides (push, overflow write-through, deadlock check); persim only
                    // says whether the device can take a write now
                    const bool device_ready = next_drain_ps_ <= t;
                    wpq_result r = wpq_gate_store(g_, it.region, it.word, 0, device_ready ? 1 : 0);
                    const uint64_t st0 = st;
                    st = wpq_gate_offer_state(g_);
                    if (r == WPQ_BYPASS) device_write(t, it.word);       // written through, undo-logged
                    if (r == WPQ_FULL && !device_ready) drain_wake();    // wait for the device
                    if (r != WPQ_OK && r != WPQ_BYPASS) {                // full / declined: wait in order
                        if (st == st0) {                                 // (the offer changed nothing)
                            pq.blocked = true;
                            pq.state = st;
                            pq.dev_ready = device_ready;
                            pq.refused = r;
                        }
                        ++paths_gen_;
                        break;
                    }
                    if (it.last) {
                        // ungated (ADR-like): durable once in the battery-backed queue
                        if (wpq_gate_ack_on_entry(g_)) port_.ack(it.id, t);
                        else unacked_[it.region & rid_mask()].push_back(it.id);
                        port_.accept(it.id, t);      // the persist path frees its entry (IV-G)
                    }
                }
                path.pop_front();
                ++paths_gen_;
                again = true;
              }
            }
            if (paths_gen_ == gen0 && st == st_round && (next_drain_ps_ <= t) == ready0) {
                // every head was a known refusal: remember the round
                sweep_ = Sweep{gen0, st, ready0, full_not_ready, refused_full - full0, refused_declined - declined0};
            }
            }
            const uint32_t f = wpq_gate_flush_id(g_);
            if (!unacked_.empty() && wpq_gate_persisted(g_)) {
                // The flush-ID region is durable: acknowledge its writes.
                auto u = unacked_.find(f);
                if (u != unacked_.end()) {
                    for (uint64_t id : u->second) port_.ack(id, t);
                    unacked_.erase(u);
                }
            }
            wpq_entry e;
            int undo = 0;
            while (next_drain_ps_ <= t && wpq_gate_next_drain(g_, &e, &undo)) {
                device_write(t, e.addr);
                again = true;
            }
            if (next_drain_ps_ > t && wpq_gate_count(g_)) drain_wake();   // the device takes the next entry then
            if (wpq_gate_flush_done(g_)) {
                for (uint32_t d = 0; d < port_.peers(); ++d)
                    if (d != port_.index()) port_.send(d, McMsg{McMsg::FLUSH_ACK, f, port_.index()}, t);
                again = true;
            }
            if (wpq_gate_try_commit(g_)) again = true;
        }
        wpq_gate_count_refusals(g_, WPQ_FULL, refused_full);
        wpq_gate_count_refusals(g_, WPQ_DECLINED, refused_declined);
        vcd_occupancy_ = wpq_gate_count(g_);
        vcd_flush_id_ = wpq_gate_flush_id(g_);
    }
    void trace(sc_core::sc_trace_file *tf, const std::string &prefix) override
    {
        sc_core::sc_trace(tf, vcd_occupancy_, prefix + ".wpq_occupancy");
        sc_core::sc_trace(tf, vcd_flush_id_, prefix + ".flush_region");
    }
    // One 8-byte device write at t (>= next_drain_ps_), and the next device slot.
    void device_write(uint64_t t, uint64_t word)
    {
        port_.device_write(t, word * 8, 8);
        next_drain_ps_ = port_.device_accepts() ? std::max(next_drain_ps_, port_.device_next_write_at())
                                                : std::max(next_drain_ps_, t) + drain_ps_;
    }
    void drain_wake()
    {
        if (drain_wake_ps_ == next_drain_ps_) return;
        drain_wake_ps_ = next_drain_ps_;
        port_.wake_at(next_drain_ps_);
    }
    uint32_t rid_mask() const { return (uint32_t)((1ull << wpq_gate_config(g_)->rid_bits) - 1); }

    McPort &port_;
    CoreState<wpq_gate, wpq_gate_cfg> mem_;
    wpq_gate *g_;
    // Writes and boundaries not yet in the queue, per persist path (requester): each path is in
    // order (a boundary waits behind its own path's writes), paths do not block each other.
    std::vector<Path> paths_;   // by requester, ascending
    // A round of pump() in which every path head was a known refusal (nothing offered): valid
    // while paths_gen_ (bumped whenever a path's head or its refusal changes), the offer state and
    // the device's readiness are the same; then the round only counts its refusals again.
    struct Sweep {
        uint64_t gen = UINT64_MAX, state = 0;
        bool dev_ready = false, full_not_ready = false;
        uint64_t full = 0, declined = 0;
    };
    Sweep sweep_;
    uint64_t paths_gen_ = 0;
    size_t waiting() const
    {
        size_t n = 0;
        for (auto &p : paths_) n += p.q.size();
        return n;
    }
    uint64_t load_hits_ = 0;
    uint32_t vcd_occupancy_ = 0, vcd_flush_id_ = 0;   // traced (--vcd): entries queued, the flush-ID region
    bool pf_ = false, pf_done_ = false, pf_undo_ = false;
    uint64_t pf_seen_ = 0, pf_discarded_ = 0, pf_check_at_ = 0;
    uint64_t drain_ps_ = 0, next_drain_ps_ = 0, drain_wake_ps_ = UINT64_MAX;   // paced drain (device write bandwidth or acceptance)
    uint64_t pf_wait_ps() const { return 2 * port_.config().link_latency_ps + 1000; }
    std::map<uint32_t, std::vector<uint64_t>> unacked_;   // region -> writes queued, not acknowledged
};

std::unique_ptr<WriteQueue> make(const Config &c, McPort &p) { return std::make_unique<WpqGateFe>(c, p); }

} // namespace

const WriteQueueKind kWpqGateFe{"wpq_gate", "LightWSP region-gated WPQ: acknowledged when the write's region is "
                                            "persisted at every controller; younger regions stay gated", make, true};

} // namespace persim
PERSIM_REGISTER(persim::WriteQueueKind, "wpq_gate", persim::kWpqGateFe, 30);
