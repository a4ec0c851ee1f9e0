#include "top.h"
#include <cmath>
#include <string>

namespace persim {
using namespace sc_core;

Top::Top(sc_module_name n, const Config &c, const PersistModel *model, const persim_prog *prog, mem_image *backing)
    : sc_module(n)
{
    period_ps = (uint64_t)std::llround(1e6 / c.f("gpu.clock_mhz"));
    gpu = new Gpu("gpu", c, model, prog, backing);
    dram = new DramMc("dram", c, backing);
    const uint32_t nc = (uint32_t)c.i("nvm.controllers");
    router = new PmRouter("pm_router", nc, (uint32_t)c.i("l1.line_bytes"));
    for (uint32_t i = 0; i < nc; ++i) nvm.push_back(new NvmMc(("nvm" + std::to_string(i)).c_str(), c, backing, nc));
    gpu->l2->dram_isock.bind(dram->tsock);
    if (c.s("system.pm_placement") == "far") {
        pcie = new Pcie("pcie", c);
        gpu->l2->pm_isock.bind(pcie->tsock);
        pcie->isock.bind(router->tsock);
    } else {
        gpu->l2->pm_isock.bind(router->tsock);
    }
    for (uint32_t i = 0; i < nc; ++i) router->isocks[i]->bind(nvm[i]->tsock);
}

Top::~Top()
{
    delete gpu;
    delete dram;
    delete pcie;
    delete router;
    for (auto *m : nvm) delete m;
}

void Top::set_durable_sink(DurableSink *s)
{
    for (auto *m : nvm) m->set_durable_sink(s);
}

void Top::set_tracker(WriteTracker *t)
{
    gpu->set_tracker(t);
    set_durable_sink(t);
}

void Top::report(StatsWriter &w, uint64_t sim_ps)
{
    gpu->report(w, sim_ps);
    dram->report(w, sim_ps);
    if (pcie) pcie->report(w, sim_ps);
    for (auto *m : nvm) m->report(w, sim_ps);
}

} // namespace persim
