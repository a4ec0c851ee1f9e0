// What the system kinds share (system.h): model lookup, system.kind lookup, run_system. The kinds
// themselves register in their own files (PERSIM_REGISTER, registry.h).
#include "system.h"
#include "suggest.h"
#include <chrono>
#include <csignal>
#include "system_cfg.h"

namespace persim {

bool SystemKind::has_model(const std::string &m) const
{
    for (const ModelInfo &i : models())
        if (i.name == m) return true;
    return false;
}

std::string SystemKind::model_list() const
{
    std::string all;
    for (const ModelInfo &i : models()) all += (all.empty() ? "" : ", ") + i.name;
    return all;
}

void SystemKind::require_model(const std::string &m) const
{
    if (has_model(m)) return;
    std::vector<std::string> names;
    for (const ModelInfo &i : models()) names.push_back(i.name);
    std::string other;
    for (auto *k : all_systems())
        if (k != this && k->has_model(m))
            other = std::string("; '") + m + "' runs on system.kind " + k->name + " (set system.kind, e.g. --config configs/" +
                    k->name + "_small.json)";
    throw ConfigError("unknown model '" + m + "' for system.kind " + name + did_you_mean(m, names) + " (available: " +
                      model_list() + ")" + other);
}

void check_model_known(const std::string &m, const std::string &what)
{
    std::string all;
    for (auto *k : all_systems()) {
        if (k->has_model(m)) return;
        all += std::string(all.empty() ? "" : "; ") + k->name + ": " + k->model_list();
    }
    throw ConfigError(what + "unknown model '" + m + "' (available: " + all + ")");
}

OrderModel order_model_of(const Config &c, const std::string &model)
{
    const SystemKind &k = system_of(c);
    k.require_model(model);
    if (!k.order_model)
        throw ConfigError(std::string("system.kind ") + k.name + ": its models have no persist-order graph (it checks its own "
                          "persist order during a run: sim.crash_check)");
    return k.order_model(model);
}

const SystemKind &system_of(const Config &c)
{
    const std::string n = SystemCfg::from(c).kind;
    if (const SystemKind *k = find_system(n)) return *k;
    std::string all;
    for (auto *k : all_systems()) all += std::string(all.empty() ? "" : ", ") + k->name;
    throw ConfigError("system.kind: unknown system '" + n + "' (available: " + all + ")");
}

} // namespace persim

namespace persim {

namespace {
volatile std::sig_atomic_t g_signal = 0;   // the signal that asked the run to stop (async-signal-safe)
extern "C" void on_interrupt(int sig) { g_signal = sig; }
} // namespace

void install_interrupt_handlers()
{
    struct sigaction sa {};   // sa_flags 0: no SA_RESTART (a sweep's waitpid returns EINTR)
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
}

int interrupt_signal() { return (int)g_signal; }

RunOutcome run_system(System &s, uint64_t limit_ps, int64_t progress_ms, const std::function<void(double)> &progress)
{
    using clock = std::chrono::steady_clock;
    const auto host0 = clock::now();
    auto last_print = host0;
    const uint64_t slice_ps = 20'000'000;      // 20 us of simulated time between checks
    RunOutcome r;
    while (!s.finished()) {
        sc_core::sc_start(sc_core::sc_time((double)slice_ps, sc_core::SC_PS));
        if (s.finished()) break;
        if (g_signal) {
            r.kind = RunOutcome::INTERRUPTED;
            r.message = std::string("interrupted by ") + (g_signal == SIGTERM ? "SIGTERM" : "SIGINT") + " at " +
                        std::to_string(now_ps() / 1000) + " ns simulated";
            break;
        }
        if (!sc_core::sc_pending_activity()) {
            r.kind = RunOutcome::DEADLOCK;
            r.message = "simulated deadlock at " + std::to_string(now_ps() / 1000) + " ns: no event can make progress\n" +
                        s.describe_stuck();
            break;
        }
        if (now_ps() >= limit_ps) {
            r.kind = RunOutcome::TIME_LIMIT;
            r.message = "run did not finish within sim.max_time_ms = " + std::to_string(limit_ps / 1e9) +
                        " ms of simulated time\n" + s.describe_stuck();
            break;
        }
        const auto now = clock::now();
        if (progress && progress_ms > 0 &&
            std::chrono::duration_cast<std::chrono::milliseconds>(now - last_print).count() >= progress_ms) {
            progress(std::chrono::duration<double>(now - host0).count());
            last_print = now;
        }
    }
    r.sim_ps = s.finished() ? s.finish_ps() : now_ps();
    return r;
}

} // namespace persim
