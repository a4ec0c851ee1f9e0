#include "gpu_cfg.h"
#include <cmath>
#include "config_table.h"
#include "cores_util.h"

namespace persim {

// gpu.*: the GPU (its SMs, their clock, the kernel launch gap).
const ConfigTable<GpuCfg> &gpu_table()
{
    using K = GpuCfg;
    static const ConfigTable<K> t =
        ConfigTable<K>("gpu", "sc_models/gpu/gpu_cfg.cpp")
            .num("gpu.num_sms", PERSIM_FIELD(K, num_sms), 30, "SMs", 1, 256, "streaming multiprocessors")
            .real("gpu.clock_mhz", PERSIM_FIELD(K, clock_mhz), 1365.0, "MHz", 1, 10000, "SM core clock")
            .num("gpu.max_warps_per_sm", PERSIM_FIELD(K, max_warps_per_sm), 32, "warps", 1, 64,
                 "resident warps per SM (width of the PB warp masks, <= 64)")
            .num("gpu.max_threads_per_block", PERSIM_FIELD(K, max_threads_per_block), 1024, "threads", 32, 2048, "largest thread block")
            .num("gpu.max_blocks_per_sm", PERSIM_FIELD(K, max_blocks_per_sm), 32, "blocks", 1, 64, "resident thread blocks per SM")
            .num("gpu.warp_schedulers", PERSIM_FIELD(K, warp_schedulers), 4, "-", 1, 8,
                 "warp schedulers per SM, each issuing one instruction per cycle")
            .ns("gpu.kernel_launch_ns", PERSIM_FIELD(K, kernel_launch_ps), 0.0, 0, 1e9,
                "gap between the end of one kernel and the start of the next");
    return t;
}
PERSIM_CONFIG_TABLE(gpu_table, 200);

// icnt.*: the SM-L2 crossbar.
const ConfigTable<GpuCfg> &icnt_table()
{
    using K = GpuCfg;
    static const ConfigTable<K> t =
        ConfigTable<K>("icnt", "sc_models/gpu/gpu_cfg.cpp")
            .num("icnt.latency_cycles", PERSIM_FIELD(K, icnt_latency_cycles), 8, "cycles", 0, 1000, "crossbar traversal latency, each direction")
            .num("icnt.flit_bytes", PERSIM_FIELD(K, icnt_flit_bytes), 40, "B", 4, 1024,
                 "crossbar flit size; a port moves one flit per cycle (artifact: 40 B)")
            .num("icnt.header_bytes", PERSIM_FIELD(K, icnt_header_bytes), 8, "B", 0, 256, "request/ack header bytes");
    return t;
}
PERSIM_CONFIG_TABLE(icnt_table, 220);

GpuCfg GpuCfg::from(const Config &c)
{
    GpuCfg g;
    g.sys = SystemCfg::from(c);
    gpu_table().fill(c, g);
    icnt_table().fill(c, g);
    g.period_ps = (uint64_t)std::llround(1e6 / g.clock_mhz);
    g.l1_size_bytes = g.sys.l1_size_bytes;
    g.line_bytes = g.sys.line_bytes;
    g.l1_assoc = g.sys.l1_assoc;
    const int64_t l1_hit = g.sys.l1_hit_cycles, l2_hit = g.sys.l2_hit_cycles;
    g.l1_hit_ps = cycles_to_ps((double)l1_hit, g.period_ps);
    g.l2_size_bytes = g.sys.l2_size_bytes;
    g.l2_assoc = g.sys.l2_assoc;
    g.l2_banks = g.sys.l2_banks;
    g.l2_hit_ps = cycles_to_ps((double)l2_hit, g.period_ps);
    g.l2_bank_busy_ps = cycles_to_ps((double)g.sys.l2_bank_busy_cycles, g.period_ps);
    g.icnt_hop_ps = cycles_to_ps((double)g.icnt_latency_cycles, g.period_ps);
    g.l2_round_trip_ps = cycles_to_ps((double)(2 * (int64_t)g.icnt_latency_cycles + l2_hit), g.period_ps);
    return g;
}

} // namespace persim
