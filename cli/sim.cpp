#include "sim.h"
#include <algorithm>
#include "accelsim_load.h"
#include "out_file.h"
#include "proc.h"
#include "suggest.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <systemc>
#include "system.h"
#include "system_cfg.h"
#include "version.h"
extern "C" {
#include "op.h"
#include "trace.h"
#include "workload.h"
}

namespace persim {
using namespace sc_core;
using nlohmann::json;
namespace fs = std::filesystem;

void persim_prog_deleter::operator()(void *p) const { prog_free(static_cast<persim_prog *>(p)); }

namespace {

struct Loaded {
    persim_prog *prog = nullptr;
    mem_image *img = nullptr;
    const persim_workload *wl = nullptr;
    void *ctx = nullptr;
    trace_data td{};
    bool from_trace = false;
    bool no_values = false;      // an Accel-Sim trace: no values, nothing to verify
    uint64_t size = 0;
    ~Loaded()
    {
        if (from_trace) {
            trace_data_free(&td);
        } else {
            if (wl && ctx) wl->free_ctx(ctx);
            if (prog) prog_free(prog);
            if (img) mem_free(img);
        }
    }
};

// The workload s names, if the configured system runs it (else ConfigError, naming the system's).
const persim_workload *find_workload(const RunSpec &s)
{
    const persim_workload *wl = wl_find(s.workload.c_str());
    const SystemKind &kind = system_of(s.cfg);
    // The workloads of this system's groups (workloads/workload.h), for the message and the hint.
    std::vector<std::string> mine;
    const persim_workload *const *(*lists[])(void) = {wl_all, wl_variants, wl_cpu_all, wl_agpm_all, wl_agpm_nolog_all};
    const wl_group groups[] = {WL_GPU, WL_VARIANT, WL_CPU, WL_AGPM, WL_AGPM_NOLOG};
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; ++g)
        if (!kind.workload_groups || (kind.workload_groups & (1u << groups[g])))
            for (const persim_workload *const *w = lists[g](); *w; ++w) mine.push_back((*w)->name);
    if (!wl || std::find(mine.begin(), mine.end(), s.workload) == mine.end()) {
        std::string all;
        for (const auto &n : mine) all += (all.empty() ? "" : ", ") + n;
        throw ConfigError("unknown workload '" + s.workload + "' for system.kind " + kind.name + did_you_mean(s.workload, mine) +
                          " (available: " + all + ")");
    }
    return wl;
}

void load_program(const RunSpec &s, Loaded &L)
{
    char err[1024] = {0};
    if (!s.trace.empty() && accelsim_is_trace(s.trace)) {
        std::string summary;   // Accel-Sim's NVBit traces (docs/trace-format-accelsim.md)
        accelsim_load(s.cfg, s.trace, &L.td, &summary);
        if (!s.quiet) std::fprintf(stderr, "[persim] %s\n[persim] %s\n", summary.c_str(), kAccelsimNoValues);
        L.from_trace = L.no_values = true;
        L.prog = L.td.prog;
        L.img = L.td.init;
    } else if (!s.trace.empty()) {
        if (trace_read_file(s.trace.c_str(), &L.td, err, sizeof err) != 0) throw ConfigError(err);
        L.from_trace = true;
        L.prog = L.td.prog;
        L.img = L.td.init;
    } else {
        L.wl = find_workload(s);
        wl_params prm{};
        const SystemCfg sc = SystemCfg::from(s.cfg);
        prm.size = L.size = sc.size_of(L.wl->default_size, L.wl->small_size, s.small);
        prm.seed = sc.seed;
        system_of(s.cfg).workload_params(s.cfg, &prm);
        prm.pm_base = sc.pm_base;
        prm.vol_base = PERSIM_VOL_BASE;
        L.prog = prog_new();
        L.img = mem_new();
        if (L.wl->build(&prm, L.prog, L.img, &L.ctx, err, sizeof err) != 0)
            throw ConfigError("workload '" + s.workload + "': " + err);
    }
    if (prog_validate(L.prog, err, sizeof err) != 0)
        throw ConfigError((s.trace.empty() ? "workload '" + s.workload + "'" : s.trace) + ": invalid program: " + err);
    const SystemKind &kind = system_of(s.cfg);
    if (kind.transform) kind.transform(s.cfg, L.prog);   // e.g. the gpu's persist.promote_block_scope
    try {
        kind.validate(s.cfg, L.prog);
    } catch (const ConfigError &e) {
        if (!L.no_values) throw;
        throw ConfigError(s.trace + ": " + e.what() +
                          " (Accel-Sim MEMBAR.GPU/SYS become 'pbarrier device'; --set accelsim.fence=order lowers MEMBAR to 'order')");
    }
}

std::string auto_name(const RunSpec &s, uint64_t size)
{
    fs::path tp(s.trace);
    if (tp.extension() == ".zst" || tp.extension() == ".xz") tp = tp.stem();   // x.trace.zst names its runs like x.trace
    std::string src = s.trace.empty() ? s.workload : tp.stem().string();
    if (src.rfind("kernelslist", 0) == 0 && !tp.parent_path().filename().empty())
        src = tp.parent_path().filename().string();   // an Accel-Sim kernelslist.g: its folder names the run
    std::ostringstream o;
    const SystemCfg sc = SystemCfg::from(s.cfg);
    o << s.model << "-" << sc.placement << (sc.eadr ? "-eadr" : "") << "-" << src;
    if (size) o << "-n" << size;
    o << "-seed" << sc.seed;
    // A short hash of everything that shapes the run (every resolved key, model, program, size), so
    // runs that differ only in a --set or a --config file land in different folders.
    const std::string what = s.cfg.resolved().dump() + "\n" + s.model + "\n" + s.workload + "\n" + s.trace + "\n" +
                             std::to_string(size);
    uint64_t h = 1469598103934665603ull;   // FNV-1a 64
    for (unsigned char ch : what) h = (h ^ ch) * 1099511628211ull;
    char hx[17];
    std::snprintf(hx, sizeof hx, "%08llx", (unsigned long long)(h >> 32));
    o << "-" << hx;
    return o.str();
}

std::string joined_sets(const RunSpec &s)
{
    std::string j;
    for (const auto &kv : s.sets) j += (j.empty() ? "" : ";") + kv;
    return j;
}

void append_csv(const std::string &path, const RunSpec &s, const RunResult &r, uint64_t size)
{
    bool fresh = !fs::exists(path);
    // persim crash --time-recovery adds recovery columns (docs/checking.md "Timed recovery")
    const bool rec = r.stats.contains("recovery");
    const std::vector<std::string> cols = system_of(s.cfg).csv_columns();
    std::vector<std::string> header = {"config", "model", "placement", "eadr", "workload", "size", "seed", "status", "verified"};
    header.insert(header.end(), cols.begin(), cols.end());
    header.push_back("host_seconds");
    if (rec) header.insert(header.end(), {"recovery_ns", "crash_free_ns", "recovery_ratio", "recovery_work_words"});
    header.insert(header.end(), {"sets", "persim_git"});
    if (!fresh) {
        std::vector<std::vector<std::string>> have;
        std::string err;
        if (!csv_read_file(path, have, err, 1)) throw ConfigError(err + "; use another --csv");
        if (!have.empty() && have[0] != header)
            throw ConfigError(path + ": has other columns than this run's row" +
                              (rec ? " (crash --time-recovery adds recovery columns)" : "") + "; use another --csv");
        fresh = have.empty();
    }
    if (!fs::path(path).parent_path().empty()) fs::create_directories(fs::path(path).parent_path());
    std::ofstream o(path, std::ios::app | std::ios::binary);
    if (!o) throw ConfigError(path + ": cannot write CSV");
    const json &sm = r.stats["summary"];
    auto v = [&](const char *k) { return sm.contains(k) ? sm[k]["value"].dump() : std::string("0"); };
    if (fresh) o << csv_record(header);
    const SystemCfg sc = SystemCfg::from(s.cfg);
    std::vector<std::string> row = {sc.name, s.model, sc.placement, sc.eadr ? "1" : "0", s.trace.empty() ? s.workload : s.trace,
                                    std::to_string(size), std::to_string(sc.seed), r.status, r.verified ? "1" : "0"};
    for (const auto &c : cols) row.push_back(v(c.c_str()));
    std::ostringstream hs;
    hs << r.host_seconds;   // as before: 6 significant digits
    row.push_back(hs.str());
    if (rec) {
        const json &rj = r.stats["recovery"];
        for (const char *k : {"recovery_ns", "crash_free_ns", "recovery_ratio", "work_words"}) row.push_back(rj[k].dump());
    }
    row.push_back(joined_sets(s));
    row.push_back(git_describe());
    o << csv_record(row);
    o.flush();
    if (!o) throw ConfigError(path + ": cannot write CSV");
}

// The model is one of the configured system's, and exactly one program is named.
void check_model(const RunSpec &spec)
{
    const SystemKind &kind = system_of(spec.cfg);
    kind.require_model(spec.model);
    if (spec.workload.empty() == spec.trace.empty()) throw ConfigError("give exactly one of --workload or --trace");
}

} // namespace

void check_run(const RunSpec &spec)
{
    check_model(spec);
    SystemCfg::from(spec.cfg);
    if (spec.trace.empty()) find_workload(spec);
}

RunResult run_simulation(const RunSpec &spec)
{
    RunResult res;
    const SystemKind &kind = system_of(spec.cfg);
    check_model(spec);
    Loaded L;
    load_program(spec, L);
    if (!L.prog || L.prog->nkernels == 0)
        throw ConfigError((spec.trace.empty() ? "workload '" + spec.workload + "'" : spec.trace) +
                          ": the program has no kernels: nothing to run");
    if (spec.write_files && spec.keep_results) {
        // Checked before simulating: a result is never overwritten without --force.
        const std::string dir = spec.out_dir.empty() ? "results/runs/" + auto_name(spec, L.size) : spec.out_dir;
        if (fs::exists(dir + "/stats.json"))
            throw ConfigError(dir + " already holds a result (stats.json): pass --force to overwrite it, or give another --out");
    }
    const LoadedProgram lp{L.prog, L.img, L.wl, L.ctx, L.size};
    if (spec.observer) spec.observer->on_loaded(lp);

    auto host0 = std::chrono::steady_clock::now();
    sc_report_handler::set_actions(SC_INFO, SC_DO_NOTHING);
    sc_report_handler::set_actions("/IEEE_Std_1666/deprecated", SC_DO_NOTHING);
    std::unique_ptr<System> top = kind.make(spec.cfg, spec.model, L.prog, L.img);
    if (spec.sink) top->set_durable_sink(spec.sink);
    if (spec.crash_select) top->set_crash_select(*spec.crash_select);
    if (spec.observer && spec.observer->tracker()) top->set_tracker(spec.observer->tracker());
    if (spec.log_block >= 0) top->set_log(stderr, (uint32_t)spec.log_block, (uint32_t)spec.log_warp);
    sc_trace_file *tf = nullptr;
    if (!spec.vcd.empty()) {
        std::string base = spec.vcd;
        if (base.size() > 4 && base.substr(base.size() - 4) == ".vcd") base = base.substr(0, base.size() - 4);
        // Trace-file notes go to stderr, never stdout (stdout is the run summary).
        sc_report_handler::set_actions("/IEEE_Std_1666/deprecated", SC_DO_NOTHING);
        sc_report_handler::set_actions(SC_WARNING, SC_LOG);
        sc_report_handler::set_log_file_name("/dev/stderr");
        tf = sc_create_vcd_trace_file(base.c_str());
        tf->set_time_unit(1, SC_PS);   // a GPU cycle is 733 ps: nanoseconds cannot represent it
        top->trace(tf);
    }

    const SystemCfg sys = SystemCfg::from(spec.cfg);
    const uint64_t limit_ps = (uint64_t)(sys.max_time_ms * 1e9);
    auto progress = [&](double hs) {
        std::fprintf(stderr, "[persim] %.1f us simulated, %s, %.2f M %s/s\n", now_ps() / 1e6,
                     top->progress_line().c_str(), top->instructions() / hs / 1e6, kind.instr_unit);
    };
    const RunOutcome out = run_system(*top, limit_ps, spec.quiet ? 0 : sys.progress_ms, progress);
    if (out.kind == RunOutcome::INTERRUPTED) {
        res.status = "interrupted";      // stats so far; not verified (the program was cut short)
        res.code = EXIT_INTERRUPTED;
        res.message = out.message;
    } else if (out.kind != RunOutcome::FINISHED) {
        res.status = out.kind == RunOutcome::DEADLOCK ? "deadlock" : "timeout";
        res.code = EXIT_STUCK;
        res.message = out.message;
    }
    if (tf) sc_close_vcd_trace_file(tf);
    res.host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - host0).count();
    const uint64_t sim_ps = out.sim_ps;
    res.sim_ps = sim_ps;
    res.cycles = sim_ps / top->period_ps();
    res.instructions = top->instructions();

    // Functional result: the memory image with every dirty byte written back.
    if (res.code == EXIT_OK && top->power_failed()) {
        res.status = "power-failed";      // not verified: the program was cut short (sim.power_fail_ns)
    } else if (res.code == EXIT_OK) {
        top->drain_functional(L.img);
        char msg[2048] = {0};
        int bad = 0;
        if (L.from_trace) bad = trace_check_expects(&L.td, L.img, msg, sizeof msg);
        else bad = L.wl->verify(L.ctx, L.img, msg, sizeof msg);
        res.verified = bad == 0 && !L.no_values;
        if (L.no_values) res.message = kAccelsimNoValues;
        if (bad) {
            res.status = "verify-failed";
            res.code = EXIT_VERIFY;
            res.message = std::string("functional check failed: ") + msg;
        } else {
            res.status = "ok";
        }
    }

    StatsWriter w;
    top->report(w, sim_ps);
    w.add("summary", "host_seconds", res.host_seconds, "s", "host wall-clock time of the simulation");
    w.add("summary", "sim_speed", res.host_seconds > 0 ? res.instructions / res.host_seconds : 0,
          std::string(kind.instr_unit) + "/s", std::string("simulated ") + kind.instr_unit + " per host second");
    res.stats = w.to_json();
    res.stats["run"] = {{"model", spec.model},
                        {"workload", spec.workload},
                        {"trace", spec.trace},
                        {"size", L.size},
                        {"status", res.status},
                        {"verified", res.verified},
                        {"message", res.message},
                        {"sets", spec.sets},
                        {"persim_version", version()},
                        {"persim_git", git_describe()}};

    if (spec.observer && res.code != EXIT_INTERRUPTED) spec.observer->on_finished(lp, res);   // checks (docs/checking.md)
    if (spec.write_files) {
        res.out_dir = spec.out_dir.empty() ? "results/runs/" + auto_name(spec, L.size) : spec.out_dir;
        std::error_code ec;
        fs::create_directories(res.out_dir, ec);
        if (ec) throw ConfigError(res.out_dir + ": cannot create output directory: " + ec.message());
        write_file_replacing(res.out_dir + "/stats.json", res.stats.dump(1) + "\n");
        json cj = spec.cfg.resolved();
        // "_run": what else made the run (a '_' key: the file loads back with --config as it is)
        cj["_run"] = {{"model", spec.model}, {"workload", spec.workload}, {"trace", spec.trace}, {"size", L.size},
                      {"sets", spec.sets}, {"config_sources", spec.cfg.sources()}};
        write_file_replacing(res.out_dir + "/config.json", cj.dump(1) + "\n");
        // The run's CSV row: with --out DIR in DIR/run.csv (nothing is written outside DIR); the
        // default folder results/runs/NAME adds it to results/runs/runs[-KIND].csv, the runs' table.
        std::string csv = !spec.csv.empty() ? spec.csv
                          : !spec.out_dir.empty()
                              ? (fs::path(res.out_dir) / "run.csv").string()
                              : (fs::path(res.out_dir).parent_path() /
                                 (kind.csv_file ? std::string(kind.csv_file) : "runs-" + std::string(kind.name) + ".csv")).string();
        std::error_code lec;
        if (spec.csv.empty() && fs::is_symlink(fs::symlink_status(csv, lec)))
            throw ConfigError(csv + ": is a symbolic link; persim does not append through one (give --csv FILE)");
        append_csv(csv, spec, res, L.size);
    }
    return res;
}

} // namespace persim
