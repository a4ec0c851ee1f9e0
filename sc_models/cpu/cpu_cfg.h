// The cpu system's configuration (cpu.*, persist_path.*, regions.*, and the shared l1/l2 keys),
// read from the Config in one place (cpu_cfg.cpp). Units: times in ps, sizes in bytes.
#pragma once
#include <cstdint>
#include <string>
#include "config.h"
#include "system_cfg.h"
extern "C" {
#include "cache.h"
#include "region_form.h"
}

namespace persim {

// L1 victim choice on a front-end buffer conflict (LightWSP IV-G, Figure 13).
enum class VictimPolicy : uint8_t { FULL, HALF, ZERO, NONE };

struct CpuCfg {
    SystemCfg sys;
    uint32_t cores = 8;                // hardware threads (cpu.cores)
    uint32_t threads_per_core = 1;     // cpu.threads_per_core: threads sharing an L1
    uint64_t period_ps = 500;          // cpu.clock_ghz
    uint32_t width = 4;
    uint32_t max_loads = 16;
    uint32_t sb_entries = 56;
    uint64_t spin_ps = 20000;
    cache_cfg l1{}, l2{}, dram_cache{};
    uint64_t l1_hit_ps = 0, l2_hit_ps = 0;     // l1.hit_latency_cycles, l2.hit_latency_cycles
    uint64_t l1_busy_ps = 0, l2_busy_ps = 0;
    bool use_dram_cache = true;
    uint64_t path_latency_ps = 20000, path_skew_ps = 0;
    double path_gbps = 4;
    uint32_t path_header = 0;
    uint32_t fe_entries = 64;
    bool pb_coalesce = true;           // persist_path.coalesce (BROI persist buffer)
    VictimPolicy victim_policy = VictimPolicy::FULL;
    std::string victim_policy_name = "full";
    region_form_cfg regions{};
    uint32_t rdma_channels = 0;        // rdma.channels
    uint64_t rdma_latency_ps = 0;      // rdma.latency_ns (one way)
    double rdma_gbps = 5;
    bool rdma_sync = false;            // rdma.mode == sync
    uint64_t power_fail_ps = 0;        // sim.power_fail_ns (0 = never)
    bool crash_check = false;        // sim.crash_check
    bool run_ahead = false;          // sim.cpu_run_ahead
    uint64_t ff_instr = 0;             // sim.fastforward_instructions (per thread, 0 = off)
    uint64_t warm_instr = 0;           // sim.warmup_instructions (per thread, 0 = off)
    uint64_t sample_period = 0;        // sim.sample_period_instructions (per thread, 0 = off)
    uint64_t sample_window = 0;        // sim.sample_window_instructions
    double warmup = 0;                 // sim.warmup: fraction of each stream replayed to warm the caches (0 = off)
    static CpuCfg from(const Config &c);
};

} // namespace persim
