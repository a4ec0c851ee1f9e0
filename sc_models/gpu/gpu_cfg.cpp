#include "gpu_cfg.h"
#include <cmath>
#include "cores_util.h"

namespace persim {

GpuCfg GpuCfg::from(const Config &c)
{
    GpuCfg g;
    g.sys = SystemCfg::from(c);
    g.num_sms = (uint32_t)c.i("gpu.num_sms");
    g.max_warps_per_sm = (uint32_t)c.i("gpu.max_warps_per_sm");
    g.max_threads_per_block = (uint32_t)c.i("gpu.max_threads_per_block");
    g.max_blocks_per_sm = (uint32_t)c.i("gpu.max_blocks_per_sm");
    g.warp_schedulers = (uint32_t)c.i("gpu.warp_schedulers");
    g.clock_mhz = c.f("gpu.clock_mhz");
    g.period_ps = (uint64_t)std::llround(1e6 / g.clock_mhz);
    g.kernel_launch_ps = ns_to_ps(c.f("gpu.kernel_launch_ns"));
    g.l1_size_bytes = g.sys.l1_size_bytes;
    g.line_bytes = g.sys.line_bytes;
    g.l1_assoc = g.sys.l1_assoc;
    const int64_t l1_hit = g.sys.l1_hit_cycles, l2_hit = g.sys.l2_hit_cycles;
    g.l1_hit_ps = cycles_to_ps((double)l1_hit, g.period_ps);
    g.l2_size_bytes = g.sys.l2_size_bytes;
    g.l2_assoc = g.sys.l2_assoc;
    g.l2_banks = (uint32_t)c.i("l2.banks");
    g.l2_hit_ps = cycles_to_ps((double)l2_hit, g.period_ps);
    g.l2_bank_busy_ps = cycles_to_ps((double)c.i("l2.bank_busy_cycles"), g.period_ps);
    g.icnt_latency_cycles = (uint32_t)c.i("icnt.latency_cycles");
    g.icnt_flit_bytes = (uint32_t)c.i("icnt.flit_bytes");
    g.icnt_header_bytes = (uint32_t)c.i("icnt.header_bytes");
    g.icnt_hop_ps = cycles_to_ps((double)g.icnt_latency_cycles, g.period_ps);
    g.l2_round_trip_ps = cycles_to_ps((double)(2 * (int64_t)g.icnt_latency_cycles + l2_hit), g.period_ps);
    return g;
}

} // namespace persim
