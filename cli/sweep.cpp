// persim sweep: see sweep.h and docs/sweeps.md.
#include "sweep.h"
#include "system.h"

#include <fcntl.h>
#include <signal.h>
#include <csignal>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>
#include <nlohmann/json.hpp>
#include "system_cfg.h"
#include "config.h"
#include "out_file.h"
#include "proc.h"
#include "args.h"
#include "sim.h"
#include "suggest.h"
extern "C" {
#include "workload.h"
}


namespace persim {
namespace {
namespace fs = std::filesystem;
using json = nlohmann::json;
using ojson = nlohmann::ordered_json;   // keeps the spec's key order (CSV column order)

const char *kSweepUsage =
    "usage: persim sweep SPEC.json [-j N] [--force] [--out DIR] [--dry-run] [--emit-slurm]\n"
    "\n"
    "Runs every point of the spec's cross product (configs x models x workloads x sizes x seeds x\n"
    "`set` values, minus `exclude`) as a separate `persim run`, N at a time, and writes\n"
    "OUT/sweep.csv (format: docs/sweeps.md). Points whose results already exist in OUT/runs/ are\n"
    "skipped (a point is done when its run finished ok with the configuration the spec asks for,\n"
    "after the persim binary was built).\n"
    "\n"
    "  -j N, --jobs N   runs at a time (default: the number of cores)\n"
    "  --force          rerun points whose results exist\n"
    "  --out DIR        write results to DIR instead of the spec's \"out\"\n"
    "  --dry-run        print the command line of every point still to run (one per line) and exit;\n"
    "                   e.g. pipe into GNU parallel --sshlogin (README \"Sweeps\")\n"
    "  --emit-slurm     write OUT/commands.txt and OUT/sweep.slurm (a Slurm job array over the\n"
    "                   points still to run) and exit; afterwards `persim sweep SPEC` collects the CSV\n"
    "\n"
    "exit status: 0 every point ok, 1 bad spec or option, 5 one or more points failed\n";

constexpr int EXIT_POINTS_FAILED = 5;

struct Choice {
    std::string label;                       // CSV value, exclude matching, point id
    std::vector<std::string> args;           // arguments of the run command
    std::vector<std::string> files;          // configs dimension: files merged in order
    std::vector<std::string> sets;           // "key=value" as passed to --set
    ojson raw;                               // the spec's value (exclude compares numbers numerically)
};

struct Dim {
    std::string name;      // "config", "model", "workload", "size", "seed" or a `set` entry's name
    std::string column;    // sweep CSV column ("" = the run CSV has it already)
    std::string id_prefix; // prefix of this dimension's part of the point id
    std::vector<Choice> choices;
};

struct Spec {
    std::string path, name, out, command = "run";
    std::vector<Dim> dims;
    std::vector<std::string> extra_args;
    std::vector<std::vector<std::pair<std::string, std::vector<ojson>>>> excludes;
};

struct Point {
    std::string id, dir;
    std::vector<const Choice *> ch;          // one per dimension
    std::vector<std::string> argv;           // full command line (argv[0] = persim binary)
    std::string model, workload, size_arg, seed;
    int exit_code = 0;
    bool ran = false;
    bool pending = false;   // to run in this sweep and not finished (an interrupt leaves it out of sweep.csv)
};

Choice simple(const std::string &label, const char *opt)
{
    Choice c;
    c.label = label;
    c.args = {opt, label};
    c.raw = label;
    return c;
}

std::string label_of(const ojson &v)
{
    if (v.is_string()) return v.get<std::string>();
    return v.dump();
}

std::string set_value(const ojson &v)
{
    // What `--set key=VALUE` needs: strings raw, everything else as JSON.
    return v.is_string() ? v.get<std::string>() : v.dump();
}

std::string sanitize(const std::string &s)
{
    std::string o;
    for (char c : s) o += (std::isalnum((unsigned char)c) || std::strchr("._-=+", c)) ? c : '_';
    return o;
}

uint64_t fnv1a(const std::string &s)
{
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    return h;
}

std::string hex8(uint64_t h)
{
    char b[17];
    std::snprintf(b, sizeof b, "%08llx", (unsigned long long)(h & 0xffffffffull));
    return b;
}

std::string fmt_dur(double s)
{
    if (s < 0 || s != s) s = 0;
    long t = (long)(s + 0.5);
    char b[32];
    if (t >= 3600) std::snprintf(b, sizeof b, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else std::snprintf(b, sizeof b, "%ld:%02ld", t / 60, t % 60);
    return b;
}

// ------------------------------------------------------------------------------------------
// Spec parsing and validation. Every error names the spec file and the key.

[[noreturn]] void bad(const Spec &s, const std::string &msg) { throw ConfigError(s.path + ": " + msg); }

std::vector<ojson> list_of(const Spec &s, const ojson &j, const std::string &key)
{
    if (!j.is_array()) bad(s, "'" + key + "' must be a list, got " + j.dump());
    if (j.empty()) bad(s, "empty cross product: '" + key + "' is an empty list");
    return std::vector<ojson>(j.begin(), j.end());
}

// Reads the spec file as JSON (comments allowed); a parse error names the line.
ojson read_spec_json(const std::string &path)
{
    std::ifstream in(path);
    if (!in) throw ConfigError(path + ": cannot open sweep spec");
    std::stringstream ss;
    ss << in.rdbuf();
    // Nesting is bounded (a spec nests four levels): a deep document overflowed the stack of the
    // recursive dump in the error messages (a segfault at 100,000 levels).
    struct TooDeep {};
    auto depth_limit = [](int depth, ojson::parse_event_t ev, ojson &) {
        if ((ev == ojson::parse_event_t::object_start || ev == ojson::parse_event_t::array_start) && depth >= kConfigMaxDepth)
            throw TooDeep{};
        return true;
    };
    try {
        return ojson::parse(ss.str(), depth_limit, true, /*ignore_comments=*/true);
    } catch (const TooDeep &) {
        throw ConfigError(path + ": objects or arrays nested deeper than " + std::to_string(kConfigMaxDepth) + " levels");
    } catch (const ojson::parse_error &e) {
        std::string text = ss.str();
        size_t line = 1;
        for (size_t i = 0; i < text.size() && i + 1 < e.byte; ++i) line += text[i] == '\n';
        throw ConfigError(path + ":" + std::to_string(line) + ": invalid JSON: " + e.what());
    } catch (const ojson::exception &e) {   // 1e99999: out_of_range.406 (found by fuzz/fuzz_sweep.cpp)
        throw ConfigError(path + ": invalid JSON: " + e.what());
    }
}

// No string of the spec holds a control character: values reach command lines (commands.txt,
// --dry-run, sweep.slurm) and file names, where a line break would start a new shell line.
void check_no_control_chars(const Spec &s, const ojson &j, const std::string &key)
{
    auto clean = [](const std::string &v) {
        for (unsigned char c : v)
            if (c < 0x20 || c == 0x7f) return false;
        return true;
    };
    if (j.is_string() && !clean(j.get<std::string>()))
        bad(s, "'" + key + "': " + j.dump() + " holds a line break or another control character (values reach " +
                   "command lines and sweep.slurm, where it would start a new shell line)");
    if (j.is_array())
        for (size_t i = 0; i < j.size(); ++i) check_no_control_chars(s, j[i], key);
    if (j.is_object())
        for (auto it = j.begin(); it != j.end(); ++it) {
            if (!it.key().empty() && it.key()[0] == '_' && it.key() != "_label") continue;   // comments
            if (key.empty() && it.key() == "description") continue;
            const std::string k = key.empty() ? it.key() : key + "." + it.key();
            if (!clean(it.key())) bad(s, "'" + k + "': the key holds a line break or another control character");
            check_no_control_chars(s, it.value(), k);
        }
}

// The top level is an object of known keys ("_..." keys are comments).
void check_top_keys(const Spec &s, const ojson &j)
{
    if (!j.is_object()) bad(s, "top level must be a JSON object");
    static const std::vector<std::string> known = {"name", "description", "out", "configs", "models", "workloads",
                                                   "sizes", "seeds", "set", "exclude", "args", "command"};
    for (auto it = j.begin(); it != j.end(); ++it) {
        if (!it.key().empty() && it.key()[0] == '_') continue;   // comments
        bool ok = false;
        for (const auto &k : known) ok |= k == it.key();
        if (!ok) {
            std::string all;
            for (const auto &k : known) all += (all.empty() ? "" : ", ") + k;
            bad(s, "unknown key '" + it.key() + "' (known: " + all + ")");
        }
    }
}

// The spec's scalar keys: out, name, description, command, args.
void parse_head(Spec &s, const ojson &j)
{
    auto str = [&](const char *k, bool required) -> std::string {
        if (!j.contains(k)) {
            if (required) bad(s, std::string("missing key '") + k + "'");
            return "";
        }
        if (!j[k].is_string() || j[k].get<std::string>().empty())
            bad(s, std::string("'") + k + "' must be a non-empty string, got " + j[k].dump());
        return j[k].get<std::string>();
    };
    s.out = str("out", true);
    s.name = j.contains("name") ? str("name", false) : fs::path(s.path).stem().string();
    if (j.contains("description") && !j["description"].is_string()) bad(s, "'description' must be a string");
    if (j.contains("command")) s.command = str("command", false);
    // the commands that run a point and take the run options (persim list, trace ... would not run it)
    if (s.command != "run" && s.command != "check" && s.command != "crash")
        bad(s, "'command': expected \"run\", \"check\" or \"crash\", got \"" + s.command + "\"" +
                   did_you_mean(s.command, {"run", "check", "crash"}));
    if (j.contains("args")) {
        if (!j["args"].is_array()) bad(s, "'args' must be a list of strings");
        for (const auto &a : j["args"]) {
            if (!a.is_string()) bad(s, "'args' must be a list of strings, got " + a.dump());
            std::string v = a.get<std::string>();
            for (const char *own : {"--out", "-o", "--csv", "--model", "--workload", "--config", "--size", "--seed", "--set"})
                if (v == own) bad(s, "'args': " + v + " is set by the sweep itself (use the spec's keys)");
            s.extra_args.push_back(v);
        }
    }
}

// The configs dimension: each entry a file or a list of files merged in order.
Dim config_dim(const Spec &s, const ojson &j)
{
    Dim cfg{"config", "config_files", "", {}};
    if (j.contains("configs")) {
        for (const auto &e : list_of(s, j["configs"], "configs")) {
            Choice c;
            if (e.is_string()) c.files.push_back(e.get<std::string>());
            else if (e.is_array() && !e.empty()) {
                for (const auto &f : e) {
                    if (!f.is_string()) bad(s, "'configs': expected a file name, got " + f.dump());
                    c.files.push_back(f.get<std::string>());
                }
            } else bad(s, "'configs': each entry must be a file name or a non-empty list of file names, got " + e.dump());
            Config probe;
            for (const auto &f : c.files) {
                try {
                    probe.load_file(f);
                } catch (const ConfigError &e) {
                    bad(s, std::string("'configs': ") + e.what());
                }
                c.args.push_back("--config");
                c.args.push_back(f);
                c.label += (c.label.empty() ? "" : "+") + f;
            }
            cfg.choices.push_back(c);
        }
    } else {
        cfg.choices.push_back(Choice{});   // persim's built-in defaults
    }
    return cfg;
}

// The models dimension (required; every model known).
Dim model_dim(const Spec &s, const ojson &j)
{
    if (!j.contains("models")) bad(s, "missing key 'models' (e.g. [\"epoch\", \"sbrp\"])");
    Dim md{"model", "", "", {}};
    for (const auto &e : list_of(s, j["models"], "models")) {
        if (!e.is_string()) bad(s, "'models': expected a model name, got " + e.dump());
        std::string m = e.get<std::string>();
        try {
            check_model_known(m, "'models': ");
        } catch (const ConfigError &e) {
            bad(s, e.what());
        }
        md.choices.push_back(simple(m, "--model"));
    }
    return md;
}

// The workloads dimension (required; every workload known).
Dim workload_dim(const Spec &s, const ojson &j)
{
    if (!j.contains("workloads")) bad(s, "missing key 'workloads' (see `persim list workloads`)");
    Dim wd{"workload", "", "", {}};
    for (const auto &e : list_of(s, j["workloads"], "workloads")) {
        if (!e.is_string()) bad(s, "'workloads': expected a workload name, got " + e.dump());
        std::string w = e.get<std::string>();
        if (!wl_find(w.c_str())) {
            std::string all;
            for (const persim_workload *const *x = wl_all(); *x; ++x) all += std::string(all.empty() ? "" : ", ") + (*x)->name;
            bad(s, "'workloads': unknown workload '" + w + "' (available: " + all + ")");
        }
        wd.choices.push_back(simple(w, "--workload"));
    }
    return wd;
}

// The sizes dimension ("default" when absent).
Dim size_dim(const Spec &s, const ojson &j)
{
    Dim sz{"size", "size_arg", "", {}};
    if (j.contains("sizes")) {
        for (const auto &e : list_of(s, j["sizes"], "sizes")) {
            std::string v;
            if (e.is_number_unsigned() && e.get<uint64_t>() > 0) v = std::to_string(e.get<uint64_t>());
            else if (e.is_string() && (e == "default" || e == "small")) v = e.get<std::string>();
            else bad(s, "'sizes': expected \"default\", \"small\" or a positive integer, got " + e.dump());
            sz.choices.push_back(simple(v, "--size"));
        }
    } else {
        sz.choices.push_back(simple("default", "--size"));
    }
    return sz;
}

// The seeds dimension (only when given): each seed as --set sim.seed=N.
Dim seed_dim(const Spec &s, const ojson &j)
{
    Dim sd{"seed", "", "seed", {}};
    for (const auto &e : list_of(s, j["seeds"], "seeds")) {
        if (!e.is_number_unsigned()) bad(s, "'seeds': expected a non-negative integer, got " + e.dump());
        std::string v = std::to_string(e.get<uint64_t>());
        // The input seed of every command: `--seed` of `persim crash` picks crash points instead.
        Choice c = simple(v, "--set");
        c.args = {"--set", "sim.seed=" + v};
        sd.choices.push_back(c);
    }
    return sd;
}

// One value of a `set` entry: a single value, or an object of keys set together (with _label).
Choice set_choice(const Spec &s, const std::string &name, bool group, const ojson &v)
{
    Choice c;
    Config probe;
    auto add = [&](const std::string &key, const ojson &val) {
        // Type and range check against the schema (the run applies it with --set).
        probe.set(key, json::parse(val.dump()), s.path + ": 'set'");
        c.sets.push_back(key + "=" + set_value(val));
        c.args.push_back("--set");
        c.args.push_back(c.sets.back());
    };
    if (group) {
        if (v.empty()) bad(s, "'set." + name + "': empty object");
        std::string auto_label;
        for (auto kv = v.begin(); kv != v.end(); ++kv) {
            if (kv.key() == "_label") {
                if (!kv.value().is_string() && !kv.value().is_number())
                    bad(s, "'set." + name + "': _label must be a string or number");
                c.label = label_of(kv.value());
                continue;
            }
            if (!kv.key().empty() && kv.key()[0] == '_') continue;
            if (kv.value().is_object() || kv.value().is_array() || kv.value().is_null())
                bad(s, "'set." + name + "." + kv.key() + "': expected a single value, got " + kv.value().dump());
            add(kv.key(), kv.value());
            auto_label += (auto_label.empty() ? "" : ";") + kv.key() + "=" + set_value(kv.value());
        }
        if (c.sets.empty()) bad(s, "'set." + name + "': an entry sets no key");
        if (c.label.empty()) c.label = auto_label;
    } else {
        if (v.is_array() || v.is_null()) bad(s, "'set." + name + "': expected a value, got " + v.dump());
        add(name, v);
        c.label = set_value(v);
        c.raw = v;
    }
    return c;
}

// The `set` dimensions, one per entry {"config.key": [values]} (after the other dimensions).
void set_dims(Spec &s, const ojson &j)
{
    if (!j["set"].is_object()) bad(s, "'set' must be an object {\"config.key\": [values], ...}");
    for (auto it = j["set"].begin(); it != j["set"].end(); ++it) {
        const std::string name = it.key();
        if (!name.empty() && name[0] == '_') continue;
        for (const auto &d : s.dims)
            if (d.name == name) bad(s, "'set': '" + name + "' clashes with a dimension of the same name");
        auto vals = list_of(s, it.value(), "set." + name);
        bool group = vals[0].is_object();
        for (const auto &v : vals)
            if (v.is_object() != group)
                bad(s, "'set." + name + "': mix of objects and values (a list of objects sets several keys together)");
        std::string last = name.substr(name.rfind('.') == std::string::npos ? 0 : name.rfind('.') + 1);
        Dim d{name, name, group ? name : last, {}};
        if (!group && !config_find(name)) {
            Config probe;
            probe.set(name, json(), s.path + ": 'set'");   // throws "unknown config key" with the section's keys
        }
        for (const auto &v : vals) d.choices.push_back(set_choice(s, name, group, v));
        s.dims.push_back(d);
    }
}

// The exclude rules: objects {"dimension": value or [values]} over known dimensions.
void parse_excludes(Spec &s, const ojson &j)
{
    if (!j["exclude"].is_array()) bad(s, "'exclude' must be a list of objects {\"dimension\": value or [values]}");
    for (const auto &r : j["exclude"]) {
        if (!r.is_object() || r.empty()) bad(s, "'exclude': each entry must be a non-empty object, got " + r.dump());
        std::vector<std::pair<std::string, std::vector<ojson>>> rule;
        for (auto it = r.begin(); it != r.end(); ++it) {
            if (!it.key().empty() && it.key()[0] == '_') continue;
            bool found = false;
            for (const auto &d : s.dims) found |= d.name == it.key();
            if (!found) {
                std::string all;
                for (const auto &d : s.dims) all += (all.empty() ? "" : ", ") + d.name;
                bad(s, "'exclude': unknown dimension '" + it.key() + "' (dimensions: " + all + ")");
            }
            std::vector<ojson> vals;
            if (it.value().is_array())
                for (const auto &v : it.value()) vals.push_back(v);
            else vals.push_back(it.value());
            rule.emplace_back(it.key(), vals);
        }
        s.excludes.push_back(rule);
    }
}

Spec parse_spec(const std::string &path)
{
    Spec s;
    s.path = path;
    const ojson j = read_spec_json(path);
    check_top_keys(s, j);
    check_no_control_chars(s, j, "");
    parse_head(s, j);
    s.dims.push_back(config_dim(s, j));
    s.dims.push_back(model_dim(s, j));
    s.dims.push_back(workload_dim(s, j));
    s.dims.push_back(size_dim(s, j));
    if (j.contains("seeds")) s.dims.push_back(seed_dim(s, j));
    if (j.contains("set")) set_dims(s, j);
    if (j.contains("exclude")) parse_excludes(s, j);
    return s;
}

bool excluded(const Spec &s, const std::vector<const Choice *> &ch)
{
    for (const auto &rule : s.excludes) {
        bool all = true;
        for (const auto &[dim, vals] : rule) {
            size_t k = 0;
            while (s.dims[k].name != dim) ++k;
            bool any = false;
            for (const auto &v : vals)
                any |= (v.is_number() && ch[k]->raw.is_number()) ? v.get<double>() == ch[k]->raw.get<double>()
                                                                  : label_of(v) == ch[k]->label;
            all &= any;
        }
        if (all) return true;
    }
    return false;
}

std::vector<Point> expand(const Spec &s, const std::string &exe)
{
    // Each point is a process: a product beyond 100,000 (before 'exclude') is a mistake, and listing
    // it would take memory without bound (ten lists of ten values: 10^10 points).
    double total = 1;
    for (const auto &d : s.dims) total *= (double)d.choices.size();
    if (total > 1e5)
        bad(s, "the cross product has " + std::to_string((unsigned long long)total) +
                   " points before 'exclude' (at most 100000; split the sweep)");
    std::vector<Point> pts;
    std::vector<size_t> idx(s.dims.size(), 0);
    for (;;) {
        std::vector<const Choice *> ch;
        for (size_t k = 0; k < s.dims.size(); ++k) ch.push_back(&s.dims[k].choices[idx[k]]);
        if (!excluded(s, ch)) {
            Point p;
            p.ch = ch;
            std::string id;
            for (size_t k = 0; k < s.dims.size(); ++k) {
                const Dim &d = s.dims[k];
                std::string part;
                if (d.name == "config") {
                    for (const auto &f : ch[k]->files) part += (part.empty() ? "" : "+") + fs::path(f).stem().string();
                    if (part.empty()) part = "defaults";
                } else {
                    part = d.id_prefix.empty() ? ch[k]->label : d.id_prefix + (d.name == "seed" ? "" : "=") + ch[k]->label;
                }
                id += (id.empty() ? "" : "-") + sanitize(part);
                if (d.name == "model") p.model = ch[k]->label;
                if (d.name == "workload") p.workload = ch[k]->label;
                if (d.name == "size") p.size_arg = ch[k]->label;
                if (d.name == "seed") p.seed = ch[k]->label;
            }
            if (id.size() > 180) {
                std::string full;
                for (size_t k = 0; k < s.dims.size(); ++k) full += s.dims[k].name + "=" + ch[k]->label + "\x1f";
                id = id.substr(0, 160) + "-" + hex8(fnv1a(full));
            }
            p.id = id;
            pts.push_back(p);
        }
        size_t k = s.dims.size();
        while (k > 0) {
            --k;
            if (++idx[k] < s.dims[k].choices.size()) break;
            idx[k] = 0;
            if (k == 0) goto done;
        }
        if (s.dims.empty()) break;
    }
done:
    if (pts.empty()) bad(s, "empty cross product: every point is excluded by 'exclude'");
    // Distinct labels that sanitize to the same id get a hash of their full labels.
    std::map<std::string, int> seen;
    for (const auto &p : pts) ++seen[p.id];
    for (auto &p : pts)
        if (seen[p.id] > 1) {
            std::string full;
            for (size_t k = 0; k < s.dims.size(); ++k) full += s.dims[k].name + "=" + p.ch[k]->label + "\x1f";
            p.id += "-" + hex8(fnv1a(full));
        }
    for (auto &p : pts) {
        p.dir = (fs::path(s.out) / "runs" / p.id).string();
        p.argv = {exe, s.command};
        for (const Choice *c : p.ch) p.argv.insert(p.argv.end(), c->args.begin(), c->args.end());
        p.argv.insert(p.argv.end(), s.extra_args.begin(), s.extra_args.end());
        for (const std::string &a : {std::string("--out"), p.dir, std::string("--csv"), p.dir + "/run.csv",
                                     std::string("--quiet")})
            p.argv.push_back(a);
    }
    return pts;
}

// The configuration of a point's run, as `persim run` builds it (main.cpp build_config).
Config point_config(const Point &p)
{
    Config c;
    for (const Choice *ch : p.ch) {
        for (const auto &f : ch->files) c.load_file(f);
        for (const auto &kv : ch->sets) c.set_kv(kv);
    }
    if (p.size_arg != "small" && p.size_arg != "default") c.set_kv("workload.size=" + p.size_arg, "--size");
    if (!p.seed.empty()) c.set_kv("sim.seed=" + p.seed, "--seed");
    return c;
}

// Every point checked as `persim run` checks its command line and its run before it loads the
// program (--size, the configuration with the point's values and their ranges, the model on the
// configured system, the workload on it), before any point runs: the first problem names the spec
// and the point. (A workload's own limits, found when its program is built, fail that point's run:
// building every program first would take minutes and gigabytes at paper scale.)
void check_points(const Spec &s, const std::vector<Point> &pts)
{
    for (const Point &p : pts) {
        try {
            const std::string e = size_arg_error(p.size_arg);
            if (!e.empty()) throw ConfigError("--size: " + e);
            RunSpec r;
            r.cfg = point_config(p);
            r.model = p.model;
            r.workload = p.workload;
            r.small = p.size_arg == "small";
            check_run(r);
        } catch (const ConfigError &e) {
            bad(s, "point " + p.id + ": " + e.what());
        }
    }
}

// The configuration a point's run resolves to.
json expected_config(const Point &p, uint64_t *size)
{
    const Config c = point_config(p);
    const persim_workload *wl = wl_find(p.workload.c_str());
    *size = SystemCfg::from(c).size_of(wl->default_size, wl->small_size, p.size_arg == "small");
    return c.resolved();
}

json read_json(const std::string &path)
{
    std::ifstream in(path);
    if (!in) return json();
    try {
        return json::parse(in);
    } catch (...) {
        return json();
    }
}

// A point is done when its run finished ok and its recorded configuration is the one the spec
// asks for now (so editing a spec or a config file it names reruns exactly the affected points).
bool point_done(const Point &p, const std::string &exe)
{
    json st = read_json(p.dir + "/stats.json");
    json cf = read_json(p.dir + "/config.json");
    if (!st.is_object() || !cf.is_object() || !fs::exists(p.dir + "/run.csv")) return false;
    if (!st.contains("run") || st["run"].value("status", "") != "ok") return false;
    std::error_code ec;     // results older than the persim binary are stale (the model may have changed)
    auto bin_t = fs::last_write_time(exe, ec);
    if (!ec && fs::last_write_time(p.dir + "/stats.json", ec) < bin_t) return false;
    uint64_t size = 0;
    json want;
    try {
        want = expected_config(p, &size);
    } catch (...) {
        return false;
    }
    json run = cf.contains("_run") ? cf["_run"] : cf.contains("run") ? cf["run"] : json();   // "run": before issue 26
    cf.erase("_run");
    cf.erase("run");
    return cf == want && run.is_object() && run.value("model", "") == p.model &&
           run.value("workload", "") == p.workload && run.value("size", (uint64_t)0) == size;
}

pid_t spawn(const Point &p, std::string &err)
{
    std::error_code ec;
    fs::remove_all(p.dir, ec);              // no stale stats or CSV rows of an interrupted run
    fs::create_directories(p.dir, ec);
    if (ec) {
        err = p.dir + ": cannot create: " + ec.message();
        return -1;
    }
    return spawn_logged(p.argv, p.dir + "/log.txt", err);
}

void write_csv(const Spec &s, const std::vector<Point> &pts, const std::string &path)
{
    // Points still pending (an interrupted sweep) are left out: sweep.csv holds the finished points.
    std::vector<std::string> sweep_cols = {"point", "exit"};
    std::vector<size_t> dim_col;   // dimension index per extra sweep column
    for (size_t k = 0; k < s.dims.size(); ++k)
        if (!s.dims[k].column.empty()) {
            sweep_cols.push_back(s.dims[k].column);
            dim_col.push_back(k);
        }
    std::vector<std::string> run_cols;
    std::vector<std::map<std::string, std::string>> run_rows(pts.size());
    for (size_t i = 0; i < pts.size(); ++i) {
        std::vector<std::vector<std::string>> rows;   // the point's run CSV: its header and its row
        std::string err;
        if (!csv_read_file(pts[i].dir + "/run.csv", rows, err) || rows.size() < 2) continue;
        const std::vector<std::string> &h = rows.front(), &v = rows.back();
        for (size_t c = 0; c < h.size(); ++c) {
            bool have = false;
            for (const auto &x : run_cols) have |= x == h[c];
            for (const auto &x : sweep_cols) have |= x == h[c];
            if (!have) run_cols.push_back(h[c]);
            run_rows[i][h[c]] = c < v.size() ? v[c] : "";
        }
    }
    for (const char *c : {"model", "workload", "seed", "status"}) {   // failed points have no run row
        bool have = false;
        for (const auto &x : run_cols) have |= x == c;
        if (!have) run_cols.push_back(c);
    }
    std::string o;
    std::vector<std::string> hdr = sweep_cols;
    hdr.insert(hdr.end(), run_cols.begin(), run_cols.end());
    o += csv_record(hdr);
    for (size_t i = 0; i < pts.size(); ++i) {
        const Point &p = pts[i];
        if (p.pending) continue;
        auto r = run_rows[i];
        if (r.empty()) {
            r["model"] = p.model;
            r["workload"] = p.workload;
            r["seed"] = p.seed;
            r["status"] = "failed";
        }
        std::vector<std::string> row = {p.id, std::to_string(p.exit_code)};
        for (size_t k : dim_col) row.push_back(p.ch[k]->label);
        for (const auto &c : run_cols) row.push_back(r.count(c) ? r[c] : "");
        o += csv_record(row);
    }
    write_file_replacing(path, o);     // through path.part: never half a file, a failure named
}

void emit_slurm(const Spec &s, const std::vector<Point> &pts, const std::vector<size_t> &todo, const std::string &spec_arg)
{
    std::error_code ec;
    fs::create_directories(fs::path(s.out) / "slurm", ec);
    if (ec) throw ConfigError(s.out + ": cannot create: " + ec.message());
    std::string cmds = (fs::path(s.out) / "commands.txt").string();
    std::string script = (fs::path(s.out) / "sweep.slurm").string();
    {
        std::ofstream o(cmds);
        if (!o) throw ConfigError(cmds + ": cannot write");
        for (size_t i : todo) o << join_cmd(pts[i].argv) << "\n";
    }
    std::string cwd = fs::current_path().string();
    std::string abs_cmds = fs::absolute(cmds).string(), abs_logs = fs::absolute(fs::path(s.out) / "slurm").string();
    std::ofstream o(script);
    if (!o) throw ConfigError(script + ": cannot write");
    o << "#!/bin/bash\n"
      << "# Slurm job array for `persim sweep " << spec_arg << "`: " << todo.size() << " points, one per array task.\n"
      << "# Generated by `persim sweep --emit-slurm`; the commands are in " << cmds << ".\n"
      << "#   submit:  sbatch " << script << "\n"
      << "#   collect: persim sweep " << spec_arg << "   (finished points are skipped; writes "
      << (fs::path(s.out) / "sweep.csv").string() << ")\n"
      << "# Paths are relative to " << cwd << ", which must be visible on the compute nodes.\n"
      << "#SBATCH --job-name=persim-" << sanitize(s.name) << "\n"
      << "#SBATCH --array=0-" << (todo.empty() ? 0 : todo.size() - 1) << "\n"
      << "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n"
      << "#SBATCH --output=" << abs_logs << "/%A_%a.log\n"
      << "set -euo pipefail\n"
      << "cd " << shell_quote(cwd) << "\n"
      << "cmd=$(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" " << shell_quote(abs_cmds) << ")\n"
      << "eval \"exec $cmd\"\n";
    std::fprintf(stderr, "persim sweep: wrote %s (%zu array tasks) and %s\n", script.c_str(), todo.size(), cmds.c_str());
}

} // namespace

namespace {

int sweep_die(const std::string &m)
{
    std::fprintf(stderr, "persim sweep: %s\n", m.c_str());
    return 1;
}

// The command line of `persim sweep`.
struct SweepArgs {
    std::string spec_path, out_override;
    long jobs = 1;
    bool force = false, dry = false, slurm = false;
};

// Parses argv into *a (CLI11); returns -1 to go on, else the exit code (help printed, or an error).
int parse_sweep_args(int argc, char **argv, SweepArgs *a)
{
    a->jobs = sysconf(_SC_NPROCESSORS_ONLN);
    if (a->jobs < 1) a->jobs = 1;
    CLI::App app{"persim sweep", "persim sweep"};
    set_usage(app, kSweepUsage);
    app.allow_extras();   // unknown options: named below, with did-you-mean
    std::string jobs;
    std::vector<std::string> specs;
    app.add_option("-j,--jobs", jobs)->check(uint_in(1, 4096, "a positive integer"));
    add_flag(app, "--force", a->force);
    app.add_option("-o,--out", a->out_override)->check(CLI::Validator(
        [](std::string &v) { return v.empty() ? std::string("needs a directory") : std::string(); }, "DIR"));
    add_flag(app, "-n,--dry-run", a->dry);
    add_flag(app, "--emit-slurm", a->slurm);
    app.add_option("spec", specs);
    try {
        app.parse(argc - 1, argv + 1);
    } catch (const CLI::Success &e) {   // --help
        return app.exit(e);
    } catch (const CLI::ParseError &e) {
        return sweep_die(parse_error(app, &e, std::vector<std::string>(argv + 2, argv + argc), " (try persim sweep --help)"));
    }
    const std::string u = first_unknown_option(app);
    if (!u.empty()) return sweep_die(parse_error(app, nullptr, {}, " (try persim sweep --help)"));
    if (!jobs.empty()) a->jobs = (long)std::stoul(jobs);
    if (specs.size() > 1) return sweep_die("unexpected argument '" + specs[1] + "' (one spec per sweep)");
    if (specs.empty()) {
        std::fputs(kSweepUsage, stderr);
        return 1;
    }
    a->spec_path = specs[0];
    return -1;
}

// Runs points `todo` of pts, `jobs` at a time, with a progress line; returns the number that failed,
// or -1 (and prints why) if waiting for a child failed.
long run_points(std::vector<Point> &pts, const std::vector<size_t> &todo, size_t skipped, long jobs,
                double *seconds)
{
    for (size_t i : todo) pts[i].pending = true;
    install_interrupt_handlers();   // the run's own handlers (system.h): no SA_RESTART, waitpid returns EINTR
    const bool tty = isatty(2);
    auto t0 = std::chrono::steady_clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
    size_t next = 0, finished = 0, failed = 0;
    std::map<pid_t, size_t> running;
    double last_line = -1e9;
    auto progress = [&](bool force_line) {
        double el = elapsed();
        double eta = finished ? el / (double)finished * (double)(todo.size() - finished) : 0;
        char b[256];
        std::snprintf(b, sizeof b, "[sweep] %zu/%zu done (%zu skipped, %zu failed)  elapsed %s  remaining ~%s",
                      skipped + finished, pts.size(), skipped, failed, fmt_dur(el).c_str(),
                      finished || todo.empty() ? fmt_dur(eta).c_str() : "?");
        if (tty) std::fprintf(stderr, "\r%s\033[K%s", b, force_line ? "\n" : "");
        else if (force_line || el - last_line >= 2.0) {
            std::fprintf(stderr, "%s\n", b);
            last_line = el;
        }
    };
    auto report_failure = [&](const Point &p, const std::string &why) {
        if (tty) std::fprintf(stderr, "\r\033[K");
        std::fprintf(stderr, "[sweep] FAILED %s (%s):\n  %s\n%s", p.id.c_str(), why.c_str(), join_cmd(p.argv).c_str(),
                     tail_lines(p.dir + "/log.txt", 8).c_str());
    };
    bool forwarded = false;
    while ((next < todo.size() && !interrupt_signal()) || !running.empty()) {
        if (interrupt_signal() && !forwarded) {
            // SIGINT / SIGTERM: start nothing more; the running points end at their next safe point
            // (a terminal's Ctrl-C reaches them too; a SIGTERM to the sweep alone is passed on).
            for (auto &r : running) kill(r.first, interrupt_signal());
            forwarded = true;
        }
        while ((long)running.size() < jobs && next < todo.size() && !interrupt_signal()) {
            Point &p = pts[todo[next++]];
            std::string err;
            pid_t pid = spawn(p, err);
            p.ran = true;
            if (pid < 0) {
                p.pending = false;
                p.exit_code = 127;
                ++failed;
                ++finished;
                report_failure(p, err);
                continue;
            }
            running[pid] = todo[next - 1];
        }
        if (running.empty()) continue;
        int st = 0;
        pid_t pid = waitpid(-1, &st, 0);
        if (pid < 0) {
            if (errno == EINTR) continue;
            sweep_die(std::string("waitpid: ") + std::strerror(errno));
            return -1;
        }
        auto it = running.find(pid);
        if (it == running.end()) continue;
        Point &p = pts[it->second];
        running.erase(it);
        ++finished;
        if (WIFEXITED(st)) p.exit_code = WEXITSTATUS(st);
        else p.exit_code = 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
        if (interrupt_signal() && (p.exit_code == 130 || p.exit_code == 128 + SIGINT || p.exit_code == 128 + SIGTERM)) {
            --finished;   // interrupted, not failed: stays pending (rerun on resume)
            continue;
        }
        p.pending = false;
        if (p.exit_code != 0) {
            ++failed;
            report_failure(p, WIFSIGNALED(st) ? "killed by signal " + std::to_string(WTERMSIG(st))
                                              : "exit " + std::to_string(p.exit_code));
        }
        progress(false);
    }
    progress(true);
    *seconds = elapsed();
    return (long)failed;
}

} // namespace

size_t sweep_check_spec(const std::string &path)
{
    return expand(parse_spec(path), "persim").size();
}

int sweep_main(int argc, char **argv)
{
    SweepArgs a;
    const int rc = parse_sweep_args(argc, argv, &a);
    if (rc >= 0) return rc;
    for (const std::string &v : {a.spec_path, a.out_override})
        for (unsigned char c : v)
            if (c < 0x20 || c == 0x7f)
                return sweep_die("'" + v + "': a line break or another control character in a file name (it would reach "
                                 "command lines and sweep.slurm)");
    Spec s;
    std::vector<Point> pts;
    const std::string exe = self_exe(argv[0]);
    try {
        s = parse_spec(a.spec_path);
        if (!a.out_override.empty()) s.out = a.out_override;
        pts = expand(s, exe);
        check_points(s, pts);
    } catch (const ConfigError &e) {
        return sweep_die(e.what());
    }

    std::vector<size_t> todo;
    size_t skipped = 0;
    for (size_t i = 0; i < pts.size(); ++i) {
        if (!a.force && point_done(pts[i], exe)) ++skipped;
        else todo.push_back(i);
    }
    if (a.dry) {
        for (size_t i : todo) std::printf("%s\n", join_cmd(pts[i].argv).c_str());
        std::fprintf(stderr, "persim sweep: %zu points, %zu to run, %zu done already\n", pts.size(), todo.size(), skipped);
        return 0;
    }
    if (a.slurm) {
        try {
            // the collect hint repeats --out (without it the collect would look in the spec's folder)
            emit_slurm(s, pts, todo,
                       shell_quote(a.spec_path) + (a.out_override.empty() ? "" : " --out " + shell_quote(a.out_override)));
        } catch (const ConfigError &e) {
            return sweep_die(e.what());
        }
        return 0;
    }

    std::error_code ec;
    fs::create_directories(fs::path(s.out) / "runs", ec);
    if (ec) return sweep_die(s.out + ": cannot create output directory: " + ec.message());
    std::fprintf(stderr, "persim sweep %s: %zu points (%zu done already, %zu to run), %ld at a time, results in %s\n",
                 s.name.c_str(), pts.size(), skipped, todo.size(), a.jobs, s.out.c_str());
    double seconds = 0;
    const long failed = run_points(pts, todo, skipped, a.jobs, &seconds);
    if (failed < 0) return 1;
    std::string csv = (fs::path(s.out) / "sweep.csv").string();
    try {
        write_csv(s, pts, csv);
    } catch (const std::exception &e) {
        return sweep_die(e.what());
    }
    if (interrupt_signal()) {
        size_t left = 0;
        for (const Point &p : pts) left += p.pending;
        std::fprintf(stderr, "persim sweep %s: interrupted by %s: %zu points finished (%zu skipped, %ld failed), %zu not "
                             "finished; wrote %s with the finished points (rerun the sweep to resume)\n",
                     s.name.c_str(), interrupt_signal() == SIGTERM ? "SIGTERM" : "SIGINT", pts.size() - left, skipped, failed,
                     left, csv.c_str());
        return 130;
    }
    std::fprintf(stderr, "persim sweep %s: %zu points: %zu run, %zu skipped, %ld failed in %.1f s; wrote %s\n",
                 s.name.c_str(), pts.size(), todo.size(), skipped, failed, seconds, csv.c_str());
    return failed ? EXIT_POINTS_FAILED : 0;
}

} // namespace persim
