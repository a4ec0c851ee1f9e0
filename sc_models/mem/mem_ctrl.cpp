#include "mem_ctrl.h"
#include "suggest.h"

#include <cmath>
#include <cstring>
#include "config_table.h"
#include "cores_util.h"
#include "fe_tuning.h"
#include "system_cfg.h"

namespace persim {
using namespace sc_core;

// ---- configuration (the only place the memory keys are read): the tables of the GDDR controllers
// (dram.*), of the NVM controllers (nvm.*) and of the host LLC a PM-far controller writes through (host.*)

const ConfigTable<MemCtrlCfg> &dram_table()
{
    using K = MemCtrlCfg;
    static const ConfigTable<K> t =
        ConfigTable<K>("dram", "sc_models/mem/mem_ctrl.cpp")
            .row(config_def("dram.bw_gbps", PType::Float, 336.0, "GB/s", "GDDR bandwidth (Table 1)", 0.001, 1e6),
                 "MemCtrlCfg::dev.read_gbps, dev.write_gbps", "", [](K &m, const Config &c) { m.dev.read_gbps = m.dev.write_gbps = c.f("dram.bw_gbps"); })
            .row(config_def("dram.latency_ns", PType::Float, 100.0, "ns", "GDDR access latency (Table 1)", 0, 1e6),
                 "MemCtrlCfg::dev.read_latency_ps, dev.write_latency_ps", "", [](K &m, const Config &c) { m.dev.read_latency_ps = m.dev.write_latency_ps = ns_to_ps(c.f("dram.latency_ns")); })
            .row(config_def("dram.channels", PType::Int, (int64_t)12, "-", "GDDR channels", 1, 256),
                 "MemCtrlCfg::dev.channels", "", [](K &m, const Config &c) { m.dev.channels = (uint32_t)c.i("dram.channels"); })
            .row(config_def("dram.banks", PType::Int, (int64_t)16, "-", "banks per channel", 1, 256),
                 "MemCtrlCfg::dev.banks", "", [](K &m, const Config &c) { m.dev.banks = (uint32_t)c.i("dram.banks"); })
            .row(config_def("dram.row_bytes", PType::Int, (int64_t)2048, "B", "row-buffer size", 64, 1 << 20),
                 "MemCtrlCfg::dev.row_bytes", "", [](K &m, const Config &c) { m.dev.row_bytes = (uint32_t)c.i("dram.row_bytes"); })
            .row(config_def("dram.row_hit_latency_ns", PType::Float, 70.0, "ns", "latency of a row-buffer hit", 0, 1e6),
                 "MemCtrlCfg::dev.row_hit_latency_ps", "", [](K &m, const Config &c) { m.dev.row_hit_latency_ps = ns_to_ps(c.f("dram.row_hit_latency_ns")); })
            .row(config_def("dram.bank_busy_ns", PType::Float, 30.0, "ns", "bank occupancy of a row miss (precharge + activate)", 0, 1e6),
                 "MemCtrlCfg::dev.bank_busy_miss_ps", "", [](K &m, const Config &c) { m.dev.bank_busy_miss_ps = ns_to_ps(c.f("dram.bank_busy_ns")); });
    return t;
}
PERSIM_CONFIG_TABLE(dram_table, 300);

const ConfigTable<MemCtrlCfg> &nvm_table()
{
    using K = MemCtrlCfg;
    static const ConfigTable<K> t =
        ConfigTable<K>("nvm", "sc_models/mem/mem_ctrl.cpp")
            .row(config_def("nvm.read_bw_gbps", PType::Float, 84.0, "GB/s", "NVM read bandwidth (Table 1)", 0.001, 1e6),
                 "MemCtrlCfg::dev.read_gbps (/ controllers)", "", [](K &m, const Config &c) { m.dev.read_gbps = c.f("nvm.read_bw_gbps"); })
            .row(config_def("nvm.write_bw_gbps", PType::Float, 42.0, "GB/s", "NVM write bandwidth (Table 1)", 0.001, 1e6),
                 "MemCtrlCfg::dev.write_gbps (/ controllers)", "", [](K &m, const Config &c) { m.dev.write_gbps = c.f("nvm.write_bw_gbps"); })
            .row(config_def("nvm.read_latency_ns", PType::Float, 300.0, "ns", "NVM read latency (Table 1)", 0, 1e6),
                 "MemCtrlCfg::dev.read_latency_ps", "", [](K &m, const Config &c) { m.dev.read_latency_ps = ns_to_ps(c.f("nvm.read_latency_ns")); })
            .row(config_def("nvm.write_latency_ns", PType::Float, 300.0, "ns", "NVM write latency (Table 1)", 0, 1e6),
                 "MemCtrlCfg::dev.write_latency_ps", "", [](K &m, const Config &c) { m.dev.write_latency_ps = ns_to_ps(c.f("nvm.write_latency_ns")); })
            .row(config_def("nvm.row_hit_latency_ns", PType::Float, 300.0, "ns", "NVM latency when the access hits an open buffer row", 0, 1e6),
                 "MemCtrlCfg::dev.row_hit_latency_ps", "", [](K &m, const Config &c) { m.dev.row_hit_latency_ps = ns_to_ps(c.f("nvm.row_hit_latency_ns")); })
            .row(config_def("nvm.bank_busy_ns", PType::Float, 0.0, "ns", "bank occupancy per access beyond the bus transfer", 0, 1e6),
                 "MemCtrlCfg::dev.bank_busy_miss_ps, dev.bank_busy_hit_ps", "", [](K &m, const Config &c) { m.dev.bank_busy_miss_ps = m.dev.bank_busy_hit_ps = ns_to_ps(c.f("nvm.bank_busy_ns")); })
            .row(config_def("nvm.controllers", PType::Int, (int64_t)1, "-", "NVM memory controllers (address-interleaved, nvm.interleave_bytes)", 1, 64),
                 "MemCtrlCfg::controllers", "", [](K &m, const Config &c) { m.controllers = (uint32_t)c.i("nvm.controllers"); })
            .row(config_def("nvm.interleave_bytes", PType::Int, (int64_t)0, "B", "address interleaving granule across NVM controllers (0 = one cache line, l1.line_bytes)", 0, 1ll << 40),
                 "MemCtrlCfg::interleave_bytes (0: line_bytes)", "", [](K &m, const Config &c) { m.interleave_bytes = (uint64_t)c.i("nvm.interleave_bytes"); })
            .row(config_def("nvm.front_end", PType::String, "adr_wpq", "-",
                            "write-queue front end of each NVM controller (sc_models/mem/write_queue.h): adr_wpq (ADR "
                            "write-pending queue, durable once accepted; nvm.wpq_entries = 0 means direct), direct (no queue: "
                            "durable when the device write completes), wpq_gate (LightWSP region-gated WPQ), broi (BROI controller: "
                            "BLP-aware barrier epoch scheduling, durable when the device write completes)"),
                 "MemCtrlCfg::front_end", "", [](K &m, const Config &c) { m.front_end = c.s("nvm.front_end"); })
            .row(config_def("nvm.link_latency_ns", PType::Float, 10.0, "ns", "latency of the link between two memory controllers (boundary / flush ACKs)", 0, 1e6),
                 "MemCtrlCfg::link_latency_ps", "", [](K &m, const Config &c) { m.link_latency_ps = ns_to_ps(c.f("nvm.link_latency_ns")); })
            .row(config_def("nvm.link_bw_gbps", PType::Float, 16.0, "GB/s", "bandwidth of each controller-to-controller link (0 = infinite)", 0, 1e6),
                 "MemCtrlCfg::link_gbps", "", [](K &m, const Config &c) { m.link_gbps = c.f("nvm.link_bw_gbps"); })
            .row(config_def("nvm.link_msg_bytes", PType::Int, (int64_t)8, "B", "size of one controller-to-controller message", 1, 4096),
                 "MemCtrlCfg::link_msg_bytes", "", [](K &m, const Config &c) { m.link_msg_bytes = (uint32_t)c.i("nvm.link_msg_bytes"); })
            .row(config_def("nvm.channels", PType::Int, (int64_t)12, "-", "NVM channels across all controllers", 1, 256),
                 "MemCtrlCfg::dev.channels (/ controllers)", "", [](K &m, const Config &c) { m.dev.channels = (uint32_t)c.i("nvm.channels"); })
            .row(config_def("nvm.banks", PType::Int, (int64_t)16, "-", "banks per channel", 1, 256),
                 "MemCtrlCfg::dev.banks", "", [](K &m, const Config &c) { m.dev.banks = (uint32_t)c.i("nvm.banks"); })
            .row(config_def("nvm.row_bytes", PType::Int, (int64_t)256, "B", "internal buffer row size", 64, 1 << 20),
                 "MemCtrlCfg::dev.row_bytes", "", [](K &m, const Config &c) { m.dev.row_bytes = (uint32_t)c.i("nvm.row_bytes"); })
            .row(config_def("nvm.bank_mapping", PType::Enum, "stride", "-",
                            "NVM bank mapping: stride = consecutive row-sized groups in consecutive banks (BROI IV-D: row locality and "
                            "bank-level parallelism); line = consecutive lines in consecutive banks (plain interleaving, for comparison)",
                            -1e300, 1e300, {"stride", "line"}),
                 "MemCtrlCfg::dev.bank_map", "", [](K &m, const Config &c) { m.dev.bank_map = c.s("nvm.bank_mapping") == "line" ? 1 : 0; })
            .row(config_def("nvm.wpq_entries", PType::Int, 64, "entries",
                            "ADR write-pending queue per controller (durable once accepted); 0 = no WPQ: a write is "
                            "durable when the device write completes", 0, 65536),
                 "MemCtrlCfg::wpq_entries", "", [](K &m, const Config &c) { m.wpq_entries = (uint32_t)c.i("nvm.wpq_entries"); })
            .row(config_def("nvm.wpq_hit_latency_ns", PType::Float, 10.0, "ns", "read served from the write-pending queue", 0, 1e6),
                 "MemCtrlCfg::wpq_hit_ps", "", [](K &m, const Config &c) { m.wpq_hit_ps = ns_to_ps(c.f("nvm.wpq_hit_latency_ns")); })
            // ---- nvm.device = pm_dimm (cores/pm_dimm.h, docs/models/nvm-device.md). Defaults: Intel
            // Optane DC PMM as measured (Izraelevitz et al. 2019, Yang et al. FAST'20) and as VANS
            // configures it (Wang et al. MICRO'20, config/vans.cfg); configs/nvm_optane_dcpmm.json
            // repeats them with their sources.
            .row(config_def("nvm.device", PType::Enum, "bank", "-",
                            "PM device model: bank = channels x banks with fixed latencies and bandwidths (cores/nvm.h); "
                            "pm_dimm = Optane-class DIMMs with 256 B media lines, an on-DIMM combining buffer and an "
                            "address-indirection cache (cores/pm_dimm.h)", -1e300, 1e300, {"bank", "pm_dimm"}),
                 "MemCtrlCfg::device", "", [](K &m, const Config &c) { m.device = c.s("nvm.device"); })
            .row(config_def("nvm.dimms", PType::Int, (int64_t)6, "DIMMs", "pm_dimm: DIMMs across all controllers (Izraelevitz et al.: 6 per socket)", 1, 1024),
                 "MemCtrlCfg::dimm.dimms (/ controllers)", "", [](K &m, const Config &c) { m.dimm.dimms = (uint32_t)c.i("nvm.dimms"); })
            .row(config_def("nvm.dimm_interleave_bytes", PType::Int, (int64_t)4096, "B", "pm_dimm: interleave granule across a controller's DIMMs (Izraelevitz et al.: 4 KB)", 64, 1ll << 30),
                 "MemCtrlCfg::dimm.interleave_bytes", "", [](K &m, const Config &c) { m.dimm.interleave_bytes = (uint64_t)c.i("nvm.dimm_interleave_bytes"); })
            .row(config_def("nvm.media_line_bytes", PType::Int, (int64_t)256, "B", "pm_dimm: media access granule, XPLine (Yang et al. section 2)", 64, 512),
                 "MemCtrlCfg::dimm.media_line_bytes", "", [](K &m, const Config &c) { m.dimm.media_line_bytes = (uint32_t)c.i("nvm.media_line_bytes"); })
            .row(config_def("nvm.dimm_burst_bytes", PType::Int, (int64_t)64, "B", "pm_dimm: DDR-T transfer unit; a smaller write still occupies one burst (DDR4 BL8 x 8 B)", 1, 4096),
                 "MemCtrlCfg::dimm.burst_bytes", "", [](K &m, const Config &c) { m.dimm.burst_bytes = (uint32_t)c.i("nvm.dimm_burst_bytes"); })
            .row(config_def("nvm.dimm_bus_bw_gbps", PType::Float, 21.3, "GB/s", "pm_dimm: channel bandwidth per DIMM (DDR4-2666: 2666 MT/s x 8 B)", 0.001, 1e6),
                 "MemCtrlCfg::dimm.bus_gbps", "", [](K &m, const Config &c) { m.dimm.bus_gbps = c.f("nvm.dimm_bus_bw_gbps"); })
            .row(config_def("nvm.dimm_ctrl_ns", PType::Float, 76.0, "ns", "pm_dimm: on-DIMM controller time of every request, the latency of a buffer hit (calibrated: docs/models/nvm-device.md)", 0, 1e6),
                 "MemCtrlCfg::dimm.ctrl_ps", "", [](K &m, const Config &c) { m.dimm.ctrl_ps = ns_to_ps(c.f("nvm.dimm_ctrl_ns")); })
            .row(config_def("nvm.xpbuffer_entries", PType::Int, (int64_t)64, "lines", "pm_dimm: on-DIMM combining / RMW buffer per DIMM in media lines (VANS rmw.buffer_entries 64 = 16 KB)", 0, 4096),
                 "MemCtrlCfg::dimm.buf_entries", "", [](K &m, const Config &c) { m.dimm.buf_entries = (uint32_t)c.i("nvm.xpbuffer_entries"); })
            .row(config_def("nvm.dimm_lsq_entries", PType::Int, (int64_t)64, "writes", "pm_dimm: write queue in front of each DIMM's buffer; a write is accepted (its WPQ entry frees) once queued here (VANS rmw.lsq_entries 64); 0 = none: accepted when in the buffer", 0, 4096),
                 "MemCtrlCfg::dimm.lsq_entries", "", [](K &m, const Config &c) { m.dimm.lsq_entries = (uint32_t)c.i("nvm.dimm_lsq_entries"); })
            .row(config_def("nvm.xpbuffer_evict", PType::Enum, "serial", "-",
                            "pm_dimm: how a write that needs a buffer entry waits for the evicted line: serial = until "
                            "the evicted line's media write starts, after its read-modify-write read (VANS: one eviction "
                            "at a time); pipelined = until the media starts the eviction's first access (write-back "
                            "queued; persim's variant, a sensitivity)", -1e300, 1e300, {"serial", "pipelined"}),
                 "MemCtrlCfg::dimm.evict_pipelined", "", [](K &m, const Config &c) { m.dimm.evict_pipelined = c.s("nvm.xpbuffer_evict") == "pipelined"; })
            .row(config_def("nvm.ait_entries", PType::Int, (int64_t)4096, "entries", "pm_dimm: address-indirection-table cache per DIMM (VANS ait.buffer_entries 4096 x 4 KB = 16 MB); 0 = none", 0, 1 << 22),
                 "MemCtrlCfg::dimm.ait_entries", "", [](K &m, const Config &c) { m.dimm.ait_entries = (uint32_t)c.i("nvm.ait_entries"); })
            .row(config_def("nvm.ait_ways", PType::Int, (int64_t)16, "ways", "pm_dimm: AIT-cache associativity (persim assumption; VANS does not say)", 1, 64),
                 "MemCtrlCfg::dimm.ait_ways", "", [](K &m, const Config &c) { m.dimm.ait_ways = (uint32_t)c.i("nvm.ait_ways"); })
            .row(config_def("nvm.ait_block_bytes", PType::Int, (int64_t)4096, "B", "pm_dimm: bytes one AIT entry translates (VANS: 4 KB)", 64, 1ll << 30),
                 "MemCtrlCfg::dimm.ait_block_bytes", "", [](K &m, const Config &c) { m.dimm.ait_block_bytes = (uint64_t)c.i("nvm.ait_block_bytes"); })
            .row(config_def("nvm.ait_miss_ns", PType::Float, 60.0, "ns", "pm_dimm: extra latency of a media access whose AIT entry misses (persim assumption: one on-DIMM DRAM access)", 0, 1e6),
                 "MemCtrlCfg::dimm.ait_miss_ps", "", [](K &m, const Config &c) { m.dimm.ait_miss_ps = ns_to_ps(c.f("nvm.ait_miss_ns")); })
            .row(config_def("nvm.media_read_ns", PType::Float, 181.0, "ns", "pm_dimm: media read latency of one media line (calibrated: docs/models/nvm-device.md)", 0, 1e6),
                 "MemCtrlCfg::dimm.media_read_ps", "", [](K &m, const Config &c) { m.dimm.media_read_ps = ns_to_ps(c.f("nvm.media_read_ns")); })
            .row(config_def("nvm.media_write_ns", PType::Float, 500.0, "ns", "pm_dimm: media write latency of one media line (persim assumption; ADR hides it, occupancy is set by the bandwidth)", 0, 1e6),
                 "MemCtrlCfg::dimm.media_write_ps", "", [](K &m, const Config &c) { m.dimm.media_write_ps = ns_to_ps(c.f("nvm.media_write_ns")); })
            .row(config_def("nvm.media_read_bw_gbps", PType::Float, 6.6, "GB/s", "pm_dimm: media read bandwidth per DIMM (Izraelevitz et al.: 39.4 GB/s over 6 DIMMs)", 0.001, 1e6),
                 "MemCtrlCfg::dimm.media_read_gbps", "", [](K &m, const Config &c) { m.dimm.media_read_gbps = c.f("nvm.media_read_bw_gbps"); })
            .row(config_def("nvm.media_write_bw_gbps", PType::Float, 2.3, "GB/s", "pm_dimm: media write bandwidth per DIMM (Izraelevitz et al.: 13.9 GB/s over 6 DIMMs)", 0.001, 1e6),
                 "MemCtrlCfg::dimm.media_write_gbps", "", [](K &m, const Config &c) { m.dimm.media_write_gbps = c.f("nvm.media_write_bw_gbps"); })
            .row(config_def("nvm.wear_block_bytes", PType::Int, (int64_t)4096, "B", "pm_dimm: wear-counting granule (VANS counts writes per 4 KB AIT block)", 64, 1ll << 30),
                 "MemCtrlCfg::dimm.wear_block_bytes", "", [](K &m, const Config &c) { m.dimm.wear_block_bytes = (uint64_t)c.i("nvm.wear_block_bytes"); })
            .row(config_def("nvm.wear_writes", PType::Int, (int64_t)896, "writes", "pm_dimm: media writes of one wear block between migrations (VANS ait.wear_leveling_threshold); 0 = none", 0, 1ll << 31),
                 "MemCtrlCfg::dimm.wear_writes", "", [](K &m, const Config &c) { m.dimm.wear_writes = (uint32_t)c.i("nvm.wear_writes"); })
            .row(config_def("nvm.wear_migrate_ns", PType::Float, 51840.0, "ns", "pm_dimm: media time of one migration (VANS: 256 migration_block_entries x 270 cycles of 0.75 ns)", 0, 1e9),
                 "MemCtrlCfg::dimm.wear_migrate_ps", "", [](K &m, const Config &c) { m.dimm.wear_migrate_ps = ns_to_ps(c.f("nvm.wear_migrate_ns")); })
            .row(config_def("nvm.wear_slots", PType::Int, (int64_t)65536, "blocks", "pm_dimm: wear counters kept per controller (power of two; 0 = no wear counting)", 0, 1 << 26),
                 "MemCtrlCfg::dimm.wear_slots", "", [](K &m, const Config &c) { m.dimm.wear_slots = (uint32_t)c.i("nvm.wear_slots"); })
            .row(config_def("nvm.media_access_pj", PType::Float, 0.0, "pJ", "pm_dimm: energy of one media-line access beyond its bits (persim assumption: none published)", 0, 1e9),
                 "MemCtrlCfg::dimm.access_pj", "", [](K &m, const Config &c) { m.dimm.access_pj = c.f("nvm.media_access_pj"); })
            .row(config_def("nvm.media_read_pj_per_bit", PType::Float, 2.47, "pJ/bit", "pm_dimm: media read energy per bit (PCM array read, Lee et al. ISCA'09; no 3D XPoint figure is published)", 0, 1e6),
                 "MemCtrlCfg::dimm.read_pj_per_bit", "", [](K &m, const Config &c) { m.dimm.read_pj_per_bit = c.f("nvm.media_read_pj_per_bit"); })
            .row(config_def("nvm.media_write_pj_per_bit", PType::Float, 16.82, "pJ/bit", "pm_dimm: media write energy per bit (PCM array write, Lee et al. ISCA'09; no 3D XPoint figure is published)", 0, 1e6),
                 "MemCtrlCfg::dimm.write_pj_per_bit", "", [](K &m, const Config &c) { m.dimm.write_pj_per_bit = c.f("nvm.media_write_pj_per_bit"); });
    return t;
}
PERSIM_CONFIG_TABLE(nvm_table, 310);

const ConfigTable<MemCtrlCfg> &host_table()
{
    using K = MemCtrlCfg;
    static const ConfigTable<K> t =
        ConfigTable<K>("host", "sc_models/mem/mem_ctrl.cpp")
            .row(config_def("host.llc_latency_ns", PType::Float, 20.0, "ns", "host LLC access latency (eADR: durable once here)", 0, 1e6),
                 "MemCtrlCfg::llc_ps", "", [](K &m, const Config &c) { m.llc_ps = ns_to_ps(c.f("host.llc_latency_ns")); });
    return t;
}
PERSIM_CONFIG_TABLE(host_table, 330);

namespace {
[[noreturn]] void unknown_front_end(const std::string &name)
{
    std::string all;
    std::vector<std::string> names;
    for (auto *q : all_write_queues()) {
        all += std::string(all.empty() ? "" : ", ") + q->name;
        names.push_back(q->name);
    }
    throw ConfigError("nvm.front_end: unknown front end '" + name + "'" + did_you_mean(name, names) + " (available: " + all + ")");
}
} // namespace

MemCtrlCfg MemCtrlCfg::dram(const Config &c)
{
    MemCtrlCfg m;
    m.line_bytes = SystemCfg::from(c).line_bytes;
    dram_table().fill(c, m);
    nvm_cfg &n = m.dev;
    n.line_bytes = m.line_bytes;
    n.bank_busy_hit_ps = 0;
    m.front_end = "direct";
    return m;
}

MemCtrlCfg MemCtrlCfg::nvm(const Config &c, const FrontEndTuning *tuning)
{
    const SystemCfg sys = SystemCfg::from(c);
    MemCtrlCfg m;
    m.line_bytes = sys.line_bytes;
    nvm_table().fill(c, m);
    host_table().fill(c, m);
    const uint32_t controllers = m.controllers;
    if (!m.interleave_bytes) m.interleave_bytes = m.line_bytes;
    nvm_cfg &n = m.dev;
    const uint32_t ch = n.channels;
    n.channels = ch / controllers ? ch / controllers : 1;
    n.line_bytes = m.line_bytes;
    n.read_gbps /= controllers;
    n.write_gbps /= controllers;
    m.dimm.dimms = m.dimm.dimms / controllers ? m.dimm.dimms / controllers : 1;
    // The configured front end must exist even when the model runs its own (issue 27 item 12: any
    // string was accepted, and recorded in config.json, under a model that replaces it).
    if (!find_write_queue(m.front_end)) unknown_front_end(m.front_end);
    if (tuning && !tuning->front_end().empty()) m.front_end = tuning->front_end();
    m.tuning = tuning;
    if (m.front_end == "adr_wpq" && m.wpq_entries == 0) m.front_end = "direct";
    m.pm = true;
    m.persistent = true;
    m.eadr = sys.eadr && sys.pm_far;
    if (sys.pm_in_dram) {
        // DRAM-only baseline: the persistent region's channels hold DRAM (DRAM timing, no WPQ).
        const nvm_cfg d = dram(c).dev;
        n.read_latency_ps = d.read_latency_ps;
        n.write_latency_ps = d.write_latency_ps;
        n.row_hit_latency_ps = d.row_hit_latency_ps;
        n.bank_busy_miss_ps = d.bank_busy_miss_ps;
        n.bank_busy_hit_ps = d.bank_busy_hit_ps;
        m.front_end = "direct";
        m.persistent = false;
        m.device = "bank";
    }
    return m;
}

// ---- the controller ---------------------------------------------------------------------------

MemCtrl::MemCtrl(sc_module_name n, const Config &c, const MemCtrlCfg &cfg, mem_image *backing, uint32_t index,
                 uint32_t peers)
    : sc_module(n), tsock("tsock"), cfg_(cfg), img_(backing), index_(index), peers_(peers)
{
    pending_.reserve(256);
    if (cfg.device == "pm_dimm")
        pm_ = pm_mem_.make(cfg.dimm, pm_dimm_bytes, pm_dimm_init,
                           std::string(name()) + ": invalid pm_dimm device configuration (nvm.dimms, nvm.media_line_bytes "
                           "64..512 power of two, nvm.dimm_interleave_bytes a multiple of it, nvm.ait_entries a "
                           "multiple of nvm.ait_ways <= 64, nvm.ait_block_bytes, nvm.wear_slots a power of two)");
    else
        dev_ = core_mem_.make(cfg.dev, nvm_bytes, nvm_init, std::string(name()) + ": invalid memory timing configuration");
    const WriteQueueKind *k = find_write_queue(cfg.front_end);
    if (!k) unknown_front_end(cfg.front_end);
    fe_ = k->make(c, *this);
    tsock.register_b_transport(this, &MemCtrl::b_transport);
    SC_METHOD(event_method);
    sensitive << ev_;
    dont_initialize();
}

MemCtrl::~MemCtrl() = default;

uint64_t MemCtrl::device_write(uint64_t t, uint64_t addr, uint32_t bytes)
{
    return pm_ ? pm_dimm_write(pm_, t, device_addr(addr), bytes) : nvm_write(dev_, t, device_addr(addr), bytes);
}

uint64_t MemCtrl::device_read(uint64_t t, uint64_t addr, uint32_t bytes)
{
    return pm_ ? pm_dimm_read(pm_, t, device_addr(addr), bytes) : nvm_read(dev_, t, device_addr(addr), bytes);
}

uint64_t MemCtrl::device_addr(uint64_t addr) const
{
    // Addresses are interleaved across the peers every interleave_bytes: remove the controller
    // bits so the device's channels and banks see this controller's addresses contiguously
    // (otherwise with line interleaving controller 0 would only ever use even channels).
    if (peers_ <= 1) return addr;
    const uint64_t g = cfg_.interleave_bytes;
    return addr / (g * peers_) * g + addr % g;
}

void MemCtrl::durable(uint64_t at, uint64_t arrive, uint64_t addr, const uint8_t *data, const uint64_t mask[2],
                      uint32_t lb, int requester, const uint32_t *writers)
{
    ++st_.persists;
    const uint32_t bytes = sector_bytes(mask, lb);
    st_.durable_bytes += bytes;
    st_.durable_lat_ps += at - arrive;
    if (sink_) sink_->on_durable_ids(at, addr, data, mask, lb, requester, writers);
}

void MemCtrl::b_transport(tlm::tlm_generic_payload &gp, sc_time &delay)
{
    MemExt *e = mem_ext(gp);
    const uint64_t addr = gp.get_address();
    const uint32_t lb = gp.get_data_length();
    uint64_t t = now_ps() + delay.value();
    if (gp.is_read()) {
        if (cfg_.eadr) t += cfg_.llc_ps;      // reads pass the host LLC too
        ++st_.reads;
        st_.read_bytes += lb;
        uint64_t ready;
        if (fe_->read(t, addr, &ready)) ++st_.fe_reads;
        else ready = device_read(t, addr, lb);
        mem_read(img_, addr, gp.get_data_ptr(), lb);
        delay = ps(ready - now_ps());
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    static const uint64_t full[2] = {~0ull, ~0ull};
    const uint64_t *mask = e ? e->mask : full;
    const uint32_t bytes = e ? (e->wire_bytes ? e->wire_bytes : sector_bytes(e->mask, lb)) : lb;
    ++st_.writes;
    st_.write_bytes += bytes;
    const uint64_t id = next_id_++;
    McWrite w{id, addr, bytes, e ? e->requester : -1, e ? e->region : 0};
    // eADR: durable once in the host LLC; the LLC writes back through the queue in the background,
    // which still consumes NVM bandwidth but is no longer on the acknowledgement path.
    const uint64_t at_queue = cfg_.eadr ? t + cfg_.llc_ps : t;
    writing_id_ = id;
    writing_accept_ps_ = writing_ack_ps_ = 0;
    uint64_t ack = fe_->write(at_queue, w);
    writing_id_ = 0;
    if (ack == kAckLater && writing_ack_ps_) ack = writing_ack_ps_;   // acknowledged inside write()
    if (cfg_.eadr) ack = at_queue;
    if (e) mem_write_masked(img_, addr, gp.get_data_ptr(), lb, e->mask);
    else mem_write(img_, addr, gp.get_data_ptr(), lb);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    if (ack != kAckLater) {
        if (e && cfg_.persistent) {
            e->durable_ps = ack;
            durable(ack, t, addr, gp.get_data_ptr(), mask, lb, e->requester, e->writers);
        }
        delay = ps(ack - now_ps());
        return;
    }
    // Acknowledged later (McPort::ack): keep what the durable report and the initiator need.
    if (!e || !e->ack_to)
        throw ConfigError(std::string(name()) + ": front end '" + cfg_.front_end +
                          "' acknowledges writes late, but the initiator of this write cannot take a late "
                          "acknowledgement (MemExt::ack_to)");
    Pending p{t, addr, lb, e->requester, e->ack_to, e->ack_token, {mask[0], mask[1]},
              std::vector<uint8_t>(gp.get_data_ptr(), gp.get_data_ptr() + lb), {}};
    if (e->writers) p.writers.assign(e->writers, e->writers + lb);
    pending_.emplace(id, std::move(p));
    e->ack_later = true;
    e->accept_ps = writing_accept_ps_;
    delay = SC_ZERO_TIME;
}

void MemCtrl::ack(uint64_t id, uint64_t t)
{
    if (id == writing_id_) {
        writing_ack_ps_ = std::max<uint64_t>(t, 1);
        return;
    }
    auto it = pending_.find(id);
    if (it == pending_.end()) return;    // acknowledged at write() already
    Pending p = std::move(it->second);
    pending_.erase(it);
    ++st_.late_acks;
    t = std::max(t, now_ps());
    if (cfg_.persistent) durable(t, p.arrive, p.addr, p.data.data(), p.mask, p.lb, p.requester,
                                 p.writers.empty() ? nullptr : p.writers.data());
    p.to->on_late_ack(p.token, t);
}

void MemCtrl::accept(uint64_t id, uint64_t t)
{
    if (id == writing_id_) {
        writing_accept_ps_ = std::max<uint64_t>(t, 1);
        return;
    }
    auto it = pending_.find(id);
    if (it != pending_.end()) it->second.to->on_late_accept(it->second.token, std::max(t, now_ps()));
}

void MemCtrl::send(uint32_t dst, const McMsg &m, uint64_t t)
{
    if (!links_) throw ConfigError(std::string(name()) + ": front end sends to another controller but has no link");
    links_->send(index_, dst, m, t);
}

void MemCtrl::wake_at(uint64_t t)
{
    const uint64_t now = now_ps();
    evq_.push(Ev{true, McMsg{}}, std::max(t, now));
    ev_.notify(ps(evq_.next_at() - now));
}

void MemCtrl::deliver(uint64_t at, const McMsg &m)
{
    const uint64_t now = now_ps();
    evq_.push(Ev{false, m}, std::max(at, now));
    ev_.notify(ps(evq_.next_at() - now));
}

void MemCtrl::deliver_with_writes(uint64_t at, const McMsg &m)
{
    ++st_.msgs_in;
    fe_->message(std::max(at, now_ps()), m);
}

void MemCtrl::event_method()
{
    const uint64_t t = now_ps();
    evq_.pop_due(t, [&](const Ev &e) {
        if (e.wake) {
            fe_->wake(t);
        } else {
            ++st_.msgs_in;
            fe_->message(t, e.msg);
        }
    });
    if (!evq_.empty()) ev_.notify(ps(evq_.next_at() - t));
}

std::string MemCtrl::describe_stuck() const
{
    std::string d = fe_->describe();
    if (pending_.empty() && d.empty()) return "";
    return "  " + std::string(name()) + ": " + std::to_string(pending_.size()) + " writes not acknowledged" +
           (d.empty() ? "" : "; " + d) + "\n";
}

// The pm_dimm device's figures (cores/pm_dimm.h; docs/models/nvm-device.md).
void MemCtrl::report_pm_dimm(StatsWriter &w, const std::string &g, uint64_t sim_ps) const
{
    const pm_dimm_stats *s = pm_dimm_get_stats(pm_);
    const pm_dimm_cfg *c = pm_dimm_config(pm_);
    const double lb = c->media_line_bytes;
    const double span = (double)sim_ps * c->dimms;
    w.add(g, "dimm_buf_read_hits", s->buf_read_hits, "reads", "reads served by the on-DIMM buffer (XPBuffer)");
    w.add(g, "dimm_buf_write_hits", s->buf_write_hits, "writes", "writes combined into a line already in the on-DIMM buffer");
    w.add(g, "dimm_buf_evictions", s->buf_evictions, "lines", "lines evicted from the on-DIMM buffers");
    w.add(g, "dimm_lsq_full_waits", s->lsq_full_waits, "writes", "writes that waited for a slot in a DIMM's write queue (LSQ)");
    w.add(g, "dimm_rmw_reads", s->rmw_reads, "lines", "media reads to complete a partially written line (read-modify-write)");
    w.add(g, "media_reads", s->media_reads, "lines", "media-line reads (buffer misses and read-modify-write)");
    w.add(g, "media_writes", s->media_writes, "lines", "media-line writes");
    w.add(g, "media_write_bytes", s->media_writes * lb, "B", "bytes written to the media");
    w.add(g, "write_amplification", s->write_bytes ? s->media_writes * lb / (double)s->write_bytes : 0, "ratio",
          "media bytes written per byte the controller wrote (lines still dirty in the buffers not counted)");
    w.add(g, "dimm_dirty_lines_at_end", pm_dimm_dirty_lines(pm_), "lines", "dirty lines left in the on-DIMM buffers");
    w.add(g, "ait_hit_rate", s->ait_hits + s->ait_misses ? (double)s->ait_hits / (double)(s->ait_hits + s->ait_misses) : 0,
          "fraction", "media accesses whose address-indirection entry was cached");
    w.add(g, "wear_migrations", s->migrations, "migrations", "wear-levelling migrations");
    w.add(g, "wear_max_block_writes", s->wear_max, "writes", "most media writes to one wear block (nvm.wear_block_bytes)");
    w.add(g, "wear_blocks_written", s->wear_blocks, "blocks", "distinct wear blocks written (counted ones)");
    w.add(g, "wear_untracked_writes", s->wear_untracked, "writes", "media writes of blocks the wear table could not hold");
    w.add(g, "media_energy_uj", s->energy_pj * 1e-6, "uJ", "media energy (accesses, bits read and written)");
    w.add(g, "media_utilization", span > 0 ? (double)s->media_busy_ps / span : 0, "fraction",
          "media busy time over run time, averaged over DIMMs");
    w.add(g, "bus_utilization", span > 0 ? (double)s->bus_busy_ps / span : 0, "fraction",
          "DDR-T channel busy time over run time, averaged over DIMMs");
}

void MemCtrl::report(StatsWriter &w, uint64_t sim_ps) const
{
    const std::string g = name();
    const double sec = sim_ps * 1e-12;
    w.add(g, "reads", st_.reads, "requests", "read requests served");
    w.add(g, "writes", st_.writes, "requests", "write requests served");
    w.add(g, "read_bytes", st_.read_bytes, "B", "bytes read (device or write queue)");
    w.add(g, "write_bytes", st_.write_bytes, "B", "bytes written to the device");
    w.add(g, "read_bw", sec > 0 ? st_.read_bytes / sec / 1e9 : 0, "GB/s", "average read bandwidth over the run");
    w.add(g, "write_bw", sec > 0 ? st_.write_bytes / sec / 1e9 : 0, "GB/s", "average write bandwidth over the run");
    if (pm_) report_pm_dimm(w, g, sim_ps);
    else {
        const nvm_stats *s = nvm_get_stats(dev_);
        const nvm_cfg *c = nvm_config(dev_);
        w.add(g, "row_hits", s->row_hits, "requests", "row-buffer hits");
        w.add(g, "row_misses", s->row_misses, "requests", "row-buffer misses");
        w.add(g, "bus_utilization", sim_ps ? (double)s->bus_busy_ps / ((double)sim_ps * c->channels) : 0, "fraction",
              "data-bus busy time over run time, averaged over channels");
    }
    fe_->report(w, g, sim_ps);
    if (!cfg_.pm) return;
    w.add(g, "persisted_writes", st_.persists, "writes", "writes that reached the persistence domain (ADR WPQ or eADR LLC)");
    w.add(g, "persisted_bytes", st_.durable_bytes, "B", "bytes made durable");
    w.add(g, "avg_persist_latency_ns", st_.persists ? st_.durable_lat_ps / 1000.0 / st_.persists : 0, "ns",
          "average time from arrival at the controller to durability");
    w.add(g, "eadr", cfg_.eadr ? 1 : 0, "bool", "1 if the host LLC is in the persistence domain");
    if (st_.late_acks || st_.msgs_in) {
        w.add(g, "late_acks", st_.late_acks, "writes", "writes acknowledged after the front end's decision (not on arrival)");
        w.add(g, "messages_in", st_.msgs_in, "messages", "messages received from other controllers / requesters");
    }
}

// ---- links between controllers ----------------------------------------------------------------

McLinks::McLinks(sc_module_name n, const MemCtrlCfg &c, const std::vector<MemCtrl *> &ctrls)
    : sc_module(n), ctrls_(ctrls), msg_bytes_(c.link_msg_bytes)
{
    link_cfg lc{};
    lc.latency_ps = c.link_latency_ps;
    lc.gbps = c.link_gbps;
    lc.header_bytes = 0;
    lc.max_payload = 0;
    links_.resize(ctrls.size() * ctrls.size());
    for (auto &l : links_)
        if (link_init(&l, &lc) != 0) throw ConfigError("nvm.link_*: invalid controller link configuration");
    for (auto *m : ctrls) m->set_links(this);
}

void McLinks::send(uint32_t src, uint32_t dst, const McMsg &m, uint64_t t)
{
    const uint32_t n = (uint32_t)ctrls_.size();
    if (src >= n || dst >= n) throw ConfigError("controller link: no controller " + std::to_string(dst));
    const uint64_t at = link_send(&links_[(size_t)src * n + dst], t, msg_bytes_);
    ctrls_[dst]->deliver(at, m);
}

void McLinks::report(StatsWriter &w, uint64_t) const
{
    uint64_t pk = 0, q = 0;
    for (const auto &l : links_) {
        pk += l.st.packets;
        q += l.st.queue_ps;
    }
    w.add(name(), "messages", pk, "messages", "messages sent between memory controllers");
    w.add(name(), "queue_ns", q / 1000.0, "ns", "total time messages waited for a busy link");
}

// ---- address routing --------------------------------------------------------------------------

PmRouter::PmRouter(sc_module_name n, uint32_t targets, uint64_t granule)
    : sc_module(n), tsock("tsock"), granule_(granule ? granule : 1)
{
    for (uint32_t i = 0; i < targets; ++i)
        isocks.push_back(new tlm_utils::simple_initiator_socket<PmRouter>(("isock" + std::to_string(i)).c_str()));
    tsock.register_b_transport(this, &PmRouter::b_transport);
}

PmRouter::~PmRouter()
{
    for (auto *s : isocks) delete s;
}

void PmRouter::b_transport(tlm::tlm_generic_payload &gp, sc_time &delay)
{
    (*isocks[target_of(gp.get_address())])->b_transport(gp, delay);
}

} // namespace persim

namespace persim {

PmControllers::PmControllers(const Config &c, mem_image *backing, const FrontEndTuning *tuning)
{
    const MemCtrlCfg mc = MemCtrlCfg::nvm(c, tuning);
    const uint32_t nc = mc.controllers;
    front_end = mc.front_end;
    const WriteQueueKind *k = find_write_queue(mc.front_end);
    late_acks = k && k->late_acks;
    try {
        router = new PmRouter("pm_router", nc, mc.interleave_bytes);
        for (uint32_t i = 0; i < nc; ++i)
            ctrls.push_back(new MemCtrl(("nvm" + std::to_string(i)).c_str(), c, mc, backing, i, nc));
        for (uint32_t i = 0; i < nc; ++i) router->isocks[i]->bind(ctrls[i]->tsock);
        if (nc > 1) links = new McLinks("nvm_links", mc, ctrls);
    } catch (...) {
        free_all();      // a bad front-end configuration: nothing half-built is left behind
        throw;
    }
}

PmControllers::~PmControllers() { free_all(); }

void PmControllers::free_all()
{
    delete router;
    delete links;
    for (auto *m : ctrls) delete m;
    router = nullptr;
    links = nullptr;
    ctrls.clear();
}

void PmControllers::set_durable_sink(DurableSink *s)
{
    for (auto *m : ctrls) m->set_durable_sink(s);
}

void PmControllers::broadcast(const McMsg &m, uint64_t at)
{
    for (auto *c : ctrls) c->deliver(at, m);
}

void PmControllers::write(uint32_t ctrl, tlm::tlm_generic_payload &gp, sc_core::sc_time &delay)
{
    ctrls.at(ctrl)->tsock.get_base_export()->b_transport(gp, delay);
}

void PmControllers::message(uint32_t ctrl, const McMsg &m) { ctrls.at(ctrl)->deliver_with_writes(now_ps(), m); }

void PmControllers::power_fail(uint64_t t)
{
    for (auto *c : ctrls) c->power_fail(t);
}

bool PmControllers::power_done() const
{
    for (auto *c : ctrls)
        if (!c->power_done()) return false;
    return true;
}

std::string PmControllers::describe_stuck() const
{
    std::string s;
    for (auto *m : ctrls) s += m->describe_stuck();
    return s;
}

void PmControllers::report(StatsWriter &w, uint64_t sim_ps) const
{
    for (auto *m : ctrls) m->report(w, sim_ps);
    if (links) {
        StatsWriter lw;
        links->report(lw, sim_ps);
        if (lw.get(links->name(), "messages") > 0) links->report(w, sim_ps);   // only where a front end uses them
    }
}

} // namespace persim
