#include "l2.h"
#include <algorithm>
#include <array>
#include <map>
#include "cores_util.h"
#include "interconnect.h"

namespace persim {
using namespace sc_core;

L2::L2(sc_module_name n, const GpuCfg &g)
    : sc_module(n), tsock("tsock"), dram_isock("dram_isock"), pm_isock("pm_isock"), hw_(no_persist_hw()),
      line_bytes_(g.line_bytes), pm_base_(g.sys.pm_base), hit_ps_(g.l2_hit_ps), busy_ps_(g.l2_bank_busy_ps)
{
    const uint32_t nb = g.l2_banks;
    const cache_cfg cc{g.l2_size_bytes / nb, line_bytes_, g.l2_assoc, 0};
    for (uint32_t b = 0; b < nb; ++b) {
        ctrls_.push_back(std::make_unique<CacheCtrl>(
            cc, "l2 (l2.size_kb / l2.banks must be a multiple of l2.assoc * l1.line_bytes)"));
        banks_.push_back(ctrls_.back()->core());
    }
    bank_free_.assign(nb, 0);
    pm_in_dram_ = g.sys.pm_in_dram;
    tsock.register_b_transport(this, &L2::b_transport);
}

int32_t L2::allocate(uint32_t b, uint64_t line_addr, bool pm, uint64_t t)
{
    cache *c = banks_[b];
    int32_t v = cache_victim(c, line_addr);
    cache_line *l = cache_line_at(c, v);
    if (l->present) {
        ++st_.evictions;
        if (l->pm && cache_is_dirty(c, v)) {
            // pm_write_back: an NV-dirty line leaves by replacement; the NVW-FIFO barriers wait for it.
            ++pm_evictions_;
            uint64_t ack = write_pm_line(b, v, t);
            hw_->on_l2_pm_evicted(ack);
        } else if (cache_is_dirty(c, v)) {
            // Write the dirty volatile bytes back to GDDR; this occupies the controller but is
            // not on the requester's critical path.
            ++st_.dirty_evictions;
            // system.pm_in_dram: the persistent region is DRAM behind its own controller
            ctrls_[b]->write_back(l->tag * line_bytes_ >= pm_base_ ? pm_isock : dram_isock, v, t, -1, nullptr);
        }
        cache_invalidate(c, v);
    }
    cache_install(c, v, line_addr, pm);
    return v;
}

void L2::b_transport(tlm::tlm_generic_payload &gp, sc_time &delay)
{
    MemExt *e = mem_ext(gp);
    const uint64_t addr = gp.get_address();
    const uint64_t la = addr / line_bytes_;
    const bool region_pm = addr >= pm_base_;                 // routing: the persistent region's controller
    const bool pm = region_pm && !pm_in_dram_;               // persistence (system.pm_in_dram: none)
    const uint32_t b = l2_bank_of(addr, line_bytes_, (uint32_t)banks_.size());
    cache *c = banks_[b];
    const uint64_t t = now_ps() + delay.value();
    const uint64_t bank_free_before = bank_free_[b];
    const uint64_t start = std::max(t, bank_free_[b]);
    bank_free_[b] = start + busy_ps_;
    const uint64_t tag_done = start + hit_ps_;
    auto &down = region_pm ? pm_isock : dram_isock;

    if (gp.is_read()) {
        ++st_.reads;
        if (pm) ++st_.pm_reads;
        int32_t idx = cache_lookup(c, la);
        uint64_t ready;
        if (idx >= 0 && cache_range_valid(c, idx, 0, line_bytes_)) {
            ++st_.read_hits;
            cache_line *l = cache_line_at(c, idx);
            if (l->ready_ps > tag_done) ++st_.mshr_merges;
            ready = std::max(tag_done, l->ready_ps);
            cache_touch(c, idx);
        } else {
            if (pm) ++st_.pm_read_misses; else ++st_.vol_read_misses;
            if (idx < 0) idx = allocate(b, la, pm, tag_done);
            MemReqPool::Lease lease(reqs_, tlm::TLM_READ_COMMAND, la * line_bytes_, line_bytes_);
            MemReq &rd = *lease;
            sc_time d = ps(tag_done - now_ps());
            down->b_transport(rd.gp, d);
            ready = now_ps() + d.value();
            cache_fill(c, idx, rd.data);
            cache_line_at(c, idx)->ready_ps = ready;
            cache_touch(c, idx);
        }
        std::memcpy(gp.get_data_ptr(), cache_data(c, idx), line_bytes_);
        delay = ps(ready - now_ps());
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }

    // Write (write-back or flush from an L1).
    ++st_.writes;
    static const uint64_t full[2] = {~0ull, ~0ull};
    const uint64_t *mask = e ? e->mask : full;
    int32_t idx = cache_lookup(c, la);
    if (e && e->no_allocate) {
        // Non-temporal write (PersistHw::pm_store_path): around this L2, no tag latency and no bank
        // occupancy charged; a copy here is written back first if dirty, then dropped.
        bank_free_[b] = bank_free_before;
        ++nt_writes_;
        if (idx >= 0) {
            if (pm && pm_wb_ && cache_is_dirty(c, idx)) hw_->on_l2_pm_evicted(write_pm_line(b, idx, t));
            cache_invalidate(c, idx);
        }
        sc_time d = ps(t - now_ps());
        down->b_transport(gp, d);
        if (e->ack_later) {
            delay = SC_ZERO_TIME;
        } else {
            delay = d;
        }
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    if (idx < 0) idx = allocate(b, la, pm, tag_done);
    ctrls_[b]->write_masked(idx, gp.get_data_ptr(), mask);
    cache_touch(c, idx);
    uint64_t ack = tag_done;
    if (pm && pm_wb_) {
        // PM write-back mode (the model's hardware keeps PM lines here, e.g. nvwfifo: the NV line joins
        // the L2 NVW-FIFO, section 6.1 step 2).
        ++st_.pm_writes;
        cache_line *l = cache_line_at(c, idx);
        l->ready_ps = std::max(l->ready_ps, tag_done);
        if (e && e->writers) {
            auto &wr = pm_writers_[la];
            wr.resize(line_bytes_, 0);
            // bytes of another writer still here (not written back): that writer's value never
            // reaches NVM, and it is durable once this one is (WriteTracker::on_overwrite); one
            // report per (old, new) writer pair
            std::map<std::pair<uint32_t, uint32_t>, std::array<uint64_t, 2>> over;
            for (uint32_t i = 0; i < line_bytes_; ++i)
                if (mask[i / 64] >> (i % 64) & 1) {
                    if (tracker_ && wr[i] != 0 && wr[i] != e->writers[i] && e->writers[i] != 0)
                        over[{wr[i], e->writers[i]}][i / 64] |= 1ull << (i % 64);
                    wr[i] = e->writers[i];
                }
            for (const auto &[ops, m] : over) tracker_->on_overwrite(ops.first, ops.second, la * line_bytes_, m.data());
        }
        delay = ps(ack - now_ps());
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
        hw_->on_l2_pm_write(la);
        return;
    }
    if (pm) {
        // Write-through: PM lines never stay dirty in the L2.
        ++st_.pm_writes;
        cache_clean(c, idx);
        sc_time d = ps(tag_done - now_ps());
        down->b_transport(gp, d);
        if (e && e->ack_later) {                 // the initiator hears later (MemExt::ack_to)
            delay = SC_ZERO_TIME;
            gp.set_response_status(tlm::TLM_OK_RESPONSE);
            return;
        }
        ack = now_ps() + d.value();
    }
    delay = ps(ack - now_ps());
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

uint64_t L2::write_pm_line(uint32_t b, int32_t idx, uint64_t start)
{
    const cache_line *l = cache_line_at_const(banks_[b], idx);
    auto wr = pm_writers_.find(l->tag);
    const uint64_t t = std::max({start, l->ready_ps, now_ps()});   // not before the data has arrived
    const uint64_t ack = ctrls_[b]->write_back(pm_isock, idx, t, -1, wr != pm_writers_.end() ? wr->second.data() : nullptr);
    if (wr != pm_writers_.end()) pm_writers_.erase(wr);
    ++pm_writebacks_;
    return ack;
}

bool L2::writeback_pm_line(uint64_t la, uint64_t *ack_ps)
{
    const uint32_t b = l2_bank_of(la * line_bytes_, line_bytes_, (uint32_t)banks_.size());
    cache *c = banks_[b];
    int32_t idx = cache_lookup(c, la);
    if (idx < 0 || !cache_line_at_const(c, idx)->pm || !cache_is_dirty(c, idx)) return false;
    *ack_ps = write_pm_line(b, idx, now_ps());
    return true;
}

void L2::drain_functional(mem_image *img)
{
    for (const auto &c : ctrls_) c->drain_functional(img);
}

void L2::report(StatsWriter &w, uint64_t) const
{
    const std::string g = name();
    w.add(g, "reads", st_.reads, "requests", "line reads from the L1s");
    w.add(g, "read_hits", st_.read_hits, "requests", "reads that hit");
    w.add(g, "read_hit_rate", st_.reads ? (double)st_.read_hits / st_.reads : 0, "fraction", "read hits over reads");
    w.add(g, "pm_reads", st_.pm_reads, "requests", "reads of PM lines");
    w.add(g, "pm_read_misses", st_.pm_read_misses, "requests", "PM reads sent to NVM");
    w.add(g, "vol_read_misses", st_.vol_read_misses, "requests", "volatile reads sent to GDDR");
    w.add(g, "mshr_merges", st_.mshr_merges, "requests", "reads that waited for a fill already in flight");
    w.add(g, "writes", st_.writes, "requests", "line writes (write-backs and persists) from the L1s");
    w.add(g, "pm_writes", st_.pm_writes, "requests", "PM writes forwarded to the persistence domain (write-through)");
    w.add(g, "evictions", st_.evictions, "lines", "lines replaced");
    w.add(g, "dirty_evictions", st_.dirty_evictions, "lines", "dirty volatile lines written back to GDDR");
    if (nt_writes_)
        w.add(g, "nt_writes", nt_writes_, "requests", "non-temporal PM writes forwarded around the L2 (two-data-path models)");
    if (pm_wb_) {
        w.add(g, "pm_writebacks", pm_writebacks_, "lines", "NV-dirty lines written back to NVM (PM write-back mode, nvwfifo)");
        w.add(g, "pm_dirty_evictions", pm_evictions_, "lines", "NV-dirty lines written back to NVM by replacement");
    }
}

} // namespace persim
