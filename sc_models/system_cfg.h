// The keys every system and every tool shares (system.*, sim.*, workload.size), read from the
// Config in one place (system_cfg.cpp) into a typed struct. Blocks read their own keys into their
// own structs (gpu_cfg.h, MemCtrlCfg in mem_ctrl.h, each persistency model and front end in its file).
#pragma once
#include <cstdint>
#include <string>
#include "config.h"

namespace persim {

struct SystemCfg {
    std::string kind;            // system.kind
    std::string name;            // system.name (copied to results)
    std::string placement;       // system.pm_placement: "near" / "far"
    bool pm_far = false;         // placement == "far"
    bool eadr = false;           // system.eadr (PM-far: host LLC in the persistence domain)
    bool pm_in_dram = false;     // system.pm_in_dram (DRAM-only baseline)
    uint64_t pm_base = 0;        // system.pm_base: first persistent address
    uint32_t line_bytes = 128;   // l1.line_bytes: the cache line of every cache and controller
    // The L1 and L2 keys (table "caches" in system_cfg.cpp: l1.size_kb, l1.assoc, l1.hit_latency_cycles,
    // the same of l2, and the L2 slices l2.banks / l2.bank_busy_cycles, which only the gpu uses);
    // each system adds its own (cpu.l1_busy_cycles: cpu).
    uint64_t l1_size_bytes = 0, l2_size_bytes = 0;
    uint32_t l1_assoc = 0, l2_assoc = 0;   // 0: fully associative
    int64_t l1_hit_cycles = 0, l2_hit_cycles = 0;
    uint32_t l2_banks = 1;                 // l2.banks
    int64_t l2_bank_busy_cycles = 1;       // l2.bank_busy_cycles
    uint64_t seed = 1;           // sim.seed
    uint64_t workload_size = 0;  // workload.size (0: the workload's own default or small size)
    double workload_scale = 1;   // workload.scale: multiplies the default (or small) size when workload.size is 0
    // The size a run of a workload with these settings uses: workload.size if given, else the
    // workload's default (small: its test size) times workload.scale, at least 1.
    uint64_t size_of(uint64_t default_size, uint64_t small_size, bool small) const;
    double max_time_ms = 50;     // sim.max_time_ms
    int64_t progress_ms = 2000;  // sim.progress_ms
    bool promote_block_scope = false;   // persist.promote_block_scope (a program rewrite, SBRP Figure 7)
    static SystemCfg from(const Config &c);
};

} // namespace persim
