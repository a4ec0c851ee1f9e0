// persim crash (docs/checking.md "Crash injection"): simulate a workload once, recording its
// durable image; then for each crash point build the durable image, run the workload's recovery
// (persim_workload::recover) and the rest of the work with the functional executor, and check the
// result with the workload's own verification.
//
// Crash points are either the run's own durable images (--images run, default: the image changes
// only when a write becomes durable, so `--points all` tries each distinct image once), or images
// the persistency model allows at a random instant of the run (--images model): a random set of the
// stores performed by then, closed downwards under the model's promised order (pmo.h), plus
// everything a completed durability point (dFence, barrier, kernel end) covers; each location holds
// its coherence-latest value among the chosen stores. Before the samples, --images model tries one
// targeted image per `require A B` the model does not guarantee (docs/checking.md): at the instant
// B was performed, the most durable image the model allows in which B is durable and A is not.
#pragma once
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>
#include "durable_log.h"
#include "pmo.h"
#include "sim.h"

namespace persim {

struct CrashOptions {
    uint64_t points = 100;        // crash points to try (0 with all = every distinct image)
    bool all = false;             // --points all
    uint64_t seed = 1;            // picks the points / samples
    bool model_images = false;    // --images model
    int64_t at_ps = -1;           // --at PS: one crash instant (run images)
    int64_t sample = -1;          // --sample K: one model-image sample (with --seed)
    int64_t target = -1;          // --target K: only the K-th targeted model image
    std::string replay;           // command line prefix for the replay hint
    // --time-recovery (docs/checking.md "Timed recovery"): time the recovery kernels of one point
    bool time_recovery = false;
    bool worst = false;           // --worst: the tried point whose recovery kernels do the most work
    std::string out_dir;          // the recovery trace and the timed child run go here
    std::vector<std::string> child_args;   // --config/--set arguments for the child `persim run`
};

// What the recovery kernels of a crash point do ("work": 4-byte PM words loaded plus stored by
// the kernels whose names contain WL_RECOVERY_TAG, workloads/workload.h).
struct RecoveryWork {
    uint64_t kernels = 0, load_words = 0, store_words = 0;
    uint64_t words() const { return load_words + store_words; }
};

class CrashDriver : public RunObserver {
public:
    CrashDriver(const Config &cfg, const std::string &model, const CrashOptions &o);
    WriteTracker *tracker() override { return &log_; }
    void on_loaded(const LoadedProgram &lp) override;
    void on_finished(const LoadedProgram &lp, RunResult &r) override;
    std::string text() const { return text_; }
    uint64_t tried() const { return tried_; }
    uint64_t recovered() const { return recovered_; }

private:
    // Recovers from `durable`; "" on success, else what went wrong.
    std::string try_image(const LoadedProgram &lp, const mem_image *durable, RecoveryWork *work = nullptr);
    // Writes the recovery kernels of `durable` as a trace and times them in a child `persim run`.
    void time_recovery(const LoadedProgram &lp, const mem_image *durable, uint64_t t_ps, size_t index,
                       size_t nimages, RunResult &r, std::ostringstream &o);
    mem_image *model_image(uint64_t k, uint64_t end_ps, uint64_t *tau, double *q, size_t *nstores);
    // The targeted image of requirement `a` before `b` (op indices): false if the run's timing
    // guarantees a (a durability point that covers it completed before b was performed) or b was
    // never performed; else the chosen stores (perform order), the crash instant, and whether a
    // durability point covering a completed at that same instant (left out: a tie is no order).
    bool target_stores(uint32_t a, uint32_t b, std::vector<uint32_t> &chosen, uint64_t *tau, bool *tie);

    // on_finished's pieces (crash.cpp): the tally of tried points, the option checks, the three
    // kinds of crash images, and the report.
    struct Tally;
    void record(Tally &t, uint64_t index, const std::string &where, const std::string &bad, const std::string &again);
    void check_point_options(uint64_t end) const;
    std::vector<size_t> pick_run_images();
    void try_run_images(const LoadedProgram &lp, RunResult &r, Tally &t);
    void try_targeted_images(const LoadedProgram &lp, Tally &t);
    void try_sampled_images(const LoadedProgram &lp, uint64_t end, Tally &t);
    void report(const LoadedProgram &lp, RunResult &r, const Tally &t, uint64_t end, double secs);

    Config cfg_;
    OrderModel model_;
    CrashOptions o_;
    DurableLog log_;
    PmoGraph g_;
    std::vector<uint32_t> mark_;
    uint32_t epoch_ = 0;
    std::string text_;
    uint64_t tried_ = 0, recovered_ = 0;
};

} // namespace persim
