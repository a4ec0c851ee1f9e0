// Persist-order checking of a run (docs/checking.md):
//   - conformance (persim run --check): every ordering edge the model promises (pmo.h) holds in the
//     run's durable image (durable_log.h): for W1 -> W2, W1 is durable no later than any byte of W2;
//   - requirements (persim check, `require A B` in a trace or program): is A -> B guaranteed by the
//     model's promised order (graph reachability, independent of timing), and did this run keep it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>
#include <nlohmann/json.hpp>
#include "durable_log.h"
#include "pmo.h"
#include "sim.h"

namespace persim {

struct Violation {
    uint32_t w1, w2;          // op indices: w1 is ordered before w2
    uint64_t t1, t2;          // w1 fully durable at t1 (kNever: never), first byte of w2 durable at t2
    std::string via;          // ordering points on the path from w1 to w2
};

struct RequirementResult {
    uint32_t req;             // the require op (index)
    uint32_t a, b;            // op indices (a before b)
    bool guaranteed = false;  // a -> b in the model's promised order
    bool violated = false;    // this run: some byte of b durable before all of a
    uint64_t ta = kNever, tb = kNever;
    std::string via;
};

struct CheckReport {
    bool ran = false;                 // false: the run did not complete, nothing checked
    std::string skipped;              // why not
    uint64_t persists = 0, never_durable = 0, violations = 0;
    std::vector<Violation> shown;     // the first violations (report limit)
    std::vector<RequirementResult> reqs;
    size_t nodes = 0, edges = 0, writes = 0;
    double seconds = 0;               // host time of the check (graph, durable times, checks)
    std::vector<std::string> anomalies;
    bool conformance_ok() const { return ran && violations == 0 && never_durable == 0; }
    uint64_t not_guaranteed() const;
    uint64_t reqs_violated() const;
};

// Runs the checks on a finished run.
class Checker : public RunObserver {
public:
    // requirements_fatal: a requirement that is not guaranteed fails the check (persim check);
    // otherwise only observed violations do (persim run --check).
    Checker(const Config &cfg, const std::string &model, bool requirements_fatal);
    WriteTracker *tracker() override { return &log_; }
    void on_loaded(const LoadedProgram &lp) override;
    void on_finished(const LoadedProgram &lp, RunResult &r) override;
    const CheckReport &report() const { return rep_; }
    std::string text() const { return text_; }   // human-readable report (made when the run ends)
    nlohmann::json json() const;           // stats.json "check" group (valid inside on_finished)

private:
    std::string op_str(uint32_t i) const { return describe_op(prog_, g_, i); }
    std::string explain(uint32_t a, uint32_t b);
    std::string make_text() const;
    std::string text_;
    Config cfg_;
    OrderModel model_;
    bool req_fatal_;
    const persim_prog *prog_ = nullptr;
    DurableLog log_;
    PmoGraph g_;
    CheckReport rep_;
    double build_s_ = 0;
    std::vector<uint32_t> mark_;
    uint32_t epoch_ = 0;
};

// "1.234 us" / "never"
std::string fmt_time(uint64_t ps);
// The ordering points on a path of graph nodes, e.g. "order (op 12) -> acquire (op 40) of release (op 31)".
std::string describe_path(const persim_prog *p, const PmoGraph &g, const std::vector<uint32_t> &path);

} // namespace persim
