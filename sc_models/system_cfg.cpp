#include "system_cfg.h"

namespace persim {

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
    s.line_bytes = (uint32_t)c.i("l1.line_bytes");
    s.l1_size_bytes = (uint64_t)c.i("l1.size_kb") * 1024;
    s.l1_assoc = (uint32_t)c.i("l1.assoc");
    s.l1_hit_cycles = c.i("l1.hit_latency_cycles");
    s.l2_size_bytes = (uint64_t)c.i("l2.size_kb") * 1024;
    s.l2_assoc = (uint32_t)c.i("l2.assoc");
    s.l2_hit_cycles = c.i("l2.hit_latency_cycles");
    s.seed = (uint64_t)c.i("sim.seed");
    s.workload_size = (uint64_t)c.i("workload.size");
    s.max_time_ms = c.f("sim.max_time_ms");
    s.progress_ms = c.i("sim.progress_ms");
    s.promote_block_scope = c.b("persist.promote_block_scope");
    return s;
}

} // namespace persim
