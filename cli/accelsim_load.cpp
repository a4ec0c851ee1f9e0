// Accel-Sim GPU traces: the `accelsim` config table and loading (accelsim_load.h).
#include "accelsim_load.h"
#include <cstdint>
#include "config_table.h"
#include "system_cfg.h"
extern "C" {
#include "accelsim.h"
}

namespace persim {

const char *const kAccelsimNoValues =
    "not verified: an Accel-Sim trace holds no values (timing and persist order only, no recovery)";

namespace {

struct AccelsimCfg {
    uint64_t pm_base = 0;
    uint64_t pm_bytes = 0;
    std::string fence;
};

const ConfigTable<AccelsimCfg> &accelsim_table()
{
    using K = AccelsimCfg;
    static const ConfigTable<K> t =
        ConfigTable<K>("accelsim", "cli/accelsim_load.cpp")
            .num("accelsim.pm_base", PERSIM_FIELD(K, pm_base), 0, "B", 0, 9.2e18,
                 "Accel-Sim traces (docs/trace-format-accelsim.md): first trace address that is persistent memory "
                 "(a multiple of 128); global accesses in [pm_base, pm_base + pm_bytes) become PM accesses at "
                 "system.pm_base + (address - pm_base), all others volatile")
            .num("accelsim.pm_bytes", PERSIM_FIELD(K, pm_bytes), 0, "B", 0, 9.2e18,
                 "Accel-Sim traces: size of the PM address range (a multiple of 128); 0 = every address from "
                 "accelsim.pm_base up (with the default pm_base 0: all global memory is PM)")
            .choice("accelsim.fence", PERSIM_FIELD(K, fence), "scoped", {"scoped", "order"},
                    "Accel-Sim traces: how MEMBAR is lowered. scoped: MEMBAR.CTA -> pbarrier block, MEMBAR.GPU/GL/SYS "
                    "-> pbarrier device (scoped persist barriers; device scope needs every block resident); order: "
                    "every MEMBAR -> order (the warp's own persist order)");
    return t;
}

} // namespace
PERSIM_CONFIG_TABLE(accelsim_table, 120);

bool accelsim_is_trace(const std::string &path) { return accelsim_path_is_trace(path.c_str()) != 0; }

void accelsim_load(const Config &cfg, const std::string &path, trace_data *td, std::string *summary)
{
    AccelsimCfg a;
    accelsim_table().fill(cfg, a);
    accelsim_opts o;
    accelsim_default_opts(&o);
    o.pm_lo = a.pm_base;
    o.pm_bytes = a.pm_bytes;
    o.sys_pm_base = SystemCfg::from(cfg).pm_base;
    o.fence = a.fence == "order" ? ACCELSIM_FENCE_ORDER : ACCELSIM_FENCE_SCOPED;
    accelsim_counts c{};
    char err[2048] = {0};
    persim_prog *p = nullptr;
    if (accelsim_read_file(path.c_str(), &o, &p, &c, err, sizeof err) != 0) throw ConfigError(err);
    *td = trace_data{};
    td->prog = p;
    td->init = mem_new();
    if (summary) {
        *summary = "accelsim: " + std::to_string(c.kernels) + " kernels, " + std::to_string(c.blocks) + " blocks, " +
                   std::to_string(c.insts) + " instructions; PM stores " + std::to_string(c.pm_stores) +
                   ", PM loads " + std::to_string(c.pm_loads) + ", volatile stores " + std::to_string(c.vol_stores) +
                   ", volatile loads " + std::to_string(c.vol_loads) + ", atomics " + std::to_string(c.atomics) +
                   ", fences " + std::to_string(c.fences) + " (" + std::to_string(c.barriers_dropped) +
                   " lowered to order), barriers " + std::to_string(c.barriers) + ", memcpys skipped " +
                   std::to_string(c.memcpys);
    }
}

} // namespace persim
