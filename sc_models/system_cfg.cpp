#include "system_cfg.h"
#include "config_table.h"
#include <cmath>

namespace persim {

// The caches every system shares: l1.* and l2.* into SystemCfg (l2.banks and l2.bank_busy_cycles
// only the gpu's L2 uses: GpuCfg takes them from here).
const ConfigTable<SystemCfg> &caches_table()
{
    using K = SystemCfg;
    static const ConfigTable<K> t =
        ConfigTable<K>("caches", "sc_models/system_cfg.cpp")
            .row(config_def("l1.size_kb", PType::Int, (int64_t)64, "KiB", "L1 data cache per SM", 1, 1024), "SystemCfg::l1_size_bytes", "",
                 [](K &s, const Config &c) { s.l1_size_bytes = (uint64_t)c.i("l1.size_kb") * 1024; })
            .num("l1.line_bytes", PERSIM_FIELD(K, line_bytes), 128, "B", 32, 128, "cache line size (L1 and L2)")
            .num("l1.assoc", PERSIM_FIELD(K, l1_assoc), 0, "ways", 0, 4096, "L1 associativity (0 = fully associative, as the SBRP artifact)")
            .num("l1.hit_latency_cycles", PERSIM_FIELD(K, l1_hit_cycles), 20, "cycles", 1, 1000, "L1 hit latency")
            .row(config_def("l2.size_kb", PType::Int, (int64_t)3072, "KiB", "shared L2 cache", 64, 65536), "SystemCfg::l2_size_bytes", "",
                 [](K &s, const Config &c) { s.l2_size_bytes = (uint64_t)c.i("l2.size_kb") * 1024; })
            .num("l2.assoc", PERSIM_FIELD(K, l2_assoc), 16, "ways", 1, 64, "L2 associativity")
            .num("l2.banks", PERSIM_FIELD(K, l2_banks), 24, "banks", 1, 256, "L2 slices (address-interleaved by line)")
            .num("l2.hit_latency_cycles", PERSIM_FIELD(K, l2_hit_cycles), 160, "cycles", 1, 10000, "L2 access latency (artifact: ROP latency 160)")
            .num("l2.bank_busy_cycles", PERSIM_FIELD(K, l2_bank_busy_cycles), 2, "cycles", 1, 1000,
                 "cycles a bank is occupied by one access (bank throughput)");
    return t;
}
PERSIM_CONFIG_TABLE(caches_table, 210);

// persist.promote_block_scope: a rewrite of the program before it runs (SBRP Figure 7), not a block.
const ConfigTable<SystemCfg> &scopes_table()
{
    using K = SystemCfg;
    static const ConfigTable<K> t =
        ConfigTable<K>("scopes", "sc_models/system_cfg.cpp")
            .flag("persist.promote_block_scope", PERSIM_FIELD(K, promote_block_scope), false,
                  "run block-scope acquires/releases as device-scope ones (SBRP Figure 7: speedup without scopes)");
    return t;
}
PERSIM_CONFIG_TABLE(scopes_table, 440);

SystemCfg SystemCfg::from(const Config &c)
{
    SystemCfg s;
    s.kind = c.s("system.kind");
    s.name = c.s("system.name");
    s.placement = c.s("system.pm_placement");
    s.pm_far = s.placement == "far";
    s.eadr = c.b("system.eadr");
    s.pm_in_dram = c.b("system.pm_in_dram");
    s.pm_base = (uint64_t)c.i("system.pm_base");
    caches_table().fill(c, s);
    s.seed = (uint64_t)c.i("sim.seed");
    s.workload_size = (uint64_t)c.i("workload.size");
    s.workload_scale = c.f("workload.scale");
    s.max_time_ms = c.f("sim.max_time_ms");
    s.progress_ms = c.i("sim.progress_ms");
    scopes_table().fill(c, s);
    return s;
}

uint64_t SystemCfg::size_of(uint64_t default_size, uint64_t small_size, bool small) const
{
    if (workload_size) return workload_size;
    const long long n = std::llround((double)(small ? small_size : default_size) * workload_scale);
    return n < 1 ? 1 : (uint64_t)n;
}

} // namespace persim
