#include "config.h"
#include "config_table.h"

#include <cmath>
#include <fstream>
#include <sstream>

namespace persim {
using nlohmann::json;

namespace {
ParamDef I(const char *k, int64_t d, const char *u, const char *desc, double lo, double hi)
{ return config_def(k, PType::Int, d, u, desc, lo, hi); }
ParamDef F(const char *k, double d, const char *u, const char *desc, double lo, double hi)
{ return config_def(k, PType::Float, d, u, desc, lo, hi); }
ParamDef B(const char *k, bool d, const char *desc)
{ return config_def(k, PType::Bool, d, "-", desc); }
ParamDef S(const char *k, const char *d, const char *desc)
{ return config_def(k, PType::String, d, "-", desc); }
ParamDef E(const char *k, const char *d, std::vector<std::string> c, const char *desc)
{ return config_def(k, PType::Enum, d, "-", desc, -1e300, 1e300, std::move(c)); }

std::vector<ParamDef> make_schema()
{
    // Defaults are SBRP Table 1 where the paper gives a number, otherwise the SBRP artifact
    // (RTX 2060-like GPGPU-Sim config, see ../shared/papers/sbrp-artifact-notes.md).
    return {
        S("system.name", "gpu", "free-form name of this configuration (copied to results)"),
        S("system.kind", "gpu", "which system to build (each kind registers itself: PERSIM_REGISTER, sc_models/registry.h; `persim list systems`): gpu, cpu"),
        E("system.pm_placement", "far", {"near", "far"},
          "where NVM sits: on the GPU's memory controllers (near) or behind PCIe on the host (far)"),
        B("system.eadr", false, "PM-far only: host LLC is in the persistence domain (durable on reaching it)"),
        B("system.pm_in_dram", false,
          "place the persistent region in DRAM: its controller and channels get DRAM timing (dram.latency_ns, "
          "no WPQ), its lines are cached like volatile data, nothing is persisted, and NVW-FIFO persist "
          "barriers do no persist work (DRAM-only baseline of the scoped-barriers paper, Figure 5)"),
        I("system.pm_base", (int64_t)0x10000000000ll, "B", "first address of persistent memory; lower addresses are volatile", 0, 9.2e18),
        I("sim.seed", 1, "-", "seed for workload inputs", 0, 9.2e18),
        F("sim.max_time_ms", 50.0, "ms", "simulated-time limit; a run still going then is reported as stuck", 0.001, 1e6),
        I("sim.progress_ms", 2000, "ms", "host time between progress lines on stderr (0 = never)", 0, 1e9),
        I("workload.size", 0, "-", "workload size knob (0 = the workload's default; see `persim list`)", 0, 9.2e18),
        I("workload.btree_wgs_est", 0, "workgroups",
          "btree-wg, btree-wg-log, btree-wg-wi-bug: Algorithm 2's n_wgs_est (scoped-barriers paper, section 5.1, "
          "lines 2-5), which sets the depth d of the workgroup-scope phase: the shallowest tree level with at least "
          "this many nodes, one workgroup per node there (0 = the paper's rule: inserted keys / 256)", 0, 4294967295.0),
        I("gpu.num_sms", 30, "SMs", "streaming multiprocessors", 1, 256),
        F("gpu.clock_mhz", 1365.0, "MHz", "SM core clock", 1, 10000),
        I("gpu.max_warps_per_sm", 32, "warps", "resident warps per SM (width of the PB warp masks, <= 64)", 1, 64),
        I("gpu.max_threads_per_block", 1024, "threads", "largest thread block", 32, 2048),
        I("gpu.max_blocks_per_sm", 32, "blocks", "resident thread blocks per SM", 1, 64),
        I("gpu.warp_schedulers", 4, "-", "warp schedulers per SM, each issuing one instruction per cycle", 1, 8),
        F("gpu.kernel_launch_ns", 0.0, "ns", "gap between the end of one kernel and the start of the next", 0, 1e9),
        I("l1.size_kb", 64, "KiB", "L1 data cache per SM", 1, 1024),
        I("l1.line_bytes", 128, "B", "cache line size (L1 and L2)", 32, 128),
        I("l1.assoc", 0, "ways", "L1 associativity (0 = fully associative, as the SBRP artifact)", 0, 4096),
        I("l1.hit_latency_cycles", 20, "cycles", "L1 hit latency", 1, 1000),
        I("l2.size_kb", 3072, "KiB", "shared L2 cache", 64, 65536),
        I("l2.assoc", 16, "ways", "L2 associativity", 1, 64),
        I("l2.banks", 24, "banks", "L2 slices (address-interleaved by line)", 1, 256),
        I("l2.hit_latency_cycles", 160, "cycles", "L2 access latency (artifact: ROP latency 160)", 1, 10000),
        I("l2.bank_busy_cycles", 2, "cycles", "cycles a bank is occupied by one access (bank throughput)", 1, 1000),
        I("icnt.latency_cycles", 8, "cycles", "crossbar traversal latency, each direction", 0, 1000),
        I("icnt.flit_bytes", 40, "B", "crossbar flit size; a port moves one flit per cycle (artifact: 40 B)", 4, 1024),
        I("icnt.header_bytes", 8, "B", "request/ack header bytes", 0, 256),
        F("dram.bw_gbps", 336.0, "GB/s", "GDDR bandwidth (Table 1)", 0.001, 1e6),
        F("dram.latency_ns", 100.0, "ns", "GDDR access latency (Table 1)", 0, 1e6),
        I("dram.channels", 12, "-", "GDDR channels", 1, 256),
        I("dram.banks", 16, "-", "banks per channel", 1, 256),
        I("dram.row_bytes", 2048, "B", "row-buffer size", 64, 1 << 20),
        F("dram.row_hit_latency_ns", 70.0, "ns", "latency of a row-buffer hit", 0, 1e6),
        F("dram.bank_busy_ns", 30.0, "ns", "bank occupancy of a row miss (precharge + activate)", 0, 1e6),
        F("nvm.read_bw_gbps", 84.0, "GB/s", "NVM read bandwidth (Table 1)", 0.001, 1e6),
        F("nvm.write_bw_gbps", 42.0, "GB/s", "NVM write bandwidth (Table 1)", 0.001, 1e6),
        F("nvm.read_latency_ns", 300.0, "ns", "NVM read latency (Table 1)", 0, 1e6),
        F("nvm.write_latency_ns", 300.0, "ns", "NVM write latency (Table 1)", 0, 1e6),
        F("nvm.row_hit_latency_ns", 300.0, "ns", "NVM latency when the access hits an open buffer row", 0, 1e6),
        F("nvm.bank_busy_ns", 0.0, "ns", "bank occupancy per access beyond the bus transfer", 0, 1e6),
        I("nvm.controllers", 1, "-", "NVM memory controllers (address-interleaved, nvm.interleave_bytes)", 1, 64),
        I("nvm.interleave_bytes", 0, "B",
          "address interleaving granule across NVM controllers (0 = one cache line, l1.line_bytes)", 0, 1ll << 40),
        S("nvm.front_end", "adr_wpq",
          "write-queue front end of each NVM controller (sc_models/mem/write_queue.h): adr_wpq (ADR "
          "write-pending queue, durable once accepted; nvm.wpq_entries = 0 means direct), direct (no queue: "
          "durable when the device write completes), wpq_gate (LightWSP region-gated WPQ), broi (BROI controller: "
          "BLP-aware barrier epoch scheduling, durable when the device write completes)"),
        F("nvm.link_latency_ns", 10.0, "ns", "latency of the link between two memory controllers (boundary / flush ACKs)", 0, 1e6),
        F("nvm.link_bw_gbps", 16.0, "GB/s", "bandwidth of each controller-to-controller link (0 = infinite)", 0, 1e6),
        I("nvm.link_msg_bytes", 8, "B", "size of one controller-to-controller message", 1, 4096),
        I("nvm.channels", 12, "-", "NVM channels across all controllers", 1, 256),
        I("nvm.banks", 16, "-", "banks per channel", 1, 256),
        I("nvm.row_bytes", 256, "B", "internal buffer row size", 64, 1 << 20),
        E("nvm.bank_mapping", "stride", {"stride", "line"},
          "NVM bank mapping: stride = consecutive row-sized groups in consecutive banks (BROI IV-D: row locality and "
          "bank-level parallelism); line = consecutive lines in consecutive banks (plain interleaving, for comparison)"),
        I("nvm.wpq_entries", 64, "entries",
          "ADR write-pending queue per controller (durable once accepted); 0 = no WPQ: a write is "
          "durable when the device write completes", 0, 65536),
        F("nvm.wpq_hit_latency_ns", 10.0, "ns", "read served from the write-pending queue", 0, 1e6),
        F("pcie.bw_gbps", 28.0, "GB/s", "PCIe bandwidth per direction (Table 1, PCIe 4.0 x16)", 0.001, 1e6),
        F("pcie.latency_ns", 300.0, "ns", "PCIe one-way latency (Table 1)", 0, 1e6),
        I("pcie.header_bytes", 24, "B", "TLP header + framing bytes per packet", 0, 256),
        I("pcie.max_payload", 256, "B", "TLP max payload size", 0, 4096),
        F("host.llc_latency_ns", 20.0, "ns", "host LLC access latency (eADR: durable once here)", 0, 1e6),
        E("persist.flush_policy", "window", {"eager", "lazy", "window"},
          "SBRP PB flush policy (section 6.2)"),
        I("persist.window", 6, "lines", "max flushed, unacknowledged persists per SM under the window policy (Table 1)", 1, 1024),
        F("persist.pb_coverage_pct", 50.0, "%", "PB entries as a percentage of L1 lines (Table 1 text: 50%)", 0.1, 100),
        I("persist.pb_entries", 0, "entries", "PB entries; 0 = derived from persist.pb_coverage_pct", 0, 65534),
        I("persist.nvw_l1_entries", 16, "entries",
          "nvwfifo: NVW-FIFO entries beside each L1 (scoped-barriers paper Table 2: 16)", 1, 65535),
        I("persist.nvw_l2_entries", 64, "entries",
          "nvwfifo: NVW-FIFO entries beside the L2 (scoped-barriers paper Table 2: 64)", 1, 65535),
        B("persist.nvw_l2_pipelined", false,
          "nvwfifo: the L2 keeps writing back NVW-FIFO entries behind a p_flush marker while the marker waits "
          "for the acknowledgements of the write-backs before it (false: the marker blocks the FIFO head, "
          "section 6.1 step 5 as written)"),
        I("persist.nvw_l2_markers", 0, "markers",
          "nvwfifo: p_flush markers that may wait for their acknowledgements at once in the L2 NVW-FIFO. With "
          "persist.nvw_l2_pipelined=false (section 6.1 as written: the marker at the head blocks the FIFO) only 0 or 1; "
          "with persist.nvw_l2_pipelined=true, N = 1..65534 markers wait aside while the entries behind them keep "
          "draining (0 = unbounded, i.e. 65534, the default)", 0, 65534),
        // ---- two-data-path models (sc_models/gpu/persist/data_path.h, agpm.cpp, bucl.cpp; docs/models/agpm.md) ----
        I("persist.agpm.buf_entries", 1024, "entries", "agpm: entries of each AGPM buffer (AGPM paper IV-C: 1024)", 2, 1 << 20),
        I("persist.agpm.buf_ways", 2, "ways", "agpm: AGPM buffer ways, half log ways and half all ways, even (IV-B/IV-C: 2)", 2, 64),
        I("persist.agpm.block_bytes", 128, "B", "agpm: AGPM buffer block (tag) size, a power of two (IV-B: aligned 128-byte block)", 4, 4096),
        I("persist.agpm.byte_ctr_bits", 5, "bits", "agpm: width of each saturating per-byte counter (IV-C: 5-bit)", 1, 8),
        I("persist.agpm.blk_ctr_bits", 5, "bits", "agpm: width of the saturating block counter (IV-C: 130 5-bit counters)", 1, 32),
        I("persist.agpm.resv_entries", 1024, "entries",
          "agpm: reservation-buffer entries per AGPM buffer (IV-B; size not given by the paper: persim default = buffer entries)", 0, 1 << 20),
        I("persist.agpm.thr_init", 10000, "log updates", "agpm: initial log-write threshold of a period (IV-A: 10000)", 1, 1000000000),
        I("persist.agpm.thr_min", 100, "log updates", "agpm: lower clamp of the adapted threshold (not in the paper: persim)", 1, 1000000000),
        I("persist.agpm.thr_max", 1000000000, "log updates", "agpm: upper clamp of the adapted threshold (not in the paper: persim)", 1, 1000000000),
        I("persist.agpm.step_pct", 10, "%", "agpm: threshold adaptation step per period (IV-A: +/-10%)", 0, 100),
        I("persist.agpm.min_log", 100, "log updates", "agpm: reason e below this many log updates in a period (section III: 100)", 0, 1000000000),
        F("persist.agpm.ratio", 0.25, "fraction", "agpm: reason b/d split of the L1 log/all locality ratio (Table III: 0.25)", 0, 1),
        E("persist.agpm.initial_path", "nt", {"nt", "t"}, "agpm: log-write path before the first period ends (not in the paper: NT, section I)"),
        E("persist.agpm.coded_path", "t", {"t", "nt"},
          "agpm: the path the program coded its log stores for: t = store + clwb (the paper's programs: Lin et al.'s "
          "CTA-level undo logging persists the log with a clwb and a fence, sections II-A/Figure 1, V-A), nt = "
          "non-temporal stores; a log store coded for NT sent over T gets an added clwb-like write-back, one coded for "
          "T sent over NT has its clwb dropped (IV-B)"),
        I("persist.agpm.small_periods", 4, "periods",
          "agpm: small-kernel rule (IV-A: a kernel with fewer log updates than the threshold starts with \"a smaller "
          "value\", not given): a launch with fewer than persist.agpm.thr_init log updates per SM gets the threshold "
          "max(persist.agpm.min_log, ceil(its log updates per SM / this)) (persim's rule and value; 0 = off)", 0, 1000000),
        I("persist.bucl.coalesce_lines", 1, "lines",
          "bucl: a log write whose warp op touches more lines than this is un-coalesced and bypasses the caches "
          "(threshold not given by the AGPM paper: persim, 1 = anything not fully coalesced)", 1, 64),
        B("persist.promote_block_scope", false,
          "run block-scope acquires/releases as device-scope ones (SBRP Figure 7: speedup without scopes)"),
    };
}

std::string type_name(PType t)
{
    switch (t) {
    case PType::Int: return "integer";
    case PType::Float: return "number";
    case PType::Bool: return "boolean";
    case PType::String: return "string";
    case PType::Enum: return "one of";
    }
    return "?";
}

void flatten(const json &j, const std::string &prefix, std::vector<std::pair<std::string, json>> &out)
{
    for (auto it = j.begin(); it != j.end(); ++it) {
        std::string k = prefix.empty() ? it.key() : prefix + "." + it.key();
        if (it.value().is_object()) flatten(it.value(), k, out);
        else out.emplace_back(k, it.value());
    }
}
} // namespace

// The keys above, then every block's typed table (config_table.h: PERSIM_CONFIG_TABLE), in their
// listing order.
std::vector<ParamDef> schema_with_tables()
{
    std::vector<ParamDef> s = make_schema();
    for (const ConfigTableEntry *t : Registry<ConfigTableEntry>::all())
        for (const ConfigRow &r : t->table().rows()) s.push_back(r.def);
    return s;
}

const std::vector<ParamDef> &config_schema()
{
    static const std::vector<ParamDef> s = schema_with_tables();
    return s;
}

const ParamDef *config_find(const std::string &key)
{
    for (const auto &p : config_schema())
        if (p.key == key) return &p;
    return nullptr;
}

Config::Config()
{
    for (const auto &p : config_schema()) v_[p.key] = p.def;
}

void Config::set(const std::string &key, const json &val, const std::string &origin)
{
    const ParamDef *p = config_find(key);
    if (!p) {
        std::string hint;
        auto dot = key.find('.');
        std::string sect = key.substr(0, dot);
        for (const auto &q : config_schema())
            if (q.key.compare(0, sect.size() + 1, sect + ".") == 0) hint += (hint.empty() ? "" : ", ") + q.key;
        throw ConfigError(origin + ": unknown config key '" + key + "'" +
                          (hint.empty() ? " (see `persim list --keys`)" : " (keys in that section: " + hint + ")"));
    }
    json v = val;
    auto bad = [&](const std::string &why) {
        throw ConfigError(origin + ": key '" + key + "': " + why);
    };
    switch (p->type) {
    case PType::Int:
        if (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>()) v = (int64_t)v.get<double>();
        if (!v.is_number_integer()) bad("expected an integer, got " + val.dump());
        if ((double)v.get<int64_t>() < p->min || (double)v.get<int64_t>() > p->max)
            bad("value " + v.dump() + " out of range [" + json(p->min).dump() + ", " + json(p->max).dump() + "]");
        break;
    case PType::Float:
        if (!v.is_number()) bad("expected a number, got " + val.dump());
        v = v.get<double>();
        if (!std::isfinite(v.get<double>()) || v.get<double>() < p->min || v.get<double>() > p->max)
            bad("value " + v.dump() + " out of range [" + json(p->min).dump() + ", " + json(p->max).dump() + "]");
        break;
    case PType::Bool:
        if (!v.is_boolean()) bad("expected true or false, got " + val.dump());
        break;
    case PType::String:
        if (!v.is_string()) bad("expected a string, got " + val.dump());
        break;
    case PType::Enum: {
        if (!v.is_string()) bad("expected a string, got " + val.dump());
        bool ok = false;
        std::string all;
        for (const auto &c : p->choices) { ok |= c == v.get<std::string>(); all += (all.empty() ? "" : "|") + c; }
        if (!ok) bad("expected one of " + all + ", got " + val.dump());
        break;
    }
    }
    v_[key] = v;
}

void Config::load_json(const json &j, const std::string &origin)
{
    if (!j.is_object()) throw ConfigError(origin + ": top level must be a JSON object");
    std::vector<std::pair<std::string, json>> kv;
    flatten(j, "", kv);
    for (auto &e : kv) {
        // Keys starting with '_' (e.g. "_source") are comments.
        auto last = e.first.rfind('.');
        std::string leaf = last == std::string::npos ? e.first : e.first.substr(last + 1);
        if (!leaf.empty() && leaf[0] == '_') continue;
        set(e.first, e.second, origin);
    }
    sources_.push_back(origin);
}

void Config::load_file(const std::string &path)
{
    std::ifstream in(path);
    if (!in) throw ConfigError(path + ": cannot open config file");
    std::stringstream ss;
    ss << in.rdbuf();
    json j;
    try {
        j = json::parse(ss.str(), nullptr, true, /*ignore_comments=*/true);
    } catch (const json::parse_error &e) {
        // e.byte is the offset of the error; turn it into a line number.
        std::string text = ss.str();
        size_t line = 1;
        for (size_t i = 0; i < text.size() && i + 1 < e.byte; ++i) line += text[i] == '\n';
        throw ConfigError(path + ":" + std::to_string(line) + ": invalid JSON: " + e.what());
    }
    load_json(j, path);
}

void Config::set_kv(const std::string &kv, const std::string &origin)
{
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0)
        throw ConfigError(origin + " '" + kv + "': expected key=value");
    std::string key = kv.substr(0, eq), val = kv.substr(eq + 1);
    const ParamDef *p = config_find(key);
    json v;
    if (p && (p->type == PType::String || p->type == PType::Enum)) {
        v = val;
    } else {
        try {
            v = json::parse(val);
        } catch (...) {
            v = val;     // leaves the type check to set()
        }
        if (p && p->type == PType::Int && v.is_string()) {
            // accept hex
            const std::string &s = v.get_ref<const std::string &>();
            char *end = nullptr;
            long long x = std::strtoll(s.c_str(), &end, 0);
            if (end && *end == '\0' && !s.empty()) v = (int64_t)x;
        }
    }
    set(key, v, origin + " " + key);
}

const json &Config::get(const std::string &key, PType t) const
{
    auto it = v_.find(key);
    const ParamDef *p = config_find(key);
    if (it == v_.end() || !p || (p->type != t && !(t == PType::String && p->type == PType::Enum)))
        throw ConfigError("internal: config key '" + key + "' read as " + type_name(t));
    return it->second;
}

int64_t Config::i(const std::string &key) const { return get(key, PType::Int).get<int64_t>(); }
double Config::f(const std::string &key) const { return get(key, PType::Float).get<double>(); }
bool Config::b(const std::string &key) const { return get(key, PType::Bool).get<bool>(); }
std::string Config::s(const std::string &key) const { return get(key, PType::String).get<std::string>(); }

json Config::flat() const
{
    json j = json::object();
    for (auto &e : v_) j[e.first] = e.second;
    return j;
}

json Config::resolved() const
{
    json j = json::object();
    for (auto &e : v_) {
        json *node = &j;
        std::string k = e.first;
        size_t pos;
        while ((pos = k.find('.')) != std::string::npos) {
            node = &(*node)[k.substr(0, pos)];
            k = k.substr(pos + 1);
        }
        (*node)[k] = e.second;
    }
    return j;
}

} // namespace persim
