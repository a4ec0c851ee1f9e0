#include "config.h"
#include "suggest.h"
#include "config_table.h"

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <filesystem>
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
    // The keys no block owns, which every system and tool shares, read once by SystemCfg::from
    // (system_cfg.cpp): which system to build and its name (system.kind, system.name), where
    // persistent memory sits (system.pm_placement, .eadr, .pm_in_dram, .pm_base: the GPU, the cpu
    // system, the memory controllers and the checkers all use them), the run's controls (sim.*) and
    // the workload size (set by `sweep` and `run` too). Every block's own keys are in its typed table
    // beside the block (config_table.h, docs/architecture.md "Config tables"), listed after these.
    // Defaults are SBRP Table 1 where the paper gives a number, otherwise the SBRP artifact
    // (RTX 2060-like GPGPU-Sim config, see the SBRP artifact notes (docs/papers.md)).
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
        F("workload.scale", 1.0, "x", "multiplies the workload's default size (its small size with --size small) when "
          "workload.size is 0: one key scales every workload of a sweep by the same factor (paper-scale tiers)", 1e-6, 1e9),
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

// Nested objects to dotted keys. The key is built in one string, extended and cut back per level
// (linear memory in the depth; a prefix string per level was quadratic). Depth is bounded by
// load_file's parser (kConfigMaxDepth); load_json checks it for JSON given directly.
void flatten(const json &j, std::string &key, int depth, const std::string &origin,
             std::vector<std::pair<std::string, json>> &out)
{
    if (depth > kConfigMaxDepth)
        throw ConfigError(origin + ": objects nested deeper than " + std::to_string(kConfigMaxDepth) + " levels");
    for (auto it = j.begin(); it != j.end(); ++it) {
        const size_t len = key.size();
        if (len) key += '.';
        key += it.key();
        if (it.value().is_object()) flatten(it.value(), key, depth + 1, origin, out);
        else out.emplace_back(key, it.value());
        key.resize(len);
    }
}
// JSON text parsed with a nesting limit: the parser's callback sees every object and array as it
// opens, and one deeper than kConfigMaxDepth stops the parse (TooDeep) before the document is
// built (a deep document would also overflow the stack of the recursive dump and destructor).
struct TooDeep {};
json parse_limited(const std::string &text, bool ignore_comments)
{
    auto depth_limit = [](int depth, json::parse_event_t ev, json &) {
        if ((ev == json::parse_event_t::object_start || ev == json::parse_event_t::array_start) && depth >= kConfigMaxDepth)
            throw TooDeep{};
        return true;
    };
    return json::parse(text, depth_limit, true, ignore_comments);
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
    set_text(key, val, origin, val.dump());
}

void Config::set_text(const std::string &key, const json &val, const std::string &origin, const std::string &text)
{
    const ParamDef *p = config_find(key);
    if (!p) {
        std::string hint;
        auto dot = key.find('.');
        std::string sect = key.substr(0, dot);
        for (const auto &q : config_schema())
            if (q.key.compare(0, sect.size() + 1, sect + ".") == 0) hint += (hint.empty() ? "" : ", ") + q.key;
        std::vector<std::string> keys;
        for (const auto &q : config_schema()) keys.push_back(q.key);
        throw ConfigError(origin + ": unknown config key '" + key + "'" + did_you_mean(key, keys) +
                          (hint.empty() ? " (see `persim list keys`)" : " (keys in that section: " + hint + ")"));
    }
    json v = val;
    auto bad = [&](const std::string &why) {
        throw ConfigError(origin + ": key '" + key + "': " + why);
    };
    switch (p->type) {
    case PType::Int: {
        auto range = [&] {
            bad("value " + text + " out of range [" + json(p->min).dump() + ", " + json(p->max).dump() + "]");
        };
        if (v.is_number_float()) {
            const double d = v.get<double>();
            if (std::floor(d) != d) bad("expected an integer, got " + text);
            // only a double inside int64's range converts (outside, the cast is undefined)
            if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) range();
            v = (int64_t)d;
        }
        if (!v.is_number_integer()) bad("expected an integer, got " + text);
        if (v.is_number_unsigned() && v.get<uint64_t>() > (uint64_t)INT64_MAX) range();
        if ((double)v.get<int64_t>() < p->min || (double)v.get<int64_t>() > p->max) range();
        break;
    }
    case PType::Float:
        if (!v.is_number()) bad("expected a number, got " + text);
        v = v.get<double>();
        if (!std::isfinite(v.get<double>()) || v.get<double>() < p->min || v.get<double>() > p->max)
            bad("value " + text + " out of range [" + json(p->min).dump() + ", " + json(p->max).dump() + "]");
        break;
    case PType::Bool:
        if (!v.is_boolean()) bad("expected true or false, got " + text);
        break;
    case PType::String:
        if (!v.is_string()) bad("expected a string, got " + text);
        // a JSON file's strings are UTF-8 (the parser checks); a --set value is checked here, or
        // writing config.json and stats.json would fail at the end of the run
        try {
            (void)v.dump();
        } catch (const json::type_error &) {
            bad("value " + v.dump(-1, ' ', false, json::error_handler_t::replace) + " is not valid UTF-8 text");
        }
        break;
    case PType::Enum: {
        if (!v.is_string()) bad("expected a string, got " + text);
        bool ok = false;
        std::string all;
        for (const auto &c : p->choices) { ok |= c == v.get<std::string>(); all += (all.empty() ? "" : "|") + c; }
        if (!ok) bad("expected one of " + all + ", got " + text);
        break;
    }
    }
    v_[key] = v;
}

void Config::load_json(const json &j, const std::string &origin)
{
    if (!j.is_object()) throw ConfigError(origin + ": top level must be a JSON object");
    std::vector<std::pair<std::string, json>> kv;
    std::string key;
    flatten(j, key, 1, origin, kv);
    for (auto &e : kv) {
        // Keys with a component starting with '_' (e.g. "_source", or the "_run" object of a run's
        // config.json) are comments.
        const std::string &k = e.first;
        bool comment = !k.empty() && k[0] == '_';
        for (size_t d = k.find('.'); !comment && d != std::string::npos; d = k.find('.', d + 1))
            comment = d + 1 < k.size() && k[d + 1] == '_';
        if (comment) continue;
        set(k, e.second, origin);
    }
    sources_.push_back(origin);
}

void Config::load_file(const std::string &path)
{
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw ConfigError(path + ": is a directory, not a config file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ConfigError(path + ": cannot open config file: " + std::strerror(errno));
    // At most kConfigMaxBytes + 1 bytes are read (a FIFO or /dev/zero has no size to check first).
    std::string text;
    char buf[65536];
    while (in.read(buf, sizeof buf) || in.gcount() > 0) {
        text.append(buf, (size_t)in.gcount());
        if (text.size() > kConfigMaxBytes)
            throw ConfigError(path + ": config file larger than " + std::to_string(kConfigMaxBytes >> 20) +
                              " MiB (a config is a few KB: is this the right file?)");
    }
    if (in.bad()) throw ConfigError(path + ": cannot read config file: " + std::strerror(errno));
    json j;
    try {
        j = parse_limited(text, /*ignore_comments=*/true);
    } catch (const TooDeep &) {
        throw ConfigError(path + ": objects or arrays nested deeper than " + std::to_string(kConfigMaxDepth) +
                          " levels (a config nests two or three)");
    } catch (const json::parse_error &e) {
        // e.byte is the offset of the error; turn it into a line number.
        size_t line = 1;
        for (size_t i = 0; i < text.size() && i + 1 < e.byte; ++i) line += text[i] == '\n';
        throw ConfigError(path + ":" + std::to_string(line) + ": invalid JSON: " + e.what());
    } catch (const json::exception &e) {
        // a number too large for a double (1e99999): out_of_range.406, without a position
        throw ConfigError(path + ": invalid JSON: " + e.what());
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
            v = parse_limited(val, false);
        } catch (const TooDeep &) {
            throw ConfigError(origin + " " + key + ": value nested deeper than " + std::to_string(kConfigMaxDepth) + " levels");
        } catch (const json::exception &) {
            v = val;     // leaves the type check to set()
        }
        if (p && p->type == PType::Int && v.is_string()) {
            // accept hex (and octal); out of int64's range is an error with the text given
            const std::string &s = v.get_ref<const std::string &>();
            char *end = nullptr;
            errno = 0;
            long long x = std::strtoll(s.c_str(), &end, 0);
            if (end && *end == '\0' && !s.empty()) {
                if (errno == ERANGE)
                    throw ConfigError(origin + " " + key + ": key '" + key + "': value " + val + " out of range [" +
                                      json(p->min).dump() + ", " + json(p->max).dump() + "]");
                v = (int64_t)x;
            }
        }
    }
    set_text(key, v, origin + " " + key, val);
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
