// Registry of the cpu system's persistency models (cpu_model.h).
#include "cpu_model.h"

namespace persim {

const std::vector<const CpuModel *> &all_cpu_models()
{
    static const std::vector<const CpuModel *> v = {
        &kCpuNone, &kCpuLightwsp, &kCpuPpa, &kCpuCapri, &kCpuPsp, &kCpuLightwspUngated,
        &kCpuBroi, &kCpuBroiEpoch, &kCpuBroiEpoch1q, &kCpuBroiNodeps,
    };
    return v;
}

const CpuModel *find_cpu_model(const std::string &name)
{
    for (auto *m : all_cpu_models())
        if (name == m->name) return m;
    return nullptr;
}

} // namespace persim
