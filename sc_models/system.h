// A simulated system (docs/architecture.md): the interface every system kind implements and the
// registry that picks one by the config key system.kind. The command-line tools (cli/: run,
// check, crash, sweep, trace) talk only to this interface; a new system adds files behind it and
// registers its SystemKind there with one line (PERSIM_REGISTER, registry.h).
//
// A System is the root SystemC module of a run (instance name "top"): it elaborates itself from a
// Config, runs the loaded program until it has finished, reports its stuck requesters when the run
// cannot finish, and writes its statistics. Requesters (GPU warps, CPU hardware threads) are named
// by a requester id (MemExt::requester); persistent writes reach the durable-write sink with it.
#pragma once
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>
#include <systemc>
#include "config.h"
#include "mem_proto.h"
#include "registry.h"
#include "stats.h"
extern "C" {
#include "mem_image.h"
#include "op.h"
#include "workload.h"
}

namespace persim {

struct PersistModel;

class System {
public:
    virtual ~System() = default;

    // ---- running ----
    virtual bool finished() const = 0;
    virtual uint64_t finish_ps() const = 0;              // valid once finished()
    virtual uint64_t period_ps() const = 0;              // requester clock period (cycle figures)
    virtual uint64_t instructions() const = 0;           // instructions retired so far
    virtual std::string progress_line() const = 0;       // one line for the progress report
    // Every requester that has not finished and what it waits for (deadlock / time-limit reports).
    virtual std::string describe_stuck() const = 0;
    // The run ended in a simulated power failure (sim.power_fail_ns): the program did not finish, so
    // its result is not verified; the persistent state is what the crash check looks at.
    virtual bool power_failed() const { return false; }

    // ---- observers ----
    // Sees every write as it becomes durable (the persistence domain calls it in arrival order).
    virtual void set_durable_sink(DurableSink *s) = 0;
    // Follows every PM store to the persistence domain (docs/checking.md); also its durable sink.
    virtual void set_tracker(WriteTracker *t) = 0;
    // Optional per-requester op timeline (persim run --log-warp B:W) and VCD waveforms.
    virtual void set_log(std::FILE *, uint32_t /*group*/, uint32_t /*member*/) {}
    virtual void trace(sc_core::sc_trace_file *) {}

    // ---- end of run ----
    // Writes every dirty byte still held in caches into `img` (untimed), for the functional check.
    virtual void drain_functional(mem_image *img) = 0;
    // Every figure of every block, plus the "summary" group (sim_ns and what the CSV row reads).
    virtual void report(StatsWriter &w, uint64_t sim_ps) = 0;
};

// Runs a system to completion or a limit (sc_start in slices of simulated time). Between slices:
// no pending event while unfinished = a simulated deadlock; simulated time >= limit_ps = the time
// limit; both report describe_stuck(). `progress` (may be empty) is called every progress_ms of host
// time (0: never) with the host seconds so far.
struct RunOutcome {
    enum Kind { FINISHED, DEADLOCK, TIME_LIMIT } kind = FINISHED;
    std::string message;      // DEADLOCK / TIME_LIMIT: what happened and the stuck requesters
    uint64_t sim_ps = 0;      // finish time, or the time the run stopped
};
RunOutcome run_system(System &s, uint64_t limit_ps, int64_t progress_ms,
                      const std::function<void(double host_s)> &progress);

// A persistency model a system kind runs (persim run --model NAME).
struct ModelInfo {
    std::string name, desc;
};

// One registered system kind.
struct SystemKind {
    const char *name;                // value of system.kind
    const char *desc;
    // Workload generator parameters this system gives (thread organisation, address map).
    void (*workload_params)(const Config &c, wl_params *prm);
    // Resource checks of a loaded program against the configuration; throws ConfigError.
    void (*validate)(const Config &c, const persim_prog *p);
    // The persistency models this system runs (its plug-ins), in listing order.
    std::vector<ModelInfo> (*models)();
    // Elaborates the system as SystemC module "top" running persistency model `model` (one of
    // models(); throws ConfigError naming the model otherwise).
    std::unique_ptr<System> (*make)(const Config &c, const std::string &model, const persim_prog *prog,
                                    mem_image *backing);
    // The "summary" figures a CSV row of this system holds (persim run --csv, sweeps), in order.
    std::vector<std::string> (*csv_columns)();
    bool has_model(const std::string &m) const;
    std::string model_list() const;    // "a, b, c"
};

// Every system kind registers itself in its file: PERSIM_REGISTER(SystemKind, "name", kind, order).
inline const std::vector<const SystemKind *> &all_systems() { return Registry<SystemKind>::all(); }
inline const SystemKind *find_system(const std::string &name) { return Registry<SystemKind>::find(name); }  // nullptr if unknown
// The kind named by c.s("system.kind"); throws ConfigError naming the key if unknown.
const SystemKind &system_of(const Config &c);
// Throws ConfigError if no system kind runs model `m` (for inputs checked before a system is chosen,
// e.g. a sweep's model list); lists every model of every system.
void check_model_known(const std::string &m, const std::string &what);

} // namespace persim
