// persim command line: run, trace, list.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <iostream>
#include <string>
#include <vector>
#include <systemc>
#include "config.h"
#include "config_table.h"
#include "check.h"
#include "crash.h"
#include "sim.h"
#include "device.h"
#include "suggest.h"
#include <algorithm>
#include <map>
#include <cmath>
#include "sweep.h"
#include "trace_program.h"
#include "system.h"
#include "system_cfg.h"
#include "version.h"
#include "args.h"
extern "C" {
#include "func_exec.h"
#include "trace.h"
#include "workload.h"
}

using namespace persim;

// SystemC prints its banner while the program's static objects are constructed; a high-priority
// constructor runs first and turns it off (set SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=0 to see it).
__attribute__((constructor(101))) static void quiet_systemc_banner()
{
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
}

namespace {

const char *kUsage =
    "persim %s - simulator of persistent-memory ordering hardware for GPUs\n"
    "\n"
    "usage:\n"
    "  persim run   --model M (--workload W | --trace FILE) [options]   simulate one run (--model is required;\n"
    "                                                                    options also as --option=value)\n"
    "  persim trace --workload W [--out FILE] [options]                 write a workload's op streams as a trace\n"
    "                                                                    (FILE.zst: zstd-compressed)\n"
    "  persim list  [systems|models|workloads|keys]                      what can be chosen, with defaults and units\n"
    "  persim config diff [--config F ...] [--set k=v]                  the keys that differ from their defaults\n"
    "  persim config schema                                              a JSON Schema of every key (for editors)\n"
    "  persim list rtl [--config F ...] [--set k=v]                    the Verilog parameters a configuration gives each RTL block (JSON)\n"
    "  persim check --model M (--trace F | --workload W) [options]       are the program's `require`s guaranteed by M,\n"
    "                                                                    kept by this run? (docs/checking.md)\n"
    "  persim crash --model M --workload W [--points N|all] [--seed S]   crash, recover, verify (docs/checking.md)\n"
    "  persim sweep SPEC.json [-j N] [--force] [--emit-slurm]            run a study's cross product (docs/sweeps.md)\n"
    "  persim trace-program [options] -- CMD ARGS                        trace a real program (docs/real-programs.md)\n"
    "  persim device [--config F ...] [--out DIR]                        Optane DC PMM microbenchmarks on the pm_dimm\n"
    "                                                                    device (docs/models/nvm-device.md)\n"
    "  persim --version | --help\n"
    "\n"
    "run/trace options:\n"
    "  --config FILE      JSON system config (repeatable; later files override earlier ones),\n"
    "                     e.g. configs/gpu_sbrp_table1.json\n"
    "  --model M          persistency model (`persim list models`: per system kind)\n"
    "  --workload W       built-in workload (see `persim list workloads`)\n"
    "  --trace FILE       run a trace file (format: docs/trace-format.md; zstd-compressed files are read\n"
    "                     as they decompress)\n"
    "  --size S           workload size knob (= --set workload.size=S); `small` = the workload's\n"
    "                     test size, `default` = its paper-scale size\n"
    "  --seed N           input seed (= --set sim.seed=N)\n"
    "  --set KEY=VALUE    override one config key (repeatable), e.g. --set system.pm_placement=near\n"
    "  --out DIR          where stats.json and config.json go (run; default results/runs/<name>-<hash>,\n"
    "                     the hash over the resolved configuration, model, program and size); a folder\n"
    "                     that holds a result is refused unless --force;\n"
    "  --force            run: overwrite the result in the output folder\n"
    "                     trace: output file (default: stdout)\n"
    "  --csv FILE         CSV file to append the run's row to (default: with --out DIR, DIR/run.csv; without\n"
    "                     --out, the runs' table results/runs/runs.csv (gpu) or runs-KIND.csv (KIND = system.kind))\n"
    "  --vcd FILE         VCD waveform (1 ps time unit; open with gtkwave): gpu, each SM's persist-buffer\n"
    "                     occupancy and ACTR; cpu, each core's front-end or persist buffer and region or\n"
    "                     epoch ID, each PM controller's wpq_gate occupancy and flush region (docs/waveforms.md)\n"
    "  --log-warp B:W     print a per-op timeline of warp W of block B (every kernel) on stderr\n"
    "  --quiet            no progress lines and no summary table\n"
    "  --check            run: check that the run keeps every persist-order edge the model promises,\n"
    "                     and the program's `require`s (docs/checking.md)\n"
    "\n"
    "crash options:\n"
    "  --points N|all     crash points to try (default 100 on the gpu, all on the cpu; all = every\n"
    "                     distinct durable image)\n"
    "  --seed S           which points (default 1); the input seed is --set sim.seed=N here\n"
    "  --images run|model the run's own durable images (default), or images the model allows: first\n"
    "                     one targeted image per `require A B` the model does not guarantee (B durable,\n"
    "                     A not, crash when B was performed; all of them; on the cpu: per pair of\n"
    "                     persists its cores leave unordered), then --points random samples\n"
    "  --at PS            one crash instant (ps) of the run;  --sample K: one model image (with --seed)\n"
    "  --target K         only the K-th targeted model image (with --images model; the replay hint)\n"
    "  --time-recovery    (gpu) also time the recovery kernels (not the resumed work) of one crash point:\n"
    "                     --at PS, or --worst = of the points tried, the one whose recovery kernels\n"
    "                     load + store the most PM words; needs --out DIR: writes DIR/recovery.trace\n"
    "                     (the kernels and the durable image) and runs `persim run --trace` on it\n"
    "                     with the same model, --config and --set (DIR/recovery/); reports\n"
    "                     recovery_ns, crash_free_ns, recovery_ratio in stats.json and the CSV\n"
    "\n"
    "exit status: 0 ok, 1 bad input, 3 simulated deadlock or time limit, 4 functional check failed,\n"
    "             5 persist-order check, requirement or crash recovery failed, 130 interrupted (SIGINT or\n"
    "             SIGTERM: run stops at the next safe point and writes its stats so far, status interrupted)\n";

[[noreturn]] void die(const std::string &msg, int code = EXIT_BAD_INPUT)
{
    std::fprintf(stderr, "persim: %s\n", msg.c_str());
    std::exit(code);
}

struct Args {
    std::string cmd;
    std::vector<std::string> configs, sets;
    std::string model, workload, trace, out, csv, vcd, size, seed, logw;
    std::string points, images, at, sample, target;
    bool quiet = false, markdown = false, check = false, time_recovery = false, worst = false, force = false;
    std::vector<std::string> positional;
};

// The options of every command: CLI11 spelling, what they set in Args, and the commands that take
// them ("*": every command). An option of another command is an error naming the command.
struct OptDef {
    const char *names;
    std::string Args::*value;                  // an option with a value (the last one given counts)
    std::vector<std::string> Args::*list;      // a repeatable option
    bool Args::*flag;                          // a flag
    std::vector<std::string> cmds;
};

const std::vector<OptDef> &option_table()
{
    using V = std::vector<std::string>;
    const V rcc = {"run", "check", "crash"}, rcct = {"run", "check", "crash", "trace"};
    static const std::vector<OptDef> t = {
        {"--config", nullptr, &Args::configs, nullptr, {"*"}},
        {"--set", nullptr, &Args::sets, nullptr, {"*"}},
        {"-q,--quiet", nullptr, nullptr, &Args::quiet, {"*"}},
        {"--model", &Args::model, nullptr, nullptr, rcc},
        {"--workload", &Args::workload, nullptr, nullptr, rcct},
        {"--trace", &Args::trace, nullptr, nullptr, rcc},
        {"-o,--out", &Args::out, nullptr, nullptr, rcct},
        {"--csv", &Args::csv, nullptr, nullptr, rcc},
        {"--size", &Args::size, nullptr, nullptr, rcct},
        {"--seed", &Args::seed, nullptr, nullptr, rcct},
        {"--vcd", &Args::vcd, nullptr, nullptr, {"run"}},
        {"--log-warp", &Args::logw, nullptr, nullptr, {"run"}},
        {"--check", nullptr, nullptr, &Args::check, {"run"}},
        {"--force", nullptr, nullptr, &Args::force, {"run"}},
        {"--points", &Args::points, nullptr, nullptr, {"crash"}},
        {"--images", &Args::images, nullptr, nullptr, {"crash"}},
        {"--at", &Args::at, nullptr, nullptr, {"crash"}},
        {"--sample", &Args::sample, nullptr, nullptr, {"crash"}},
        {"--target", &Args::target, nullptr, nullptr, {"crash"}},
        {"--time-recovery", nullptr, nullptr, &Args::time_recovery, {"crash"}},
        {"--worst", nullptr, nullptr, &Args::worst, {"crash"}},
        {"--markdown", nullptr, nullptr, &Args::markdown, {"list"}},
    };
    return t;
}

const std::vector<std::string> kCommands = {"run", "check", "crash", "trace", "list", "config"};
// the commands with parsers of their own (sc_main hands them argv): for did-you-mean
const std::vector<std::string> kOtherCommands = {"sweep", "trace-program", "device"};

bool takes(const OptDef &o, const std::string &cmd)
{
    return std::find(o.cmds.begin(), o.cmds.end(), "*") != o.cmds.end() ||
           std::find(o.cmds.begin(), o.cmds.end(), cmd) != o.cmds.end();
}

// The spellings of an option ("-o,--out": "-o", "--out").
std::vector<std::string> spellings(const OptDef &o)
{
    std::vector<std::string> v;
    std::string n = o.names;
    for (size_t c; (c = n.find(',')) != std::string::npos; n = n.substr(c + 1)) v.push_back(n.substr(0, c));
    v.push_back(n);
    return v;
}

// The command line, by CLI11 (one subcommand per command, each with its own options).
Args parse(int argc, char **argv)
{
    Args a;
    const std::string usage = [] {
        std::vector<char> b(std::strlen(kUsage) + std::strlen(version()) + 1);
        std::snprintf(b.data(), b.size(), kUsage, version());
        return std::string(b.data());
    }();
    if (argc < 2) {
        std::fputs(usage.c_str(), stdout);
        std::exit(EXIT_BAD_INPUT);
    }
    CLI::App app{"persim", "persim"};
    set_usage(app, usage);
    app.set_version_flag("--version", std::string("persim ") + version() + " (" + git_describe() + ")");
    app.require_subcommand(1);
    CLI::App *help = app.add_subcommand("help");
    for (const std::string &cmd : kCommands) {
        CLI::App *sub = app.add_subcommand(cmd);
        sub->allow_extras();   // unknown options and options of other commands: reported below, by name
        sub->add_option("args", a.positional);
        for (const OptDef &o : option_table()) {
            if (!takes(o, cmd)) continue;
            if (o.flag) add_flag(*sub, o.names, a.*o.flag);
            else if (o.list) sub->add_option(o.names, a.*o.list)->allow_extra_args(false);
            else {
                CLI::Option *opt = sub->add_option(o.names, a.*o.value)->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
                if (std::string(o.names) == "--model" && cmd != "trace") opt->required();
                if (std::string(o.names) == "--size")
                    opt->check(CLI::Validator([](std::string &v) { return size_arg_error(v); }, "SIZE"));
            }
        }
    }
    std::optional<CLI::ParseError> failed;
    try {
        app.parse(argc, argv);
    } catch (const CLI::Success &e) {   // --help, --version
        std::exit(app.exit(e));
    } catch (const CLI::ParseError &e) {
        failed = e;
    }
    if (app.get_subcommands().empty()) {
        std::vector<std::string> all = kCommands;
        all.insert(all.end(), kOtherCommands.begin(), kOtherCommands.end());
        die("unknown command '" + std::string(argv[1]) + "'" + did_you_mean(argv[1], all) + " (try persim --help)");
    }
    CLI::App *sub = app.get_subcommands()[0];
    if (sub == help) {
        std::fputs(usage.c_str(), stdout);
        std::exit(0);
    }
    a.cmd = sub->get_name();
    // Unknown options first (a misspelt --model is named as such, not as a missing --model); an
    // option of another command is named as one.
    std::vector<std::string> all;
    for (const OptDef &o : option_table())
        for (const std::string &n : spellings(o)) all.push_back(n);
    const std::string u = first_unknown_option(*sub);
    if (std::find(all.begin(), all.end(), u) != all.end())
        die("option " + u + " does not apply to `persim " + a.cmd + "` (see persim --help)");
    if (u.empty() && failed && failed->get_name() == "RequiredError")
        die(a.cmd + ": " + failed->what() + " (`persim list models` lists them per system)");
    if (!u.empty() || failed)
        die(parse_error(*sub, failed ? &*failed : nullptr, std::vector<std::string>(argv + 1, argv + argc), " (try persim --help)", all));
    return a;
}

Config build_config(const Args &a)
{
    Config c;
    for (const auto &f : a.configs) c.load_file(f);
    for (const auto &kv : a.sets) c.set_kv(kv);
    if (!a.size.empty() && a.size != "small" && a.size != "default") c.set_kv("workload.size=" + a.size, "--size");
    if (!a.seed.empty()) c.set_kv("sim.seed=" + a.seed, "--seed");
    return c;
}

std::string fmt_default(const ParamDef &p)
{
    if (p.key == "system.pm_base") {
        char b[32];
        std::snprintf(b, sizeof b, "0x%llx", (unsigned long long)p.def.get<int64_t>());
        return b;
    }
    return p.def.is_string() ? p.def.get<std::string>() : p.def.dump();
}

// persim config diff: the keys whose resolved value differs from the default, with both.
// persim config schema: a JSON Schema (draft-07) of every key, for editors and validators.
int cmd_config(const Args &a)
{
    using nlohmann::json;
    const std::string what = a.positional.empty() ? "" : a.positional[0];
    if (what != "diff" && what != "schema")
        die("config: expected `diff` or `schema`" + (what.empty() ? std::string() : ", got '" + what + "'" + did_you_mean(what, {"diff", "schema"})));
    const Config c = build_config(a);
    const json flat = c.flat();
    if (what == "diff") {
        size_t n = 0;
        for (const auto &p : config_schema()) {
            const json &v = flat.at(p.key);
            if (v == p.def) continue;
            std::printf("%-40s %-14s (default %s)%s%s\n", p.key.c_str(), v.is_string() ? v.get<std::string>().c_str() : v.dump().c_str(),
                        fmt_default(p).c_str(), p.unit.empty() || p.unit == "-" ? "" : "  ", p.unit == "-" ? "" : p.unit.c_str());
            ++n;
        }
        std::fprintf(stderr, "persim config diff: %zu of %zu keys differ from their defaults (sources: %s)\n", n,
                     config_schema().size(), c.sources().empty() ? "none" : [&] {
                         std::string s;
                         for (const auto &x : c.sources()) s += (s.empty() ? "" : ", ") + x;
                         return s;
                     }().c_str());
        return 0;
    }
    json props = json::object();
    for (const auto &p : config_schema()) {
        json d = {{"description", p.desc + (p.unit.empty() || p.unit == "-" ? "" : " [" + p.unit + "]")}, {"default", p.def}};
        switch (p.type) {
        case PType::Int: d["type"] = "integer"; break;
        case PType::Float: d["type"] = "number"; break;
        case PType::Bool: d["type"] = "boolean"; break;
        case PType::String: d["type"] = "string"; break;
        case PType::Enum: d["type"] = "string"; d["enum"] = p.choices; break;
        }
        if (p.type == PType::Int || p.type == PType::Float) {
            if (p.min > -1e299) d["minimum"] = p.min;
            if (p.max < 1e299) d["maximum"] = p.max;
        }
        // nested objects, as config files write them (section.key)
        json *at = &props;
        std::string k = p.key;
        for (size_t dot; (dot = k.find('.')) != std::string::npos; k = k.substr(dot + 1)) {
            json &sect = (*at)[k.substr(0, dot)];
            if (sect.is_null())
                sect = {{"type", "object"}, {"additionalProperties", false}, {"patternProperties", {{"^_", json::object()}}},
                        {"properties", json::object()}};
            at = &sect["properties"];
        }
        (*at)[k] = d;
    }
    json schema = {{"$schema", "http://json-schema.org/draft-07/schema#"},
                   {"title", "persim configuration"},
                   {"description", "Every key persim reads (persim list keys); keys starting with '_' are comments."},
                   {"type", "object"},
                   {"patternProperties", {{"^_", json::object()}}},
                   {"additionalProperties", false},
                   {"properties", props}};
    std::printf("%s\n", schema.dump(1).c_str());
    return 0;
}

int cmd_list(const Args &a)
{
    std::string what = a.positional.empty() ? "all" : a.positional[0];
    if (what != "all" && what != "systems" && what != "models" && what != "workloads" && what != "keys" && what != "rtl")
        die("list: unknown topic '" + what + "' (systems, models, workloads, keys or rtl)");
    if (what == "rtl") {
        // The Verilog parameters of each block's typed config table (config_table.h) under this
        // configuration: what an RTL preset for it holds (configs/rtl_presets.json).
        const Config c = build_config(a);
        nlohmann::json j = nlohmann::json::object();
        for (const ConfigTableEntry *t : Registry<ConfigTableEntry>::all()) {
            const std::map<std::string, int64_t> m = t->table().rtl_params(c);
            if (!m.empty()) j[t->table().block()] = m;
        }
        std::printf("%s\n", j.dump(2).c_str());
        return 0;
    }
    if (what == "all" || what == "systems") {
        std::printf("systems (system.kind):\n");
        for (auto *k : all_systems()) std::printf("  %-10s %s\n", k->name, k->desc);
    }
    if (what == "all" || what == "models") {
        if (what == "all") std::printf("\n");
        std::printf("models (--model), per system kind:\n");
        for (auto *k : all_systems())
            for (const ModelInfo &m : k->models()) std::printf("  %-4s %-16s %s\n", k->name, m.name.c_str(), m.desc.c_str());
    }
    if (what == "all" || what == "workloads") {
        std::printf("%sworkloads:\n", what == "all" ? "\n" : "");
        std::printf("  %-12s %-10s %-10s %-26s %s\n", "name", "default", "small", "ordering", "size means / description");
        for (const persim_workload *const *w = wl_all(); *w; ++w)
            std::printf("  %-12s %-10llu %-10llu %-26s %s; %s (recovery: %s)\n", (*w)->name,
                        (unsigned long long)(*w)->default_size, (unsigned long long)(*w)->small_size, (*w)->pmo,
                        (*w)->size_desc, (*w)->desc, (*w)->recovery);
        std::printf("  agpm kernels, CTA-level undo logging (docs/workloads-agpm.md; each also as <name>-nolog, no logging):\n");
        for (const persim_workload *const *w = wl_agpm_all(); *w; ++w)
            std::printf("  %-16s %-10llu %-10llu %s; %s\n", (*w)->name, (unsigned long long)(*w)->default_size,
                        (unsigned long long)(*w)->small_size, (*w)->size_desc, (*w)->desc);
        std::printf("  cpu workloads and profiles (system.kind=cpu; docs/workloads-cpu.md):\n");
        for (const persim_workload *const *w = wl_cpu_all(); *w; ++w)
            std::printf("  %-16s %-10llu %-10llu %s; %s\n", (*w)->name, (unsigned long long)(*w)->default_size,
                        (unsigned long long)(*w)->small_size, (*w)->size_desc, (*w)->desc);
        std::printf("  variants with deliberate persistency bugs (docs/checking.md):\n");
        for (const persim_workload *const *w = wl_variants(); *w; ++w)
            std::printf("  %-24s %s\n", (*w)->name, (*w)->desc);
    }
    if (what == "keys" && a.markdown) {
        // docs/config.md is generated from this (a test keeps them equal).
        std::printf("# Configuration keys\n\nGenerated by `persim list keys --markdown`; do not edit by hand.\n\n"
                    "Config files are JSON; nested objects flatten to dotted keys, so\n"
                    "`{\"nvm\": {\"read_latency_ns\": 300}}` sets `nvm.read_latency_ns`. Files given with repeated\n"
                    "`--config` are merged in order, then `--set key=value` applies. Unknown keys and out-of-range\n"
                    "values are errors naming the file and key. Keys with a component starting with `_` are\n"
                    "ignored: the shipped configs (`configs/`) are plain JSON that `jq` and Python's `json` read,\n"
                    "with the file's header in `_about` and each key's source (paper table, section, or persim's\n"
                    "assumption) in its object's `_sources`, e.g. `\"persist\": {\"_sources\": {\"window\": \"Table 1:\n"
                    "window size 6\"}, \"window\": 6}`; `//` and `/* */` comments are still accepted in your own\n"
                    "files. A run's `config.json` keeps what else made the run under `_run`, so it loads back\n"
                    "with `--config` as it is. `persim config diff` lists the\n"
                    "keys that differ from their defaults; `docs/config.schema.json` (`persim config schema`) is a\n"
                    "JSON Schema of every key for editors.\n\n"
                    "| key | default | unit | description |\n|---|---|---|---|\n");
        for (const auto &p : config_schema()) {
            std::string d = p.desc;
            if (!p.choices.empty()) {
                d += " (";
                for (size_t i = 0; i < p.choices.size(); ++i) d += (i ? ", " : "") + ("`" + p.choices[i] + "`");
                d += ")";
            }
            if (p.type == PType::Int || p.type == PType::Float) {
                auto num = [](double v) {
                    char b[32];
                    std::snprintf(b, sizeof b, "%g", v);
                    return std::string(b);
                };
                d += p.max >= 1e15 ? "; at least " + num(p.min) : "; " + num(p.min) + " to " + num(p.max);
            }
            std::printf("| `%s` | %s | %s | %s |\n", p.key.c_str(), fmt_default(p).c_str(), p.unit.c_str(), d.c_str());
        }
        return 0;
    }
    if (what == "all" || what == "keys") {
        std::printf("%sconfig keys (JSON files nest them: {\"nvm\": {\"read_latency_ns\": 300}}):\n", what == "all" ? "\n" : "");
        std::printf("  %-28s %-14s %-12s %s\n", "key", "default", "unit", "description");
        for (const auto &p : config_schema()) {
            std::string d = p.desc;
            if (!p.choices.empty()) {
                d += " {";
                for (size_t i = 0; i < p.choices.size(); ++i) d += (i ? "|" : "") + p.choices[i];
                d += "}";
            }
            std::printf("  %-28s %-14s %-12s %s\n", p.key.c_str(), fmt_default(p).c_str(), p.unit.c_str(), d.c_str());
        }
    }
    return 0;
}

int cmd_trace(const Args &a)
{
    if (a.workload.empty()) die("trace: --workload is required");
    Config c = build_config(a);
    const persim_workload *wl = wl_find(a.workload.c_str());
    if (!wl) die("unknown workload '" + a.workload + "' (see persim list workloads)");
    wl_params prm{};
    const SystemCfg sc = SystemCfg::from(c);
    prm.size = sc.size_of(wl->default_size, wl->small_size, a.size == "small");
    prm.seed = sc.seed;
    system_of(c).workload_params(c, &prm);
    prm.pm_base = sc.pm_base;
    prm.vol_base = PERSIM_VOL_BASE;
    persim_prog *p = prog_new();
    mem_image *img = mem_new();
    void *ctx = nullptr;
    char err[1024] = {0};
    if (wl->build(&prm, p, img, &ctx, err, sizeof err) != 0) die("workload '" + a.workload + "': " + err);
    // Dump every 128-byte chunk the program touches; add `expect` lines for the chunks it writes,
    // computed by the functional reference executor.
    uint64_t *chunks = nullptr, *wchunks = nullptr;
    size_t n = trace_prog_chunks(p, 0, &chunks), nw = trace_prog_chunks(p, 1, &wchunks);
    std::vector<trace_region> rg, wrg;
    for (size_t i = 0; i < n; ++i) rg.push_back({chunks[i] << 7, 128});
    for (size_t i = 0; i < nw; ++i) wrg.push_back({wchunks[i] << 7, 128});
    mem_image *fin = mem_clone(img);
    if (func_exec(p, fin, 0, err, sizeof err) != 0) die(std::string("functional execution failed: ") + err);
    FILE *f = stdout;
    if (!a.out.empty() && a.out != "-") {
        f = trace_open_write(a.out.c_str(), trace_path_is_zstd(a.out.c_str()) ? TRACE_ZSTD_LEVEL : 0);  // x.zst: compressed
        if (!f) die(a.out + ": cannot open for writing");
    }
    std::string comment = "workload " + a.workload + " size " + std::to_string(prm.size) + " seed " +
                          std::to_string(prm.seed) + " (persim " + version() + ")";
    bool ok = trace_write_stream(f, p, img, rg.data(), rg.size(), comment.c_str()) == 0 &&
              trace_write_expects(f, p, fin, wrg.data(), wrg.size()) == 0;
    ok = (std::fflush(f) == 0) && ok;
    if (f != stdout) ok = (std::fclose(f) == 0) && ok;
    if (!ok) die((a.out.empty() ? std::string("stdout") : a.out) + ": write failed");
    free(chunks);
    free(wchunks);
    mem_free(fin);
    mem_free(img);
    if (ctx) wl->free_ctx(ctx);
    prog_free(p);
    return 0;
}

std::string g_argv0 = "persim";

// The run described by the command line (config, model, program, outputs).
RunSpec spec_of(const Args &a)
{
    RunSpec s;
    s.cfg = build_config(a);
    s.model = a.model;
    s.workload = a.workload;
    s.trace = a.trace;
    s.out_dir = a.out;
    s.csv = a.csv;
    s.sets = a.sets;
    s.small = a.size == "small";
    return s;
}

int cmd_run(const Args &a)
{
    std::unique_ptr<Checker> chk;
    RunSpec s = spec_of(a);
    s.vcd = a.vcd;
    s.quiet = a.quiet;
    s.keep_results = !a.force;
    if (!a.logw.empty()) {
        unsigned b, w;
        char extra;
        if (std::sscanf(a.logw.c_str(), "%u:%u%c", &b, &w, &extra) != 2) die("--log-warp: expected BLOCK:WARP, got '" + a.logw + "'");
        s.log_block = (int)b;
        s.log_warp = (int)w;
    }
    if (a.check) {
        if (!system_of(s.cfg).order_model) {
            std::string with;   // the systems whose models promise a persist order the check reads
            for (auto *k : all_systems())
                if (k->order_model) with += std::string(with.empty() ? "" : ", ") + k->name;
            die("run --check: the persist-order conformance check exists for the " + with + " system only; on system.kind " +
                std::string(system_of(s.cfg).name) + " use `persim crash` (docs/checking.md)");
        }
        chk = std::make_unique<Checker>(s.cfg, s.model, false);
        s.observer = chk.get();
    }
    RunResult r = run_simulation(s);
    if (!a.quiet) {
        const auto &sm = r.stats["summary"];
        auto v = [&](const char *k) { return sm.contains(k) ? sm[k]["value"].get<double>() : 0.0; };
        std::printf("persim %s: model %s, %s, %s\n", version(), s.model.c_str(), SystemCfg::from(s.cfg).placement.c_str(),
                    s.trace.empty() ? ("workload " + s.workload).c_str() : ("trace " + s.trace).c_str());
        std::printf("  status            %s%s\n", r.status.c_str(), r.verified ? " (results verified)" : "");
        std::printf("  simulated time    %.3f us (%llu cycles)\n", v("sim_ns") / 1000.0, (unsigned long long)r.cycles);
        const SystemKind &kind = system_of(s.cfg);
        if (kind.run_summary) {
            std::printf("%s", kind.run_summary(sm, r.host_seconds, (double)r.instructions).c_str());
        } else {
            // every non-zero figure the system's CSV row holds, with its unit: counts exactly, others
            // to 4 significant digits (figures of mechanisms the model does not have are 0: left out)
            size_t zero = 0;
            for (const std::string &c : kind.csv_columns()) {
                if (c == "sim_ns" || !sm.contains(c)) continue;
                const double x = sm[c]["value"].get<double>();
                if (x == 0) {
                    ++zero;
                    continue;
                }
                char num[64];
                if (x == std::floor(x) && std::fabs(x) < 1e15) std::snprintf(num, sizeof num, "%.0f", x);
                else std::snprintf(num, sizeof num, "%.4g", x);
                std::printf("  %-34s %s %s\n", c.c_str(), num, sm[c]["unit"].get<std::string>().c_str());
            }
            if (zero) std::printf("  (%zu figures are 0 and not shown; stats.json has every figure)\n", zero);
            std::printf("  host time         %.2f s (%.3g M %s/s)\n", r.host_seconds,
                        r.host_seconds > 0 ? (double)r.instructions / r.host_seconds / 1e6 : 0.0, kind.instr_unit);
        }
        if (!r.out_dir.empty()) std::printf("  output            %s/{stats,config}.json\n", r.out_dir.c_str());
    }
    if (chk && (!a.quiet || r.code == EXIT_CHECK)) std::printf("%s", chk->text().c_str());
    std::fflush(stdout);
    if (r.code == EXIT_INTERRUPTED && !r.out_dir.empty())
        std::fprintf(stderr, "persim: %s; the stats so far are in %s/stats.json (status interrupted)\n", r.message.c_str(),
                     r.out_dir.c_str());
    else if (r.code != EXIT_OK) std::fprintf(stderr, "persim: %s\n", r.message.c_str());
    return r.code;
}

RunSpec check_spec(const Args &a, const char *what)
{
    if (a.workload.empty() == a.trace.empty()) die(std::string(what) + ": give exactly one of --workload or --trace");
    RunSpec s = spec_of(a);
    s.write_files = !a.out.empty();
    s.quiet = true;
    return s;
}

// persim check: requirements (guaranteed by the model? kept by this run?) and conformance.
int cmd_self_check(const Args &a, const char *cmd);

int cmd_check(const Args &a)
{
    RunSpec s = check_spec(a, "check");
    // systems without an order model check the persist order their models promise (region
    // prefixes, buffered strict persistence) on the run's durable order, as persim crash does
    if (!system_of(s.cfg).order_model) return cmd_self_check(a, "check");
    Checker chk(s.cfg, s.model, true);
    s.observer = &chk;
    RunResult r = run_simulation(s);
    std::printf("persim check: model %s, %s, %s: run %s, %.3f us simulated\n", s.model.c_str(),
                SystemCfg::from(s.cfg).placement.c_str(),
                s.trace.empty() ? ("workload " + s.workload).c_str() : ("trace " + s.trace).c_str(), r.status.c_str(),
                r.sim_ps / 1e6);
    std::printf("%s", chk.text().c_str());
    if (chk.report().ran && chk.report().reqs.empty())
        std::printf("  requirements      none (add `require A B` lines: docs/checking.md)\n");
    std::fflush(stdout);
    if (r.code != EXIT_OK) std::fprintf(stderr, "persim: %s\n", r.message.c_str());
    return r.code;
}

uint64_t parse_u64(const std::string &opt, const std::string &v)
{
    uint64_t x = 0;
    if (!persim::parse_u64(v, x)) die(opt + ": expected a non-negative integer, got '" + v + "'");
    return x;
}

// persim crash: crash points of one run, each recovered with the workload's recovery and verified.
// persim check / crash on a system without an order model (SystemKind::order_model; the cpu
// system): the system checks the run's persistent state itself (sim.crash_check; the cpu system:
// every distinct crash image against a prefix of committed regions, or buffered strict
// persistence) and its self_check_report says what it found.
CrashOptions crash_options(const Args &a);

int cmd_self_check(const Args &a0, const char *cmd)
{
    if (a0.workload.empty() == a0.trace.empty()) die(std::string(cmd) + ": give exactly one of --workload or --trace");
    const bool crash = std::string(cmd) == "crash";
    Args a = a0;
    CrashSelect sel;
    if (crash) {
        // the same options as on the gpu, with the same meaning; --seed picks the crash points (the
        // input seed stays the run's sim.seed)
        a.seed.clear();
        const std::string sys = system_of(build_config(a)).name;
        if (a.time_recovery)
            die("--time-recovery: times the recovery kernels of a workload's recovery procedure; system.kind " + sys +
                " runs none (its crash check compares each image with the state the model promises)");
        a.seed.clear();
        const CrashOptions o = crash_options(a0);
        sel.model_images = o.model_images;
        sel.seed = o.seed;
        sel.all = o.model_images ? false : (a.points.empty() || o.all);   // run images: every one unless --points N
        sel.points = o.points;
        sel.at_ps = o.at_ps;
        sel.sample = o.sample;
        sel.target = o.target;
    }
    RunSpec s = spec_of(a);
    s.cfg.set("sim.crash_check", true, "persim crash");
    if (crash) s.crash_select = &sel;
    RunResult r = run_simulation(s);
    std::printf("persim %s: model %s, %s: run %s, %.3f us simulated\n", cmd, s.model.c_str(),
                s.trace.empty() ? ("workload " + s.workload).c_str() : ("trace " + s.trace).c_str(), r.status.c_str(),
                r.sim_ps / 1e6);
    double bad = 0;
    std::string text;
    if (const auto report = system_of(s.cfg).self_check_report) bad = report(r.stats, s.model, text);
    else text = "  system.kind " + std::string(system_of(s.cfg).name) + " checks no persist order of its own\n";
    std::printf("%s", text.c_str());
    if (crash) {
        // the first failing image and the command that replays it
        for (const char *g : {"region_check", "bsp_check"}) {
            if (!r.stats.contains(g) || !r.stats[g].contains("first_failed_kind")) continue;
            const auto &st = r.stats[g];
            auto v = [&](const char *k) { return (long long)st[k]["value"].get<double>(); };
            std::string rp = g_argv0 + " crash";
            for (const auto &c : a.configs) rp += " --config " + c;
            for (const auto &kv : a.sets) rp += " --set " + kv;
            rp += " --model " + a.model + (a.trace.empty() ? " --workload " + a.workload : " --trace " + a.trace);
            if (!a.size.empty()) rp += " --size " + a.size;
            const long long kind = v("first_failed_kind"), idx = v("first_failed_index");
            if (kind == 0) rp += " --at " + std::to_string(v("first_failed_ps"));
            else if (kind == 1) rp += " --images model --target " + std::to_string(idx);
            else rp += " --images model --sample " + std::to_string(idx) + " --seed " + std::to_string(v("seed"));
            const std::string what = kind == 0 ? std::string("run image")
                                     : (kind == 1 ? "targeted image " : "sample ") + std::to_string(idx);
            std::printf("  first failing          %s, crash at %.3f ns\n", what.c_str(), v("first_failed_ps") / 1000.0);
            std::printf("  replay                 %s\n", rp.c_str());
        }
    }
    std::fflush(stdout);
    if (r.code != EXIT_OK) {
        std::fprintf(stderr, "persim: %s\n", r.message.c_str());
        return r.code;
    }
    return bad > 0 ? EXIT_CHECK : EXIT_OK;
}

// The crash-point options of persim crash (docs/checking.md), the same on every system: checked
// here, before anything runs.
CrashOptions crash_options(const Args &a)
{
    CrashOptions o;
    if (!a.seed.empty()) o.seed = parse_u64("--seed", a.seed);
    if (a.images.empty() || a.images == "run") o.model_images = false;
    else if (a.images == "model") o.model_images = true;
    else die("--images: expected 'run' or 'model', got '" + a.images + "'");
    if (a.points == "all") o.all = true;
    else if (!a.points.empty()) {
        o.points = parse_u64("--points", a.points);
        if (o.points == 0) die("--points: expected at least 1 (or 'all')");
    }
    if (!a.at.empty()) o.at_ps = (int64_t)parse_u64("--at", a.at);
    if (!a.sample.empty()) {
        if (!o.model_images) die("--sample: only with --images model (a run image is chosen with --at)");
        o.sample = (int64_t)parse_u64("--sample", a.sample);
    }
    if (!a.target.empty()) {
        if (!o.model_images) die("--target: only with --images model (a targeted model image)");
        if (!a.sample.empty()) die("--target: give either --sample or --target, not both");
        o.target = (int64_t)parse_u64("--target", a.target);
    }
    if (o.at_ps >= 0 && o.model_images) die("--at: only with --images run (a model image is chosen with --sample)");
    if (o.all && o.model_images)
        die("--points all enumerates the run's durable images; with --images model give a number of samples");
    if (a.worst && !a.time_recovery) die("--worst: only with --time-recovery (it chooses the point whose recovery is timed)");
    return o;
}

int cmd_crash(const Args &a0)
{
    Args a = a0;
    a.seed.clear();   // --seed picks the crash points here; the input seed is --set sim.seed=N
    if (!system_of(build_config(a)).order_model) return cmd_self_check(a0, "crash");
    if (a.workload.empty()) die("crash: --workload is required (a trace has no recovery procedure)");
    if (!a.trace.empty()) die("crash: --trace is not supported (a trace has no recovery procedure); use --workload");
    CrashOptions o = crash_options(a0);
    if (a.time_recovery) {
        if (o.model_images) die("--time-recovery: times a run image; not with --images model");
        if (a.worst && o.at_ps >= 0) die("--time-recovery: --worst and --at both choose the crash point; give one of them");
        if (!a.worst && o.at_ps < 0) die("--time-recovery: choose the crash point with --worst or --at PS");
        if (a.out.empty()) die("--time-recovery: needs --out DIR (the recovery trace and the timed run go there)");
        o.time_recovery = true;
        o.worst = a.worst;
        o.out_dir = a.out;
        for (const auto &c : a.configs) o.child_args.insert(o.child_args.end(), {"--config", c});
        for (const auto &kv : a.sets) o.child_args.insert(o.child_args.end(), {"--set", kv});
    }
    std::string rp = g_argv0 + " crash";
    for (const auto &c : a.configs) rp += " --config " + c;
    for (const auto &kv : a.sets) rp += " --set " + kv;
    rp += " --model " + a.model + " --workload " + a.workload;
    if (!a.size.empty()) rp += " --size " + a.size;
    o.replay = rp;
    RunSpec s = check_spec(a, "crash");
    CrashDriver drv(s.cfg, s.model, o);
    s.observer = &drv;
    RunResult r = run_simulation(s);
    std::printf("%s", drv.text().c_str());
    std::fflush(stdout);
    if (r.code != EXIT_OK) std::fprintf(stderr, "persim: %s\n", r.message.c_str());
    return r.code;
}

} // namespace

int sc_main(int argc, char **argv)
{
    if (argc >= 2 && std::strcmp(argv[1], "sweep") == 0) return sweep_main(argc, argv);   // runs no SystemC
    if (argc >= 2 && std::strcmp(argv[1], "trace-program") == 0) return trace_program_main(argc, argv);   // runs no SystemC
    if (argc >= 2 && std::strcmp(argv[1], "device") == 0) return device_main(argc, argv);   // runs no SystemC
    try {
        Args a = parse(argc, argv);
        if (a.cmd == "list") return cmd_list(a);
        if (a.cmd == "config") return cmd_config(a);
        if (!a.positional.empty()) die("unexpected argument '" + a.positional[0] + "'");
        if (a.cmd == "trace") return cmd_trace(a);
        g_argv0 = argv[0];
        if (a.cmd == "check") return cmd_check(a);
        if (a.cmd == "crash") return cmd_crash(a);
        install_interrupt_handlers();   // SIGINT / SIGTERM: stop at the next safe point, keep the stats
        return cmd_run(a);
    } catch (const ConfigError &e) {
        die(e.what());
    } catch (const std::bad_alloc &) {
        // not a bug of persim: the configuration or workload asks for more memory than there is
        die("out of memory: the configuration or workload size needs more memory than this machine gives "
            "(see the sizes in the config, --size, workload.scale)");
    } catch (const std::exception &e) {
        die(std::string("internal error: ") + e.what(), 2);
    }
}
