// One simulation run: load a workload or trace, build the system, simulate, verify the final
// memory image, and write stats.json / config.json / a CSV row. SystemC elaborates once per
// process, so run_simulation() may be called once per process.
#pragma once
#include <cstdint>
#include <string>
#include <nlohmann/json.hpp>
#include "config.h"
#include "mem_proto.h"
extern "C" {
#include "op.h"
#include "workload.h"
}

namespace persim {

enum ExitCode { EXIT_OK = 0, EXIT_BAD_INPUT = 1, EXIT_STUCK = 3, EXIT_VERIFY = 4,
                EXIT_CHECK = 5 /* run --check / check / crash found a problem (docs/checking.md) */,
                EXIT_INTERRUPTED = 130 /* SIGINT / SIGTERM: the run stopped early, its stats so far written */ };

struct RunResult;
struct CrashSelect;   // system.h

// What a run simulates, as loaded (program, pristine initial image, workload and its context).
struct LoadedProgram {
    const persim_prog *prog = nullptr;     // has passed prog_validate (load_program)
    const mem_image *init = nullptr;       // the initial image before the run (do not keep: freed after)
    const persim_workload *wl = nullptr;   // nullptr for a trace
    const void *ctx = nullptr;             // the workload's context (verify, recover)
    uint64_t size = 0;                     // workload size used
};

// Optional observer of one run (persim run --check, persim check, persim crash: sc_models/check.h).
struct RunObserver {
    virtual ~RunObserver() = default;
    // Installed into the system (Top::set_tracker) when not null.
    virtual WriteTracker *tracker() { return nullptr; }
    // After the program is loaded and validated, before the simulation starts.
    virtual void on_loaded(const LoadedProgram &) {}
    // After the run and its functional check, before output files are written (may add to r.stats
    // and set r.code / r.status / r.message).
    virtual void on_finished(const LoadedProgram &, RunResult &) {}
};

struct RunSpec {
    Config cfg;
    std::string model = "sbrp";
    std::string workload;        // or trace
    std::string trace;
    std::string out_dir;         // empty: results/runs/<auto name>-<config hash>
    std::vector<std::string> sets;   // the --set KEY=VALUE arguments as given (recorded in stats.json and the CSV)
    std::string csv;             // empty: <out parent>/runs.csv
    std::string vcd;
    int log_block = -1, log_warp = -1; // --log-warp B:W: per-op timeline of that warp on stderr             // optional VCD waveform of PB occupancy / ACTR per SM
    bool write_files = true;
    bool keep_results = false;   // persim run without --force: refuse an output folder that holds a result
    bool quiet = false;
    DurableSink *sink = nullptr; // optional: sees every write as it becomes durable
    RunObserver *observer = nullptr; // optional: checker / crash driver (sc_models/check.h)
    const CrashSelect *crash_select = nullptr;  // optional: persim crash's image choice (System::set_crash_select)
    bool small = false;          // workload.size == 0: use the workload's small size, not its default
};

struct RunResult {
    int code = EXIT_OK;
    std::string status;          // "ok", "deadlock", "timeout", "verify-failed"
    std::string message;         // stuck warps / verification message
    bool verified = false;
    uint64_t sim_ps = 0;
    uint64_t cycles = 0;
    uint64_t instructions = 0;
    double host_seconds = 0;
    std::string out_dir;
    nlohmann::json stats;        // what stats.json holds
};

// Throws ConfigError for bad input (unknown model/workload, unreadable trace, bad config).
RunResult run_simulation(const RunSpec &spec);

// The checks run_simulation makes before it loads the program: the model is one of the configured
// system's, the configuration reads, the workload is one the system runs; throws ConfigError as
// run_simulation would. Builds no program and runs no SystemC (persim sweep checks every point
// with it before it runs any).
void check_run(const RunSpec &spec);

// Builds the program for a workload name (for `persim trace`); throws ConfigError.
struct persim_prog_deleter { void operator()(void *p) const; };

} // namespace persim
