#include "cpu_cfg.h"
#include "cores_util.h"
#include "config_table.h"
#include "mem_ctrl.h"
#include <cmath>

namespace persim {

namespace {

VictimPolicy victim_policy(const std::string &n)
{
    return n == "full" ? VictimPolicy::FULL : n == "half" ? VictimPolicy::HALF : n == "zero" ? VictimPolicy::ZERO
                                                                                             : VictimPolicy::NONE;
}


} // namespace

// The cpu system's keys (LightWSP Table I defaults, configs/cpu_lightwsp_table1.json), in fill order:
// a row may use the fields the rows above it filled (the clock period).
const ConfigTable<CpuCfg> &cpu_cfg_table()
{
    using K = CpuCfg;
    static const ConfigTable<CpuCfg> t =
        ConfigTable<CpuCfg>("cpu", "sc_models/cpu/cpu_cfg.cpp")
            .num("cpu.cores", PERSIM_FIELD(K, cores), 8, "cores",
                 1, 256, "cpu system: cores, one hardware thread each (one op stream per thread)")
            .row(config_def("cpu.clock_ghz", PType::Float, 2.0, "GHz", "cpu system: core clock (LightWSP Table I: 2 GHz)", 0.001, 100),
                 "CpuCfg::period_ps", "", [](K &k, const Config &c) {
                     k.period_ps = (uint64_t)std::llround(1000.0 / c.f("cpu.clock_ghz"));
                     if (k.period_ps == 0) k.period_ps = 1;
                 })
            .num("cpu.threads_per_core", PERSIM_FIELD(K, threads_per_core), 1, "threads", 1, 8,
                 "cpu system: hardware threads sharing one core's L1 (its tags and its port); cpu.cores counts hardware "
                 "threads and must be a multiple of this (BROI Table III: 2 threads per core). Barrier models only: "
                 "LightWSP's buffer snooping is per thread")
            .num("cpu.width", PERSIM_FIELD(K, width), 4, "instructions/cycle", 1, 16,
                 "cpu system: instructions a core issues per cycle (Table I: 4-wide)")
            .num("cpu.max_loads", PERSIM_FIELD(K, max_loads), 16, "loads", 1, 1024,
                 "cpu system: loads a core keeps outstanding before it stalls (load queue / MSHRs; Table I LQ 72 bounds it)")
            .num("cpu.sb_entries", PERSIM_FIELD(K, sb_entries), 56, "stores", 1, 4096,
                 "cpu system: store buffer entries per core (Table I: SQ 56)")
            .ns("cpu.spin_ns", PERSIM_FIELD(K, spin_ps), 20.0, 0, 1e6,
                "cpu system: a core waiting on a lock re-reads it this long after it is written")
            .row(config_def("cpu.l1_busy_cycles", PType::Int, 1, "cycles", "cpu system: cycles one access occupies the L1 port", 0, 1000),
                 "CpuCfg::l1_busy_ps", "",
                 [](K &k, const Config &c) { k.l1_busy_ps = (uint64_t)c.i("cpu.l1_busy_cycles") * k.period_ps; })
            .row(config_def("cpu.l2_busy_cycles", PType::Int, 2, "cycles", "cpu system: cycles one access occupies the shared L2", 0, 1000),
                 "CpuCfg::l2_busy_ps", "",
                 [](K &k, const Config &c) { k.l2_busy_ps = (uint64_t)c.i("cpu.l2_busy_cycles") * k.period_ps; })
            .flag("cpu.dram_cache", PERSIM_FIELD(K, use_dram_cache), true,
                  "cpu system: a direct-mapped DRAM cache in front of PM (Optane memory mode, LightWSP Table I); the "
                  "psp model runs without it whatever this says")
            .row(config_def("cpu.dram_cache_mb", PType::Int, 4096, "MiB", "cpu system: DRAM cache capacity (tag-only model; Table I: 4 GB)",
                     1, 1 << 20),
                 "CpuCfg::dram_cache", "", [](K &k, const Config &c) {
                     k.dram_cache = cache_cfg{(uint64_t)c.i("cpu.dram_cache_mb") << 20, k.sys.line_bytes, 1, 1};
                 })
            .ns("persist_path.latency_ns", PERSIM_FIELD(K, path_latency_ps), 20.0, 0, 1e6,
                "cpu system: persist path latency from a core's front-end buffer to a controller (Table I: 20 ns worst case)")
            .ns("persist_path.skew_ns", PERSIM_FIELD(K, path_skew_ps), 0.0, 0, 1e6,
                "cpu system: extra persist-path latency per controller index (controller i: latency + i * skew; "
                "non-uniform distance to the controllers, LightWSP II-B)")
            .real("persist_path.bw_gbps", PERSIM_FIELD(K, path_gbps), 4.0, "GB/s", 0.001, 1e6,
                  "cpu system: persist path bandwidth per core (Table I: 4 GB/s)")
            .num("persist_path.header_bytes", PERSIM_FIELD(K, path_header), 0, "B", 0, 256,
                 "cpu system: header bytes per persist-path packet")
            .num("persist_path.fe_entries", PERSIM_FIELD(K, fe_entries), 64, "entries", 1, 4096,
                 "cpu system: front-end buffer entries per core (Table I: 64-entry FIFO, 8 B each)")
            .flag("persist_path.coalesce", PERSIM_FIELD(K, pb_coalesce), true,
                  "cpu system, BROI models: a store joins an unsent persist-buffer entry of its cache block in the same "
                  "barrier epoch when it brings no dependency (BROI IV-E: 72 B entries hold a 64 B block; "
                  "cores/persist_buf.h); false: one entry per store. With BROI, persist_path.fe_entries is the persist "
                  "buffer's size (IV-E: 8)")
            .row(config_def("persist_path.victim_policy", PType::Enum, "full", "-",
                     "cpu system: L1 victim choice on a front-end buffer conflict (LightWSP IV-G, Figure 13): full scans "
                     "every way, half the older half, zero waits for the entry; none does not snoop (stale-load variant, "
                     "Figure 14)", -1e300, 1e300, {"full", "half", "zero", "none"}),
                 "CpuCfg::victim_policy", "", [](K &k, const Config &c) {
                     k.victim_policy_name = c.s("persist_path.victim_policy");
                     k.victim_policy = victim_policy(k.victim_policy_name);
                 })
            .row(config_def("regions.store_threshold", PType::Int, 0, "stores",
                     "cpu system: stores per region at most, checkpoint and PC stores included (0 = half of "
                     "nvm.wpq_entries, LightWSP III-C / IV-A)", 0, 1 << 20),
                 "CpuCfg::regions.threshold", "", [](K &k, const Config &c) {
                     uint32_t th = (uint32_t)c.i("regions.store_threshold");
                     if (th == 0) th = MemCtrlCfg::nvm(c).wpq_entries / 2;     // the controllers' keys are theirs
                     if (th < 2)
                         throw ConfigError("regions.store_threshold: " + std::to_string(th) +
                                           " stores per region (at least 2: one program store and the PC store; 0 = "
                                           "nvm.wpq_entries / 2)");
                     k.regions.threshold = th;
                 })
            .row(config_def("regions.max_live_outs", PType::Int, 8, "stores",
                     "cpu system: live-out checkpoint stores per region boundary at most (estimate, docs/models/lightwsp.md)",
                     0, 64),
                 "CpuCfg::regions.max_live_outs", "",
                 [](K &k, const Config &c) { k.regions.max_live_outs = (uint32_t)c.i("regions.max_live_outs"); })
            .row(config_def("regions.instr_per_live_out", PType::Int, 16, "instructions",
                     "cpu system: instructions per live-out register a region produces (checkpoint estimate, "
                     "docs/models/lightwsp.md)", 1, 1 << 20),
                 "CpuCfg::regions.instr_per_live_out", "",
                 [](K &k, const Config &c) { k.regions.instr_per_live_out = (uint32_t)c.i("regions.instr_per_live_out"); })
            .num("rdma.channels", PERSIM_FIELD(K, rdma_channels), 0, "channels", 0, 64,
                 "cpu system: RDMA channels of remote clients writing into this machine's PM (BROI V); a program's "
                 "streams after the cpu.cores local ones are these channels")
            .ns("rdma.latency_ns", PERSIM_FIELD(K, rdma_latency_ps), 1500.0, 0, 1e9,
                "cpu system: one-way network latency client NIC -> this machine's NIC (half an RDMA round trip)")
            .real("rdma.bw_gbps", PERSIM_FIELD(K, rdma_gbps), 5.0, "GB/s", 0.001, 1e6,
                  "cpu system: network bandwidth per RDMA channel (40 Gb/s)")
            .row(config_def("rdma.mode", PType::Enum, "bsp", "-",
                     "cpu system: remote persistence (BROI V): sync waits for the persist ACK of every rdma_pwrite (one "
                     "round trip per epoch); bsp sends epochs asynchronously and checks once, at the end",
                     -1e300, 1e300, {"sync", "bsp"}),
                 "CpuCfg::rdma_sync", "", [](K &k, const Config &c) { k.rdma_sync = c.s("rdma.mode") == "sync"; })
            .ns("sim.power_fail_ns", PERSIM_FIELD(K, power_fail_ps), 0.0, 0, 1e12,
                "cpu system: power fails at this simulated time (0 = never): cores stop, controllers run the IV-F "
                "drain/discard sequence, the run ends when they are done")
            .real("sim.warmup", PERSIM_FIELD(K, warmup), 0.0, "fraction", 0, 1,
                  "cpu system: functional warming before the timed run: the memory accesses (loads, stores, acquires, "
                  "releases) of the first fraction of each thread's op stream are replayed, threads interleaved op by op, "
                  "into the L1s, the L2 and the DRAM cache (tags and LRU order only, lines installed clean; no time, no "
                  "statistics, no persist path, no PM traffic); then the whole stream runs timed from its start "
                  "(0 = off; 1 = the whole stream; docs/models/lightwsp.md)")
            .num("sim.fastforward_instructions", PERSIM_FIELD(K, ff_instr), 0, "instructions", 0, 1e15,
                 "cpu system: each thread skips the first ops of its stream that make up this many instructions "
                 "(the op that crosses the count included; never past a barrier, nor past an acquire of a lock that no "
                 "thread's functional ops release): no time, no caches, no persist path; their stores are written to "
                 "the functional image only; summary.fastforward_instructions counts them "
                 "(0 = off; docs/models/lightwsp.md \"Fast-forward and functional warming\")")
            .num("sim.warmup_instructions", PERSIM_FIELD(K, warm_instr), 0, "instructions", 0, 1e15,
                 "cpu system: after the fast-forward, each thread executes this many more instructions functionally: "
                 "as the fast-forward, and their memory accesses warm the L1s, the L2 and the DRAM cache (tags and LRU "
                 "order, lines installed clean); the timed run starts after them; summary.warmup_instructions counts "
                 "them (0 = off; docs/models/lightwsp.md \"Fast-forward and functional warming\")")
            .num("sim.sample_period_instructions", PERSIM_FIELD(K, sample_period), 0, "instructions", 0, 1e15,
                 "cpu system: SMARTS-style sampling: each thread's timed run is cut into periods of this many "
                 "instructions; the first sim.sample_window_instructions of each run detailed (timed, measured), the "
                 "rest functionally (no time; caches warmed, stores into the functional image); summary.sample_* give "
                 "each sampled figure's mean and 95% confidence interval over all windows (0 = off; "
                 "docs/models/lightwsp.md \"Sampling\")")
            .num("sim.sample_window_instructions", PERSIM_FIELD(K, sample_window), 0, "instructions", 0, 1e15,
                 "cpu system: detailed instructions at the start of each sampling period (with "
                 "sim.sample_period_instructions: 1 to the period - 1)")
            .flag("sim.cpu_run_ahead", PERSIM_FIELD(K, run_ahead), false,
                  "cpu system: a core runs its compute gaps and markers ahead in local time and returns to the SystemC "
                  "kernel only at an op that touches shared state (about a third fewer activations under none); every "
                  "op keeps its issue time, but cores whose ops fall on the same picosecond may be ordered differently "
                  "than in the default run, so figures move slightly (docs/architecture.md \"Timing conventions\"; off "
                  "= the golden runs)")
            .flag("sim.crash_check", PERSIM_FIELD(K, crash_check), false,
                  "cpu system: check the persistent state of the run (persim crash on the cpu system sets it; "
                  "docs/checking.md): region models, every distinct crash image against a prefix of committed regions; "
                  "barrier models (broi), durable order against buffered strict persistence");
    return t;
}
PERSIM_CONFIG_TABLE(cpu_cfg_table, 800);

CpuCfg CpuCfg::from(const Config &c)
{
    CpuCfg k;
    k.sys = SystemCfg::from(c);
    cpu_cfg_table().fill(c, k);
    if (k.cores % k.threads_per_core)
        throw ConfigError("cpu.threads_per_core: " + std::to_string(k.threads_per_core) + " threads per core do not divide "
                          "cpu.cores = " + std::to_string(k.cores) + " hardware threads");
    const uint32_t lb = k.sys.line_bytes;
    k.l1 = cache_cfg{k.sys.l1_size_bytes, lb, k.sys.l1_assoc, 1};
    k.l2 = cache_cfg{k.sys.l2_size_bytes, lb, k.sys.l2_assoc, 1};
    k.l1_hit_ps = (uint64_t)k.sys.l1_hit_cycles * k.period_ps;
    k.l2_hit_ps = (uint64_t)k.sys.l2_hit_cycles * k.period_ps;
    if (k.sample_period && (k.sample_window == 0 || k.sample_window >= k.sample_period))
        throw ConfigError("sim.sample_window_instructions: " + std::to_string(k.sample_window) + " must be 1 to "
                          "sim.sample_period_instructions - 1 = " + std::to_string(k.sample_period - 1));
    if (!k.sample_period && k.sample_window)
        throw ConfigError("sim.sample_window_instructions: set without sim.sample_period_instructions");
    if (k.sample_period && k.crash_check)
        throw ConfigError("sim.sample_period_instructions: not with sim.crash_check (functional stores never reach PM)");
    if (k.l1.assoc == 0) throw ConfigError("l1.assoc: the cpu system needs a set-associative L1 (1..256 ways)");
    return k;
}

} // namespace persim
