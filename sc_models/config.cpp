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
