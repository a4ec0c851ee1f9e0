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

// Which crash images a system that checks its own persistent state (SystemKind::self_check_report;
// the cpu system's sim.crash_check) tries, for persim crash (docs/checking.md). Not set (run, check):
// every distinct durable image of the run, nothing else.
struct CrashSelect {
    bool model_images = false;    // --images model: targeted images (and random samples) the model allows
    bool all = true;              // every distinct run image (--points all, the cpu default)
    uint64_t points = 100;        // otherwise: this many (run images: distinct instants; model: random samples)
    uint64_t seed = 1;            // picks the points / samples (not the workload input)
    int64_t at_ps = -1;           // --at PS: the run image at that instant only
    int64_t sample = -1;          // --sample K: only the K-th random model image
    int64_t target = -1;          // --target K: only the K-th targeted model image (0-based)
};

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
    // persim crash on a system that checks its own persistent state: which images (before the run).
    virtual void set_crash_select(const CrashSelect &) {}
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
    enum Kind { FINISHED, DEADLOCK, TIME_LIMIT, INTERRUPTED } kind = FINISHED;
    std::string message;      // DEADLOCK / TIME_LIMIT: what happened and the stuck requesters;
                              // INTERRUPTED: the signal and the time the run stopped
    uint64_t sim_ps = 0;      // finish time, or the time the run stopped
};
RunOutcome run_system(System &s, uint64_t limit_ps, int64_t progress_ms,
                      const std::function<void(double host_s)> &progress);
// SIGINT / SIGTERM end a run at the next safe point (between two slices of simulated time, at most
// 20 us apart) as INTERRUPTED, so its stats so far can be written: install_interrupt_handlers() sets
// them up (the command line does, for run and check); interrupt_signal() is the signal received, 0
// if none.
void install_interrupt_handlers();
int interrupt_signal();

// A persistency model a system kind runs (persim run --model NAME).
struct ModelInfo {
    std::string name, desc;
};

// What an ordering op of a program means for the persist-memory order a model promises
// (docs/checking.md "Derived orders"): the vocabulary the persist-order graph of persim check /
// run --check / crash --images model is built from (cli/pmo.cpp). A system kind whose models are
// checked this way translates each model's lowering into it (SystemKind::order_model).
enum class OrderAct : uint8_t {
    FENCE,          // the stream's earlier persists are ordered before its later ones
    DURABLE,        // a durability point: the stream's earlier persists are durable before it goes on
    RELEASE_BLOCK,  // FENCE, and the release flag written next is a block-scope release
    RELEASE_DEVICE, // DURABLE, and the release flag written next is a device-scope release
    ACQUIRE_BLOCK,  // a block-scope acquire of the flag just read (if the scopes meet), then FENCE
    ACQUIRE_DEVICE, // the same at device scope
    FLAG_STORE,     // writes the release flag (op.addr, op.val)
    FLAG_WAIT,      // reads a flag (op.addr): finds the release that wrote the value waited for
    SYNC,           // execution barrier at op.scope
};
constexpr int kMaxOrderActs = 8;
struct OrderModel {
    std::string name;
    // The acts of one op other than ST, LD, COMPUTE and REQUIRE, in order; returns how many.
    std::function<int(const persim_op &op, OrderAct out[kMaxOrderActs])> acts;
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

    // ---- optional hooks of the command-line tools (nullptr: the default named) ----
    // Rewrites a loaded program as the configuration asks, before validate (nullptr: none).
    void (*transform)(const Config &c, persim_prog *p) = nullptr;
    // The persist order `model` promises, for the persist-order graph (persim check, run --check,
    // crash with the workload's recovery). nullptr: this system checks its own persist order during
    // a run (sim.crash_check; persim check/crash report its region_check / bsp_check figures).
    OrderModel (*order_model)(const std::string &model) = nullptr;
    // The lines persim run prints after "simulated time" (nullptr: every csv_columns() figure with
    // its unit, then the host time). summary: stats.json's "summary" group.
    std::string (*run_summary)(const nlohmann::json &summary, double host_seconds, double instructions) = nullptr;
    // The CSV a run appends to beside its run directory when --csv is not given (nullptr:
    // "runs-<name>.csv").
    const char *csv_file = nullptr;
    // What System::instructions() counts, for rates ("instructions", "warp instructions").
    const char *instr_unit = "instructions";
    // The workload groups (workloads/workload.h wl_group: bit 1 << group) this system runs, for
    // messages that list workloads (0: every group).
    unsigned workload_groups = 0;
    // A system without an order model: what its own check of a run (sim.crash_check) found, from
    // the run's stats.json, as report lines appended to `text`; returns the number of violations
    // (persim check / crash exit 5 when > 0). nullptr: the system checks nothing.
    double (*self_check_report)(const nlohmann::json &stats, const std::string &model, std::string &text) = nullptr;

    bool has_model(const std::string &m) const;
    std::string model_list() const;    // "a, b, c"
    // Throws ConfigError unless this system runs model `m`: did-you-mean, this system's models, and
    // the system that runs `m` when another one does (the same message for run, check and crash).
    void require_model(const std::string &m) const;
};

// Every system kind registers itself in its file: PERSIM_REGISTER(SystemKind, "name", kind, order).
inline const std::vector<const SystemKind *> &all_systems() { return Registry<SystemKind>::all(); }
inline const SystemKind *find_system(const std::string &name) { return Registry<SystemKind>::find(name); }  // nullptr if unknown
// The kind named by c.s("system.kind"); throws ConfigError naming the key if unknown.
const SystemKind &system_of(const Config &c);
// Throws ConfigError if no system kind runs model `m` (for inputs checked before a system is chosen,
// e.g. a sweep's model list); lists every model of every system.
void check_model_known(const std::string &m, const std::string &what);
// The persist order `model` promises on the system c names (SystemKind::order_model); throws
// ConfigError if that system has no order model or does not know the model.
OrderModel order_model_of(const Config &c, const std::string &model);

} // namespace persim
