#include "l1.h"
#include <cstring>
#include "cores_util.h"
#include "l2.h"

namespace persim {
using namespace sc_core;

namespace {
// Victim filter: skip lines the persist unit may not let leave the L1 yet.
int skip_pinned(void *unit, uint32_t idx) { return static_cast<const L1Persist *>(unit)->pinned((int32_t)idx); }
} // namespace

L1::L1(sc_module_name n, const GpuCfg &g, const Config &c, int sm_id, const PersistModel *model, L1Client *client)
    : sc_module(n), isock("isock"), g_(g), sm_(sm_id), client_(client), hw_(no_persist_hw()),
      ctrl_(cache_cfg{g.l1_size_bytes, g.line_bytes, g.l1_assoc, 0}, "l1 (l1.size_kb, l1.line_bytes, l1.assoc)"),
      cache_(ctrl_.core()), line_bytes_(g.line_bytes),
      pm_base_(g.sys.pm_in_dram ? UINT64_MAX : g.sys.pm_base), hit_ps_(g.l1_hit_ps), period_ps_(g.period_ps)
{
    if (model->make_l1) unit_ = model->make_l1(c, *this);
    SC_METHOD(ack_method);
    sensitive << ack_ev_;
    dont_initialize();
}

void L1::trace(sc_trace_file *tf)
{
    if (unit_) unit_->trace(tf, name());
}

void L1::arm_ack()
{
    if (!acks_.empty()) ack_ev_.notify(ps(acks_.next_at() - now_ps()));
}

void L1::writeback(int32_t idx, bool tracked, bool pb_persist, uint32_t phase)
{
    const bool pm = cache_line_at_const(cache_, idx)->pm;
    if (pm) hw_->on_l1_pm_writeback(sm_, cache_line_at_const(cache_, idx)->tag);
    // Persist-unit write-backs carry their phase back (the unit counts acks by phase); every other
    // PM write-back, and volatile ones a fence waits for, is tracked with a ticket.
    const bool acked = pb_persist || tracked || pm;
    const uint64_t seq = acked ? acks_.expect(!pb_persist, sm_, phase) : 0;
    const uint64_t t0 = now_ps();
    const uint64_t at = ctrl_.write_back(isock, idx, t0, sm_, tracker_ ? &writers_[(size_t)idx * line_bytes_] : nullptr,
                                         acked ? this : nullptr, seq);
    cache_line_at(cache_, idx)->pb_index = CACHE_NO_PB;
    ++st_.writebacks;
    if (pm) ++st_.pm_persists;
    else ++st_.vol_writebacks;
    if (at == CacheCtrl::kLateAck) {             // acknowledged later: on_late_ack
        if (pm) late_pm_sent_[seq] = t0;
        return;
    }
    if (pm) {
        st_.persist_ack_ps += at - t0;
        hw_->on_pm_request_done(sm_, at - t0);
    }
    if (acked) {
        acks_.arrive(seq, at);
        arm_ack();
    }
}

void L1::on_late_ack(uint64_t token, uint64_t ack_ps)
{
    ++st_.late_acks;
    auto it = late_pm_sent_.find(token);
    if (it != late_pm_sent_.end()) {
        st_.persist_ack_ps += ack_ps - it->second;
        hw_->on_pm_request_done(sm_, ack_ps - it->second);
        late_pm_sent_.erase(it);
    }
    auto nt = late_nt_sent_.find(token);
    if (nt != late_nt_sent_.end()) {
        hw_->on_pm_request_done(sm_, ack_ps - nt->second);
        late_nt_sent_.erase(nt);
    }
    acks_.arrive(token, ack_ps);
    arm_ack();
}

void L1::ack_method()
{
    const uint64_t t = now_ps();
    bool pb_changed = false, tick = false;
    for (const AckQueue::Ack &a : acks_.pop_due(t)) {
        ++st_.acks;
        if (!a.tracked) {
            unit_->ack(a.tag);
            pb_changed = true;
        } else {
            tick = true;
        }
    }
    arm_ack();
    if (pb_changed) pump();
    if (tick) client_->on_ticket_progress();
}

void L1::pump()
{
    unit_->pump();
    client_->on_pb_change(unit_->stalled());
}

L1::Evict L1::make_room(uint32_t warp, uint64_t la, int32_t *idx, uint64_t t, StallWhy *why)
{
    (void)t;
    int32_t v = unit_ ? cache_victim_filtered(cache_, la, skip_pinned, unit_.get()) : cache_victim(cache_, la);
    uint32_t phase = 0;
    if (v < 0) {
        // Every way holds a persist that may not leave L1 yet: stall the warp on the LRU line
        // (SBRP 6.1, "Eviction": in the EDM).
        int32_t lru = cache_victim(cache_, la);
        ++st_.evict_stalls;
        if (unit_->evict(warp, lru, &phase)) {   // became evictable meanwhile
            writeback(lru, false, true, phase);
            v = lru;
        } else {
            *why = StallWhy::EDM;
            pump();
            return Evict::STALL;
        }
    } else {
        cache_line *l = cache_line_at(cache_, v);
        if (l->present) {
            ++st_.evictions;
            if (unit_ && unit_->holds(v)) {
                if (!unit_->evict(warp, v, &phase)) {
                    *why = StallWhy::EDM;
                    ++st_.evict_stalls;
                    pump();
                    return Evict::STALL;
                }
                writeback(v, false, true, phase);
                unit_->sample();
            } else if (cache_is_dirty(cache_, v)) {
                writeback(v, false, false);
            }
        }
    }
    if (cache_line_at(cache_, v)->present) cache_invalidate(cache_, v);
    *idx = v;
    return Evict::OK;
}

L1Result L1::load(uint32_t warp, uint64_t la, uint32_t off, uint32_t len, uint64_t t, bool log)
{
    const bool pm = la * line_bytes_ >= pm_base_;
    ++st_.loads;
    if (pm) ++st_.pm_loads;
    int32_t idx = cache_lookup(cache_, la);
    if (pm) {
        uint64_t m[2] = {0, 0};
        cache_mask_range(m, off, len);
        hw_->on_l1_pm_access(sm_, la, m, false, log, StorePath::T, idx >= 0 && cache_range_valid(cache_, idx, off, len));
    }
    if (idx >= 0 && cache_range_valid(cache_, idx, off, len)) {
        ++st_.load_hits;
        cache_line *l = cache_line_at(cache_, idx);
        if (l->ready_ps > t + hit_ps_) ++st_.mshr_merges;
        cache_touch(cache_, idx);
        return L1Result{true, true, StallWhy::NONE, std::max(t + hit_ps_, l->ready_ps)};
    }
    if (idx < 0) {
        StallWhy why;
        if (make_room(warp, la, &idx, t, &why) == Evict::STALL) return L1Result{false, false, why, 0};
        cache_install(cache_, idx, la, pm);
    }
    if (pm) ++st_.pm_load_misses; else ++st_.vol_load_misses;
    MemReqPool::Lease lease(reqs_, tlm::TLM_READ_COMMAND, la * line_bytes_, line_bytes_);
    MemReq &req = *lease;
    req.ext.pm = pm;
    req.ext.requester = sm_;
    sc_time d = ps(t + hit_ps_ - now_ps());
    isock->b_transport(req.gp, d);
    const uint64_t ready = now_ps() + d.value();
    cache_fill(cache_, idx, req.data);
    cache_line_at(cache_, idx)->ready_ps = ready;
    cache_touch(cache_, idx);
    if (pm) hw_->on_pm_request_done(sm_, ready - t);
    return L1Result{true, true, StallWhy::NONE, ready};
}

// Before the bytes are written: report the store, and every dirty byte it overwrites whose
// value (written by another op) has not left the L1.
void L1::track_store(int32_t idx, uint64_t la, const uint64_t mask[2], uint64_t t, uint32_t op)
{
    const cache_line *l = cache_line_at_const(cache_, idx);
    uint32_t *wr = &writers_[(size_t)idx * line_bytes_];
    const uint64_t line_addr = la * line_bytes_;
    uint64_t over[2] = {mask[0] & l->dirty[0], mask[1] & l->dirty[1]};
    while (over[0] | over[1]) {
        // one overwrite report per previous writer
        uint32_t first = over[0] ? (uint32_t)__builtin_ctzll(over[0]) : 64 + (uint32_t)__builtin_ctzll(over[1]);
        uint32_t old = wr[first];
        uint64_t m[2] = {0, 0};
        for (uint32_t b = first; b < line_bytes_; ++b)
            if ((over[b / 64] >> (b % 64) & 1) && wr[b] == old) m[b / 64] |= 1ull << (b % 64);
        over[0] &= ~m[0];
        over[1] &= ~m[1];
        if (old != op && old != 0) tracker_->on_overwrite(old, op, line_addr, m);
    }
    for (uint32_t b = 0; b < line_bytes_; ++b)
        if (mask[b / 64] >> (b % 64) & 1) wr[b] = op;
    tracker_->on_perform(t, op, line_addr, mask);
}

void L1::set_tracker(WriteTracker *t)
{
    tracker_ = t;
    writers_.assign(t ? (size_t)cache_num_lines(cache_) * line_bytes_ : 0, 0);
}

L1Result L1::store(uint32_t warp, uint64_t la, const uint8_t *data, const uint64_t mask[2], uint64_t t, uint32_t op,
                   bool log, uint32_t nseg, bool ask_path)
{
    const bool pm = la * line_bytes_ >= pm_base_;
    int32_t idx = cache_lookup(cache_, la);
    StorePath path = StorePath::T;
    const bool hit = idx >= 0;
    if (pm && ask_path && paths_) {
        bool resv_fail = false;
        if (idx < 0) {
            const int32_t v = cache_victim(cache_, la);
            const cache_line *vl = v >= 0 ? cache_line_at_const(cache_, v) : nullptr;
            resv_fail = vl && vl->present && vl->ready_ps > t;
        }
        path = hw_->pm_store_path(PmStoreQuery{sm_, warp, la, mask, line_bytes_, log, nseg, hit, resv_fail});
        // A line the persist unit holds leaves only in the unit's order: it keeps the temporal path.
        if (path == StorePath::NT && !(unit_ && hit && unit_->holds(idx))) {
            if (log) ++st_.nt_log_stores;
            L1Result r = store_nt(la, idx, data, mask, t, op);
            hw_->on_l1_pm_access(sm_, la, mask, true, log, path, hit);
            return r;
        }
        if (log) ++st_.t_log_stores;
    }
    if (idx < 0) {
        StallWhy why;
        if (make_room(warp, la, &idx, t, &why) == Evict::STALL) return L1Result{false, false, why, 0};
        cache_install(cache_, idx, la, pm);
        ++st_.store_misses;
    }
    if (pm && unit_) {
        StallWhy why = unit_->store(warp, idx);
        if (why != StallWhy::NONE) {
            pump();
            return L1Result{false, false, why, 0};
        }
    }
    ++st_.stores;
    if (pm) ++st_.pm_stores;
    if (tracker_ && pm) track_store(idx, la, mask, t, op);
    ctrl_.write_masked(idx, data, mask);
    cache_touch(cache_, idx);
    if (pm && unit_) pump();
    if (pm) hw_->on_l1_pm_store(sm_, warp, la);
    if (pm && ask_path && paths_) {
        hw_->on_l1_pm_access(sm_, la, mask, true, log, path, hit);
        if (path == StorePath::T_WB && cache_is_dirty(cache_, idx) && !(unit_ && unit_->holds(idx))) {
            ++st_.added_wbs;                   // the clwb-like write-back added after the store
            writeback(idx, true, false);
        }
    }
    return L1Result{true, true, StallWhy::NONE, t + period_ps_};
}

// Non-temporal store line: a dirty copy in the L1 is written back first (so the two writes reach
// the controller in program order) and the copy is dropped; the write goes around the L1 and,
// marked no_allocate, around the L2 into the NVM controller's write queue. Acknowledged with a
// ticket like a tracked write-back, so a fence waits for it.
L1Result L1::store_nt(uint64_t la, int32_t idx, const uint8_t *data, const uint64_t mask[2], uint64_t t, uint32_t op)
{
    if (idx >= 0) {
        if (cache_is_dirty(cache_, idx)) writeback(idx, true, false);
        cache_invalidate(cache_, idx);
        ++st_.nt_evicted;
    }
    ++st_.stores;
    ++st_.pm_stores;
    ++st_.nt_stores;
    const uint64_t line_addr = la * line_bytes_;
    std::vector<uint32_t> wr;
    if (tracker_) {
        wr.assign(line_bytes_, 0);
        for (uint32_t b = 0; b < line_bytes_; ++b)
            if (mask[b / 64] >> (b % 64) & 1) wr[b] = op;
        tracker_->on_perform(t, op, line_addr, mask);
    }
    MemReqPool::Lease lease(reqs_, tlm::TLM_WRITE_COMMAND, line_addr, line_bytes_);
    MemReq &req = *lease;
    std::memcpy(req.data, data, line_bytes_);
    req.ext.mask[0] = mask[0];
    req.ext.mask[1] = mask[1];
    req.ext.pm = true;
    req.ext.persist = true;
    req.ext.no_allocate = true;
    req.ext.requester = sm_;
    req.ext.writers = tracker_ ? wr.data() : nullptr;
    const uint64_t seq = acks_.expect(true, sm_, 0);
    req.ext.ack_to = this;
    req.ext.ack_token = seq;
    const uint64_t t0 = std::max(t, now_ps());
    sc_time d = ps(t0 - now_ps());
    isock->b_transport(req.gp, d);
    if (req.ext.ack_later) {
        late_nt_sent_[seq] = t0;
    } else {
        const uint64_t at = now_ps() + d.value();
        hw_->on_pm_request_done(sm_, at - t0);
        acks_.arrive(seq, at);
        arm_ack();
    }
    return L1Result{true, true, StallWhy::NONE, t + period_ps_};
}

L1Result L1::persist_fence(uint32_t warp, Prim p)
{
    L1Persist::FenceResult r = unit_->fence(warp, p);
    pump();
    if (r == L1Persist::FenceResult::FULL) return L1Result{false, false, StallWhy::PB_FULL, 0};
    if (r == L1Persist::FenceResult::WAIT && (unit_->stalled() >> warp & 1)) return L1Result{false, true, StallWhy::ODM, 0};
    return L1Result{true, true, StallWhy::NONE, now_ps() + period_ps_};
}

uint64_t L1::flush(bool pm, bool vol)
{
    std::vector<int32_t> lines;                  // the member's buffer (no allocation per fence; a
    lines.swap(flush_lines_);                    // nested call would find it empty and allocate)
    lines.resize(cache_num_lines(cache_));
    uint32_t n = cache_collect_dirty(cache_, pm && vol ? -1 : (pm ? 1 : 0), lines.data(), (uint32_t)lines.size());
    for (uint32_t i = 0; i < n; ++i) {
        if (unit_ && unit_->holds(lines[i])) continue;   // persists held by the unit leave in its order
        writeback(lines[i], true, false);
    }
    lines.swap(flush_lines_);
    return acks_.ticket(sm_);
}

bool L1::flush_pm_line(uint64_t la)
{
    int32_t idx = cache_lookup(cache_, la);
    if (idx < 0) return false;
    const cache_line *l = cache_line_at_const(cache_, idx);
    if (!l->pm || !cache_is_dirty(cache_, idx)) return false;
    writeback(idx, false, false);
    return true;
}

void L1::invalidate_clean(bool pm_only)
{
    st_.invalidations += cache_invalidate_clean(cache_, pm_only ? 1 : 0);
}

void L1::set_drain_all(bool on)
{
    if (!unit_) return;
    unit_->drain_all(on);
    pump();
}

void L1::drain_functional(mem_image *img) { ctrl_.drain_functional(img); }

void L1::report(StatsWriter &w, uint64_t sim_ps)
{
    const std::string g = name();
    w.add(g, "loads", st_.loads, "line accesses", "line reads by warps");
    w.add(g, "load_hits", st_.load_hits, "line accesses", "line reads that hit");
    w.add(g, "pm_loads", st_.pm_loads, "line accesses", "line reads of PM data");
    w.add(g, "pm_read_misses", st_.pm_load_misses, "line accesses", "L1 read misses for PM data (SBRP Figure 8)");
    w.add(g, "vol_read_misses", st_.vol_load_misses, "line accesses", "L1 read misses for volatile data");
    w.add(g, "mshr_merges", st_.mshr_merges, "line accesses", "hits on a line whose fill was still in flight");
    w.add(g, "stores", st_.stores, "line accesses", "line writes by warps");
    w.add(g, "pm_stores", st_.pm_stores, "line accesses", "line writes of PM data (persists issued)");
    w.add(g, "store_misses", st_.store_misses, "line accesses", "writes that allocated a line");
    w.add(g, "pm_flushes", st_.pm_persists, "lines", "PM lines written back towards the persistence domain");
    w.add(g, "vol_writebacks", st_.vol_writebacks, "lines", "volatile lines written back to L2");
    w.add(g, "acks", st_.acks, "acks", "write acknowledgements received");
    if (st_.late_acks)
        w.add(g, "late_acks", st_.late_acks, "acks", "acknowledgements that came after the write's return (front end decided later)");
    w.add(g, "avg_persist_ack_ns", st_.pm_persists ? st_.persist_ack_ps / 1000.0 / st_.pm_persists : 0, "ns",
          "average time from a PM flush leaving L1 to its acknowledgement");
    if (st_.nt_stores || st_.t_log_stores || st_.added_wbs) {   // two-data-path models only (golden stats unchanged)
        w.add(g, "nt_stores", st_.nt_stores, "line accesses", "PM store lines sent non-temporally around the L1 and L2");
        w.add(g, "nt_log_stores", st_.nt_log_stores, "line accesses", "log-write lines sent non-temporally");
        w.add(g, "t_log_stores", st_.t_log_stores, "line accesses", "log-write lines stored temporally into the L1");
        w.add(g, "added_writebacks", st_.added_wbs, "lines",
              "clwb-like write-backs added right after a temporal store (path changed NT -> T)");
        w.add(g, "nt_dropped_copies", st_.nt_evicted, "lines", "L1 copies dropped by a non-temporal store");
    }
    w.add(g, "evictions", st_.evictions, "lines", "valid lines replaced");
    w.add(g, "evict_stalls", st_.evict_stalls, "events", "evictions blocked by persist ordering (warp stalled in EDM)");
    w.add(g, "invalidations", st_.invalidations, "lines", "clean lines invalidated by barriers / acquires");
    if (unit_) unit_->report(w, g, sim_ps);
}

} // namespace persim
