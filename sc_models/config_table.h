// One typed config table per block (docs/architecture.md "Config tables"). A block declares its
// keys once, beside the code that uses them: for each key its type, unit, range (or choices),
// default and description — its schema entry — and the field of the block's typed struct it fills,
// and, for a block with RTL, the Verilog parameter it sets. The table
//   - is the schema: config_schema() is the union of every registered table (PERSIM_CONFIG_TABLE),
//     so `persim list keys`, docs/config.md and the checks of config files come from it;
//   - fills the struct: table.fill(config, &s) reads every key into its field, in row order;
//   - names the RTL parameters: rtl_params(config) gives {Verilog parameter: value} for a config
//     (what configs/rtl_presets.json and synthesis take; tests compare the paper presets with it).
// Nothing past a block's struct reads the raw Config: the block's constructor takes the struct.
//
//     struct FooCfg { uint32_t entries; uint64_t latency_ps; };
//     const ConfigTable<FooCfg> &foo_table() {
//         static const ConfigTable<FooCfg> t = ConfigTable<FooCfg>("foo", "sc_models/mem/foo_fe.cpp")
//             .num("foo.entries", PERSIM_FIELD(FooCfg, entries), 64, "entries", 1, 4096, "queue entries (paper: 64)", "ENTRIES")
//             .ns("foo.latency_ns", PERSIM_FIELD(FooCfg, latency_ps), 10.0, 0, 1e6, "hit latency");
//         return t;
//     }
//     PERSIM_CONFIG_TABLE(foo_table, 500);      // its place in the schema's listing order
#pragma once
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>
#include "config.h"
#include "registry.h"

namespace persim {

// One key of a table: its schema entry, the field it fills and its Verilog parameter (or "").
struct ConfigRow {
    ParamDef def;
    std::string field;        // "FooCfg::entries" (for docs/config.md and newcomers)
    std::string rtl_param;    // "ENTRIES", or "" when the key has no RTL parameter
};

// A schema entry (config.h ParamDef) from its parts.
inline ParamDef config_def(const char *key, PType type, nlohmann::json def, const char *unit, const char *desc,
                           double lo = -1e300, double hi = 1e300, std::vector<std::string> choices = {})
{
    ParamDef p;
    p.key = key;
    p.type = type;
    p.def = std::move(def);
    p.unit = unit;
    p.desc = desc;
    p.min = lo;
    p.max = hi;
    p.choices = std::move(choices);
    return p;
}

class ConfigTableBase {
public:
    ConfigTableBase(std::string block, std::string file) : block_(std::move(block)), file_(std::move(file)) {}
    virtual ~ConfigTableBase() = default;
    const std::string &block() const { return block_; }
    const std::string &file() const { return file_; }
    const std::vector<ConfigRow> &rows() const { return rows_; }
    // {Verilog parameter: value} of this table's keys in `c` (integers; booleans as 0/1).
    std::map<std::string, int64_t> rtl_params(const Config &c) const
    {
        std::map<std::string, int64_t> m;
        for (const ConfigRow &r : rows_) {
            if (r.rtl_param.empty()) continue;
            m[r.rtl_param] = r.def.type == PType::Bool ? (c.b(r.def.key) ? 1 : 0) : c.i(r.def.key);
        }
        return m;
    }

protected:
    std::string block_, file_;
    std::vector<ConfigRow> rows_;
};

template <class S>
class ConfigTable : public ConfigTableBase {
public:
    using Fill = std::function<void(S &, const Config &)>;
    ConfigTable(std::string block, std::string file) : ConfigTableBase(std::move(block), std::move(file)) {}

    // An integer key into an integral field.
    template <class T>
    ConfigTable &&num(const char *key, T S::*field, const char *fname, int64_t def, const char *unit, double lo, double hi,
                      const char *desc, const char *rtl = "") &&
    {
        static_assert(std::is_integral<T>::value, "num(): an integral field");
        const ParamDef p = config_def(key, PType::Int, def, unit, desc, lo, hi);
        const std::string k = key;
        return std::move(*this).row(p, fname, rtl, [k, field](S &s, const Config &c) { s.*field = (T)c.i(k); });
    }
    // A real number into a double field.
    ConfigTable &&real(const char *key, double S::*field, const char *fname, double def, const char *unit, double lo, double hi,
                       const char *desc) &&
    {
        const ParamDef p = config_def(key, PType::Float, def, unit, desc, lo, hi);
        const std::string k = key;
        return std::move(*this).row(p, fname, "", [k, field](S &s, const Config &c) { s.*field = c.f(k); });
    }
    // A time in ns into a picosecond field.
    ConfigTable &&ns(const char *key, uint64_t S::*field, const char *fname, double def, double lo, double hi, const char *desc) &&
    {
        const ParamDef p = config_def(key, PType::Float, def, "ns", desc, lo, hi);
        const std::string k = key;
        return std::move(*this).row(p, fname, "", [k, field](S &s, const Config &c) {
            s.*field = (uint64_t)std::llround(c.f(k) * 1000.0);
        });
    }
    ConfigTable &&flag(const char *key, bool S::*field, const char *fname, bool def, const char *desc, const char *rtl = "") &&
    {
        const ParamDef p = config_def(key, PType::Bool, def, "-", desc);
        const std::string k = key;
        return std::move(*this).row(p, fname, rtl, [k, field](S &s, const Config &c) { s.*field = c.b(k); });
    }
    ConfigTable &&choice(const char *key, std::string S::*field, const char *fname, const char *def, std::vector<std::string> choices,
                         const char *desc) &&
    {
        const ParamDef p = config_def(key, PType::Enum, def, "-", desc, -1e300, 1e300, std::move(choices));
        const std::string k = key;
        return std::move(*this).row(p, fname, "", [k, field](S &s, const Config &c) { s.*field = c.s(k); });
    }
    // Any other key: its schema entry, the field(s) it fills (a name for the docs) and how.
    ConfigTable &&row(ParamDef p, std::string field, std::string rtl, Fill fill) &&
    {
        rows_.push_back(ConfigRow{std::move(p), std::move(field), std::move(rtl)});
        fills_.push_back(std::move(fill));
        return std::move(*this);
    }

    // Every key of the table from `c` into `s`, in row order.
    void fill(const Config &c, S &s) const
    {
        for (const Fill &f : fills_) f(s, c);
    }

private:
    std::vector<Fill> fills_;
};

// A field and its name for a table row: PERSIM_FIELD(CpuCfg, width) = &CpuCfg::width, "CpuCfg::width".
#define PERSIM_FIELD(S, f) &S::f, #S "::" #f

// Registers the table a function returns in the schema at listing position `order`.
struct ConfigTableEntry {
    const ConfigTableBase &(*table)();
};
#define PERSIM_CONFIG_TABLE(fn, order)                                                                        \
    namespace {                                                                                               \
    const ::persim::ConfigTableEntry persim_cfgtab_##fn{[]() -> const ::persim::ConfigTableBase & { return fn(); }}; \
    }                                                                                                         \
    PERSIM_REGISTER(::persim::ConfigTableEntry, #fn, persim_cfgtab_##fn, order)

} // namespace persim
