// The registry of system kinds (config key system.kind). Adding a system: its files behind the
// System interface (system.h) and one line here.
#include "system.h"
#include "system_cfg.h"
#include "gpu_system.h"
#include "write_queue.h"
#include "direct_fe.h"
#include "adr_wpq_fe.h"
#include "wpq_gate_fe.h"
#include "broi_sched_fe.h"

namespace persim {

const std::vector<const SystemKind *> &all_systems()
{
    static const std::vector<const SystemKind *> v = {
        &GpuSystem::kind,
    };
    return v;
}

const SystemKind *find_system(const std::string &name)
{
    for (auto *k : all_systems())
        if (name == k->name) return k;
    return nullptr;
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

// Write-queue front ends of the memory controllers (nvm.front_end; write_queue.h).
const std::vector<const WriteQueueKind *> &all_write_queues()
{
    static const std::vector<const WriteQueueKind *> v = {
        &kDirectFe,
        &kAdrWpqFe,
        &kWpqGateFe,
        &kBroiSchedFe,
    };
    return v;
}

const WriteQueueKind *find_write_queue(const std::string &name)
{
    for (auto *k : all_write_queues())
        if (name == k->name) return k;
    return nullptr;
}

} // namespace persim
