// persim configuration: a schema of every key (type, default, unit, description, range), loaded
// from JSON files (comments allowed, nested objects flatten to dotted keys) and `--set k=v`.
// Unknown keys and bad values are errors that name the file and key.
#pragma once
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>
#include <nlohmann/json.hpp>

namespace persim {

struct ConfigError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

enum class PType { Int, Float, Bool, String, Enum };

// Limits of a config file (Config::load_file): a config is a few KB nested two or three levels;
// the limits stop a wrong file (a trace, /dev/zero) or a hostile one before it costs memory.
constexpr size_t kConfigMaxBytes = 16u << 20;   // 16 MiB
constexpr int kConfigMaxDepth = 32;             // nested objects/arrays

struct ParamDef {
    std::string key;
    PType type;
    nlohmann::json def;             // default value
    std::string unit;               // "ns", "GB/s", "cycles", "-", ...
    std::string desc;
    double min = -1e300, max = 1e300;   // numeric range (inclusive)
    std::vector<std::string> choices;   // Enum
};

const std::vector<ParamDef> &config_schema();
const ParamDef *config_find(const std::string &key);

class Config {
public:
    Config();                                   // all defaults
    // Merge a JSON file; throws ConfigError("FILE: ...").
    void load_file(const std::string &path);
    void load_json(const nlohmann::json &j, const std::string &origin);
    // "key=value" from the command line; throws ConfigError("--set key: ...").
    void set_kv(const std::string &kv, const std::string &origin = "--set");
    void set(const std::string &key, const nlohmann::json &v, const std::string &origin);

    int64_t     i(const std::string &key) const;
    double      f(const std::string &key) const;
    bool        b(const std::string &key) const;
    std::string s(const std::string &key) const;

    nlohmann::json resolved() const;            // nested object of every key
    nlohmann::json flat() const;                // dotted keys -> values
    const std::vector<std::string> &sources() const { return sources_; }

private:
    // set() with the value's text as the user wrote it (for messages; --set keeps "1e20").
    void set_text(const std::string &key, const nlohmann::json &v, const std::string &origin, const std::string &text);
    std::map<std::string, nlohmann::json> v_;
    std::vector<std::string> sources_;
    const nlohmann::json &get(const std::string &key, PType t) const;
};

} // namespace persim
