#include "cpu_cfg.h"
#include "cores_util.h"
#include "mem_ctrl.h"
#include <cmath>

namespace persim {

CpuCfg CpuCfg::from(const Config &c)
{
    CpuCfg k;
    k.sys = SystemCfg::from(c);
    k.cores = (uint32_t)c.i("cpu.cores");
    k.threads_per_core = (uint32_t)c.i("cpu.threads_per_core");
    if (k.cores % k.threads_per_core)
        throw ConfigError("cpu.threads_per_core: " + std::to_string(k.threads_per_core) + " threads per core do not divide "
                          "cpu.cores = " + std::to_string(k.cores) + " hardware threads");
    k.period_ps = (uint64_t)std::llround(1000.0 / c.f("cpu.clock_ghz"));
    if (k.period_ps == 0) k.period_ps = 1;
    k.width = (uint32_t)c.i("cpu.width");
    k.max_loads = (uint32_t)c.i("cpu.max_loads");
    k.sb_entries = (uint32_t)c.i("cpu.sb_entries");
    k.spin_ps = ns_to_ps(c.f("cpu.spin_ns"));
    const uint32_t lb = k.sys.line_bytes;
    k.l1 = cache_cfg{k.sys.l1_size_bytes, lb, k.sys.l1_assoc, 1};
    k.l2 = cache_cfg{k.sys.l2_size_bytes, lb, k.sys.l2_assoc, 1};
    k.dram_cache = cache_cfg{(uint64_t)c.i("cpu.dram_cache_mb") << 20, lb, 1, 1};
    k.l1_hit_ps = (uint64_t)k.sys.l1_hit_cycles * k.period_ps;
    k.l2_hit_ps = (uint64_t)k.sys.l2_hit_cycles * k.period_ps;
    k.l1_busy_ps = (uint64_t)c.i("cpu.l1_busy_cycles") * k.period_ps;
    k.l2_busy_ps = (uint64_t)c.i("cpu.l2_busy_cycles") * k.period_ps;
    k.use_dram_cache = c.b("cpu.dram_cache");
    k.path_latency_ps = ns_to_ps(c.f("persist_path.latency_ns"));
    k.path_skew_ps = ns_to_ps(c.f("persist_path.skew_ns"));
    k.path_gbps = c.f("persist_path.bw_gbps");
    k.path_header = (uint32_t)c.i("persist_path.header_bytes");
    k.fe_entries = (uint32_t)c.i("persist_path.fe_entries");
    k.pb_coalesce = c.b("persist_path.coalesce");
    k.victim_policy_name = c.s("persist_path.victim_policy");
    k.victim_policy = k.victim_policy_name == "full" ? VictimPolicy::FULL
                    : k.victim_policy_name == "half" ? VictimPolicy::HALF
                    : k.victim_policy_name == "zero" ? VictimPolicy::ZERO : VictimPolicy::NONE;
    const uint32_t wpq = MemCtrlCfg::nvm(c).wpq_entries;     // the controllers' keys are theirs
    uint32_t th = (uint32_t)c.i("regions.store_threshold");
    if (th == 0) th = wpq / 2;
    if (th < 2)
        throw ConfigError("regions.store_threshold: " + std::to_string(th) +
                          " stores per region (at least 2: one program store and the PC store; 0 = nvm.wpq_entries / 2)");
    k.regions.threshold = th;
    k.regions.max_live_outs = (uint32_t)c.i("regions.max_live_outs");
    k.regions.instr_per_live_out = (uint32_t)c.i("regions.instr_per_live_out");
    k.rdma_channels = (uint32_t)c.i("rdma.channels");
    k.rdma_latency_ps = ns_to_ps(c.f("rdma.latency_ns"));
    k.rdma_gbps = c.f("rdma.bw_gbps");
    k.rdma_sync = c.s("rdma.mode") == "sync";
    k.power_fail_ps = ns_to_ps(c.f("sim.power_fail_ns"));
    k.crash_check = c.b("sim.crash_check");
    k.warmup = c.f("sim.warmup");
    if (k.l1.assoc == 0) throw ConfigError("l1.assoc: the cpu system needs a set-associative L1 (1..256 ways)");
    return k;
}

} // namespace persim
