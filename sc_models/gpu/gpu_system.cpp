#include "gpu_system.h"
#include "config_table.h"
#include <algorithm>
#include <cmath>
#include <string>

namespace persim {
using namespace sc_core;

GpuSystem::GpuSystem(sc_module_name n, const Config &c, const PersistModel *model, const persim_prog *prog,
                     mem_image *backing)
    : sc_module(n)
{
    gpu = std::make_unique<Gpu>("gpu", c, model, prog, backing);
    period_ps_ = gpu->cfg().period_ps;
    dram = std::make_unique<MemCtrl>("dram", c, MemCtrlCfg::dram(c), backing);
    pm = std::make_unique<PmControllers>(c, backing);
    // The L1s take late acknowledgements (through the crossbar, and PCIe when far); PM lines that a
    // model keeps write-back in the L2 are written back by the L2, which does not.
    if (pm->late_acks && gpu->persist().l2_pm_write_back())
        throw ConfigError("nvm.front_end: '" + pm->front_end + "' acknowledges writes late, but model '" +
                          model->name + "' writes PM lines back from the L2, which takes only immediate "
                          "acknowledgements (use adr_wpq or direct with this model)");
    gpu->l2->dram_isock.bind(dram->tsock);
    if (gpu->cfg().sys.pm_far) {
        pcie = std::make_unique<Pcie>("pcie", c);
        gpu->l2->pm_isock.bind(pcie->tsock);
        pcie->isock.bind(pm->router->tsock);
    } else {
        gpu->l2->pm_isock.bind(pm->router->tsock);
    }
}

void GpuSystem::set_durable_sink(DurableSink *s)
{
    pm->set_durable_sink(s);
}

void GpuSystem::set_tracker(WriteTracker *t)
{
    gpu->set_tracker(t);
    set_durable_sink(t);
}

void GpuSystem::set_log(std::FILE *f, uint32_t block, uint32_t warp)
{
    for (auto *s : gpu->sms) s->set_log(f, block, warp);
}

void GpuSystem::trace(sc_trace_file *tf)
{
    for (auto *s : gpu->sms) s->l1->trace(tf);
}

void GpuSystem::report(StatsWriter &w, uint64_t sim_ps)
{
    gpu->report(w, sim_ps);
    dram->report(w, sim_ps);
    if (pcie) pcie->report(w, sim_ps);
    pm->report(w, sim_ps);
    summarize(w, sim_ps);
}

void GpuSystem::summarize(StatsWriter &w, uint64_t sim_ps) const
{
    const std::string g = "summary";
    const double cycles = (double)sim_ps / (double)period_ps_;
    const double instr = w.sum("top.gpu.sm", "", "warp_instructions");
    w.add(g, "sim_ns", sim_ps / 1000.0, "ns", "simulated time until the last kernel drained");
    w.add(g, "gpu_cycles", std::floor(cycles), "cycles", "simulated SM clock cycles");
    w.add(g, "warp_instructions", instr, "instructions", "warp instructions executed");
    w.add(g, "ipc", cycles > 0 ? instr / cycles : 0, "instructions/cycle", "GPU-wide warp instructions per cycle");
    w.add(g, "pm_stores", w.sum("top.gpu.sm", ".l1", "pm_stores"), "line writes", "PM writes issued by warps (per line)");
    w.add(g, "pm_flushes", w.sum("top.gpu.sm", ".l1", "pm_flushes"), "lines", "PM lines written back from L1 (persists sent)");
    w.add(g, "persisted_writes", w.sum("top.nvm", "", "persisted_writes"), "writes", "writes that reached the persistence domain");
    w.add(g, "nvm_write_bytes", w.sum("top.nvm", "", "write_bytes"), "B", "bytes written to NVM");
    w.add(g, "nvm_read_bytes", w.sum("top.nvm", "", "read_bytes"), "B", "bytes read from NVM");
    double sec = sim_ps * 1e-12;
    w.add(g, "nvm_write_bw", sec > 0 ? w.sum("top.nvm", "", "write_bytes") / sec / 1e9 : 0, "GB/s", "average NVM write bandwidth");
    w.add(g, "nvm_read_bw", sec > 0 ? w.sum("top.nvm", "", "read_bytes") / sec / 1e9 : 0, "GB/s", "average NVM read bandwidth");
    w.add(g, "l1_pm_read_misses", w.sum("top.gpu.sm", ".l1", "pm_read_misses"), "line accesses", "L1 read misses for PM data");
    for (const char *r : {"edm", "odm", "pb_full", "barrier", "acquire", "sync", "mem"})
        w.add(g, std::string("stall_") + r + "_cycles", w.sum("top.gpu.sm", "", std::string("stall_") + r + "_cycles"),
              "warp-cycles", std::string("warp cycles stalled on ") + r + ", all SMs");
    if (pcie) {
        w.add(g, "pcie_down_bytes", w.get("top.pcie", "down_wire_bytes"), "B", "bytes sent GPU -> host over PCIe");
        w.add(g, "pcie_up_bytes", w.get("top.pcie", "up_wire_bytes"), "B", "bytes sent host -> GPU over PCIe");
    }
}

// ---- registration -----------------------------------------------------------------------------

namespace {

// workload.btree_wgs_est: a parameter of the GPU workloads (wl_params), set where the gpu system
// gives its workloads their parameters.
const ConfigTable<wl_params> &gpu_workload_table()
{
    using K = wl_params;
    static const ConfigTable<K> t =
        ConfigTable<K>("gpu workload", "sc_models/gpu/gpu_system.cpp")
            .num("workload.btree_wgs_est", PERSIM_FIELD(K, btree_wgs_est), 0, "workgroups", 0, 4294967295.0,
                 "btree-wg, btree-wg-log, btree-wg-wi-bug: Algorithm 2's n_wgs_est (scoped-barriers paper, section 5.1, "
                 "lines 2-5), which sets the depth d of the workgroup-scope phase: the shallowest tree level with at least "
                 "this many nodes, one workgroup per node there (0 = the paper's rule: inserted keys / 256)");
    return t;
}
} // namespace
PERSIM_CONFIG_TABLE(gpu_workload_table, 110);
namespace {

void gpu_workload_params(const Config &c, wl_params *prm)
{
    const GpuCfg g = GpuCfg::from(c);
    prm->num_sms = g.num_sms;
    prm->max_threads_per_block = g.max_threads_per_block;
    prm->max_warps_per_sm = g.max_warps_per_sm;
    gpu_workload_table().fill(c, *prm);
}

// Resource checks against the GPU configuration.
void gpu_validate(const Config &c, const persim_prog *p)
{
    const GpuCfg g = GpuCfg::from(c);
    const uint32_t maxw = g.max_warps_per_sm;
    for (uint32_t k = 0; k < p->nkernels; ++k) {
        const persim_kernel &K = p->kernels[k];
        if (K.warps_per_block > maxw || K.warps_per_block * 32 > (uint64_t)g.max_threads_per_block)
            throw ConfigError("kernel '" + std::string(K.name) + "': " + std::to_string(K.warps_per_block) +
                              " warps per block exceed gpu.max_warps_per_sm / gpu.max_threads_per_block");
        bool grid_sync = false;
        for (uint64_t st = K.first_stream; st < K.first_stream + (uint64_t)K.nblocks * K.warps_per_block; ++st)
            for (uint64_t o = p->streams[st].begin; o < p->streams[st].end; ++o)
                grid_sync |= (p->ops[o].kind == OPK_SYNC || p->ops[o].kind == OPK_PBARRIER) &&
                             p->ops[o].scope >= SCOPE_DEVICE;   // p_barrier_kr waits for the whole kernel
        if (grid_sync) {
            uint64_t per_sm = std::min<uint64_t>(maxw / K.warps_per_block, (uint64_t)g.max_blocks_per_sm);
            if ((uint64_t)K.nblocks > per_sm * (uint64_t)g.num_sms)
                throw ConfigError("kernel '" + std::string(K.name) + "' uses a grid-wide sync but its " +
                                  std::to_string(K.nblocks) + " blocks cannot all be resident");
        }
    }
}

std::vector<ModelInfo> gpu_models()
{
    std::vector<ModelInfo> v;
    for (auto *m : all_models()) v.push_back(ModelInfo{m->name, m->desc});
    return v;
}

std::vector<std::string> gpu_csv_columns()
{
    return {"sim_ns", "gpu_cycles", "warp_instructions", "pm_stores", "pm_flushes", "persisted_writes", "nvm_write_bytes",
            "nvm_read_bytes", "l1_pm_read_misses", "stall_edm_cycles", "stall_odm_cycles", "stall_barrier_cycles"};
}

std::unique_ptr<System> gpu_make(const Config &c, const std::string &model, const persim_prog *prog, mem_image *backing)
{
    const PersistModel *m = find_model(model);
    if (!m) throw ConfigError("unknown model '" + model + "' for system.kind gpu (available: " + GpuSystem::kind.model_list() + ")");
    return std::make_unique<GpuSystem>("top", c, m, prog, backing);
}

// persist.promote_block_scope: block-scope acquires/releases run at device scope (SBRP Figure 7).
void gpu_transform(const Config &c, persim_prog *p)
{
    if (SystemCfg::from(c).promote_block_scope) promote_block_scope(p);
}

OrderModel gpu_order_model(const std::string &model)
{
    const PersistModel *m = find_model(model);
    if (!m) throw ConfigError("unknown model '" + model + "'");
    return OrderModel{m->name, [m](const persim_op &op, OrderAct out[kMaxOrderActs]) { return order_acts(*m, op, out); }};
}

std::string gpu_run_summary(const nlohmann::json &sm, double host_seconds, double instructions)
{
    auto v = [&](const char *k) { return sm.contains(k) ? sm[k]["value"].get<double>() : 0.0; };
    char b[1024];
    std::string s;
    std::snprintf(b, sizeof b, "  warp instructions %.0f (IPC %.2f)\n", v("warp_instructions"), v("ipc"));
    s += b;
    std::snprintf(b, sizeof b, "  PM writes         %.0f issued, %.0f flushed, %.0f persisted\n", v("pm_stores"),
                  v("pm_flushes"), v("persisted_writes"));
    s += b;
    std::snprintf(b, sizeof b, "  NVM               %.2f GB/s write, %.2f GB/s read\n", v("nvm_write_bw"), v("nvm_read_bw"));
    s += b;
    std::snprintf(b, sizeof b, "  L1 PM read misses %.0f\n", v("l1_pm_read_misses"));
    s += b;
    std::snprintf(b, sizeof b, "  stalls (warp-cyc) edm %.0f  odm %.0f  barrier %.0f  acquire %.0f  pb_full %.0f\n",
                  v("stall_edm_cycles"), v("stall_odm_cycles"), v("stall_barrier_cycles"), v("stall_acquire_cycles"),
                  v("stall_pb_full_cycles"));
    s += b;
    std::snprintf(b, sizeof b, "  host time         %.2f s (%.2f M warp-instr/s)\n", host_seconds,
                  host_seconds > 0 ? instructions / host_seconds / 1e6 : 0.0);
    s += b;
    return s;
}

SystemKind make_gpu_kind()
{
    SystemKind k{"gpu", "GPU: SMs with L1s, crossbar, banked L2, GDDR, NVM near or behind PCIe",
                 gpu_workload_params, gpu_validate, gpu_models, gpu_make, gpu_csv_columns};
    k.transform = gpu_transform;
    k.order_model = gpu_order_model;
    k.run_summary = gpu_run_summary;
    k.csv_file = "runs.csv";
    k.instr_unit = "warp instructions";
    k.workload_groups = (1u << WL_GPU) | (1u << WL_VARIANT) | (1u << WL_AGPM) | (1u << WL_AGPM_NOLOG);
    return k;
}

} // namespace

const SystemKind GpuSystem::kind = make_gpu_kind();
PERSIM_REGISTER(SystemKind, "gpu", GpuSystem::kind, 10);

} // namespace persim
