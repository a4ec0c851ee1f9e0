#include "cpu_mem.h"
#include <algorithm>

namespace persim {
using namespace sc_core;

TagCache::TagCache(const cache_cfg &c, const std::string &what)
{
    const size_t b = cache_bytes(&c);
    if (!b) throw ConfigError(what + ": invalid cache geometry (" + std::to_string(c.size_bytes) + " B, " +
                              std::to_string(c.line_bytes) + " B lines, " + std::to_string(c.assoc) + " ways)");
    mem_.reset(std::calloc(1, b));
    if (!mem_) throw std::bad_alloc();
    if (cache_init_zeroed(mem_.get(), &c) != 0) throw ConfigError(what + ": invalid cache geometry");
    c_ = static_cast<cache *>(mem_.get());
}

// ---- L2 ----------------------------------------------------------------------------------------

CpuL2::CpuL2(sc_module_name n, const CpuCfg &c)
    : sc_module(n), tsock("tsock"), isock("isock"), tags_(c.l2, "l2 (l2.size_kb, l2.assoc, l1.line_bytes)"),
      lb_(c.sys.line_bytes), hit_ps_(c.l2_hit_ps), busy_ps_(c.l2_busy_ps)
{
    tsock.register_b_transport(this, &CpuL2::b_transport);
}

void CpuL2::b_transport(int, tlm::tlm_generic_payload &gp, sc_time &delay)
{
    const bool write = gp.is_write();
    const uint64_t line = gp.get_address() / lb_;
    uint64_t t = now_ps() + delay.value();
    t = std::max(t, free_ps_);
    free_ps_ = t + busy_ps_;
    cache *c = tags_.get();
    write ? ++st_.writes : ++st_.reads;
    int32_t idx = cache_lookup(c, line);
    uint64_t done = t + hit_ps_;
    if (idx < 0) {
        write ? ++st_.write_misses : ++st_.read_misses;
        idx = cache_victim(c, line);
        if (cache_line_present(c, idx)) {
            const uint64_t old = cache_line_tag(c, idx);
            bool dirty = cache_line_dirty(c, idx);
            if (back_invalidate) {
                ++st_.back_inval;
                dirty = back_invalidate(old) || dirty;
            }
            if (dirty && drop_dirty) {
                ++st_.dropped;
            } else if (dirty) {
                ++st_.writebacks;
                line_access(isock, req_, true, old, lb_, t);   // write-back in the background
            }
        }
        cache_install(c, idx, line, 1);
        if (!write) done = line_access(isock, req_, false, line, lb_, t + hit_ps_);
        cache_fill(c, idx, nullptr);
    } else {
        cache_touch(c, idx);
    }
    if (write) cache_write(c, idx, 0, nullptr, lb_);
    delay = ps(done - now_ps());
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

void CpuL2::warm(uint64_t line)
{
    cache *c = tags_.get();
    int32_t idx = cache_lookup(c, line);
    if (idx >= 0) {
        cache_touch(c, idx);
        return;
    }
    idx = cache_victim(c, line);
    if (cache_line_present(c, idx) && back_invalidate) back_invalidate(cache_line_tag(c, idx));
    cache_install(c, idx, line, 1);
    cache_fill(c, idx, nullptr);
    if (warm_below) warm_below->warm(line);
}

void CpuL2::report(StatsWriter &w, uint64_t) const
{
    const std::string g = name();
    w.add(g, "reads", st_.reads, "accesses", "line reads from the L1s (L1 misses)");
    w.add(g, "writes", st_.writes, "accesses", "line write-backs from the L1s");
    w.add(g, "read_misses", st_.read_misses, "accesses", "reads that missed");
    w.add(g, "write_misses", st_.write_misses, "accesses", "write-backs that missed (allocated without a fetch)");
    w.add(g, "writebacks", st_.writebacks, "lines", "dirty lines written down on eviction");
    w.add(g, "dropped_evictions", st_.dropped, "lines", "dirty victims dropped (the persist path persists them)");
    w.add(g, "miss_rate", st_.reads ? (double)st_.read_misses / st_.reads : 0, "-", "read miss ratio");
}

// ---- DRAM cache --------------------------------------------------------------------------------

DramCache::DramCache(sc_module_name n, const CpuCfg &c, bool drop)
    : sc_module(n), tsock("tsock"), dram_isock("dram_isock"), pm_isock("pm_isock"),
      tags_(c.dram_cache, "dram cache (cpu.dram_cache_mb, l1.line_bytes)"), lb_(c.sys.line_bytes), drop_(drop)
{
    tsock.register_b_transport(this, &DramCache::b_transport);
}

int32_t DramCache::allocate(uint64_t line, uint64_t t)
{
    cache *c = tags_.get();
    const int32_t idx = cache_victim(c, line);
    if (cache_line_present(c, idx) && cache_line_dirty(c, idx)) {
        if (drop_) ++st_.dropped;
        else {
            ++st_.pm_writebacks;
            line_access(pm_isock, req_, true, cache_line_tag(c, idx), lb_, t);
        }
    }
    cache_install(c, idx, line, 1);
    cache_fill(c, idx, nullptr);
    return idx;
}

void DramCache::b_transport(tlm::tlm_generic_payload &gp, sc_time &delay)
{
    const bool write = gp.is_write();
    const uint64_t line = gp.get_address() / lb_;
    const uint64_t t = now_ps() + delay.value();
    cache *c = tags_.get();
    write ? ++st_.writes : ++st_.reads;
    int32_t idx = cache_lookup(c, line);
    uint64_t done;
    if (idx >= 0) {
        done = line_access(dram_isock, req_, write, line, lb_, t);
    } else if (write) {
        ++st_.write_misses;
        idx = allocate(line, t);
        done = line_access(dram_isock, req_, true, line, lb_, t);
    } else {
        ++st_.read_misses;
        done = line_access(pm_isock, req_, false, line, lb_, t);   // PM read (the WPQ CAM search runs beside it)
        idx = allocate(line, done);
        line_access(dram_isock, req_, true, line, lb_, done);      // fill
    }
    if (write) cache_write(c, idx, 0, nullptr, lb_);
    delay = ps(done - now_ps());
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

void DramCache::warm(uint64_t line)
{
    cache *c = tags_.get();
    if (cache_lookup(c, line) >= 0) return;        // direct-mapped: no order to update
    const int32_t idx = cache_victim(c, line);
    cache_install(c, idx, line, 1);
    cache_fill(c, idx, nullptr);
}

void DramCache::report(StatsWriter &w, uint64_t) const
{
    const std::string g = name();
    w.add(g, "reads", st_.reads, "accesses", "line reads from the L2");
    w.add(g, "writes", st_.writes, "accesses", "line write-backs from the L2");
    w.add(g, "read_misses", st_.read_misses, "accesses", "reads that went to PM");
    w.add(g, "write_misses", st_.write_misses, "accesses", "write-backs that allocated a line");
    w.add(g, "pm_writebacks", st_.pm_writebacks, "lines", "dirty victims written to PM");
    w.add(g, "dropped_evictions", st_.dropped, "lines", "dirty victims dropped (persisted by the persist path, IV-G)");
    w.add(g, "miss_rate", st_.reads ? (double)st_.read_misses / st_.reads : 0, "-", "read miss ratio");
}

} // namespace persim
