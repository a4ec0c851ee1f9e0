// The GPU's configuration (gpu.*, l1.*, l2.*, icnt.* and the shared system keys it needs), read from
// the Config in one place (gpu_cfg.cpp). Every GPU block takes this struct; the persistency models
// read their own persist.* keys in their own files (persist/*.cpp).
#pragma once
#include <cstdint>
#include "config.h"
#include "system_cfg.h"

namespace persim {

struct GpuCfg {
    SystemCfg sys;
    // gpu.*
    uint32_t num_sms, max_warps_per_sm, max_threads_per_block, max_blocks_per_sm, warp_schedulers;
    double clock_mhz;
    uint64_t period_ps;           // SM clock period
    uint64_t kernel_launch_ps;    // gap between kernels
    // l1.*
    uint64_t l1_size_bytes;
    uint32_t line_bytes, l1_assoc;
    uint64_t l1_hit_ps;
    // l2.*
    uint64_t l2_size_bytes;
    uint32_t l2_assoc, l2_banks;
    uint64_t l2_hit_ps, l2_bank_busy_ps;
    // icnt.*
    uint32_t icnt_latency_cycles, icnt_flit_bytes, icnt_header_bytes;
    uint64_t icnt_hop_ps;         // one crossbar traversal
    uint64_t l2_round_trip_ps;    // SM -> L2 -> SM without queueing (2 hops + L2 hit)
    static GpuCfg from(const Config &c);
};

} // namespace persim
