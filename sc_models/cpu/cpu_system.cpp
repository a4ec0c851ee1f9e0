#include "cpu_system.h"
#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

namespace persim {
using namespace sc_core;

CpuSystem::CpuSystem(sc_module_name n, const Config &c, const CpuModel &m, const persim_prog *prog, mem_image *backing)
    : sc_module(n), cc_(c), cfg_(CpuCfg::from(cc_)), model_(m), prog_(prog), img_(backing),
      persistence_(m.persistence(CpuPersistEnv{cc_, cfg_, m, backing})), pm_img_(mem_clone(backing), mem_free)
{
    pm_ = std::make_unique<PmControllers>(cc_, pm_img_.get(), &m.front_end);
    l2_ = std::make_unique<CpuL2>("l2", cfg_);
    if (m.dram_cache && cfg_.use_dram_cache) {
        dram_ = std::make_unique<MemCtrl>("dram", cc_, MemCtrlCfg::dram(cc_), pm_img_.get());
        dc_ = std::make_unique<DramCache>("dram_cache", cfg_, m.drop_llc_evictions);
        l2_->isock.bind(dc_->tsock);
        dc_->dram_isock.bind(dram_->tsock);
        dc_->pm_isock.bind(pm_->router->tsock);
    } else {
        l2_->isock.bind(pm_->router->tsock);
        l2_->drop_dirty = m.drop_llc_evictions;
    }
    std::shared_ptr<L1Port> l1;
    for (uint32_t i = 0; i < cfg_.cores + cfg_.rdma_channels; ++i) {
        const bool remote = i >= cfg_.cores;      // RDMA channels of remote clients (BROI V)
        const std::string nm = remote ? "rdma" + std::to_string(i - cfg_.cores) : "core" + std::to_string(i);
        // hardware threads i, i+1, ... of one core share its L1 (remote channels use none)
        if (remote || i % cfg_.threads_per_core == 0) l1 = std::make_shared<L1Port>(cfg_.l1);
        cores_.push_back(std::make_unique<CpuCore>(nm.c_str(), i, cfg_, *persistence_, *pm_, *this, l1, remote));
        cores_.back()->l2_isock.bind(l2_->tsock);
    }
    l2_->back_invalidate = [this](uint64_t line) {
        bool d = false;
        for (auto &c : cores_) d = c->invalidate(line) || d;
        return d;
    };
    if (dc_) l2_->warm_below = dc_.get();
    warm_up();
    skip_prefixes();
    tee_.a = persistence_->checker();
    pm_->set_durable_sink(&tee_);
    SC_METHOD(start_kernel);
    sensitive << start_ev_;
    SC_METHOD(power_fail_method);
    sensitive << pf_ev_;
    dont_initialize();
    if (cfg_.power_fail_ps) pf_ev_.notify(ps(cfg_.power_fail_ps));
}

CpuSystem::~CpuSystem() = default;

void CpuSystem::set_durable_sink(DurableSink *s) { tee_.b = s; }

// Functional warming (sim.warmup = f > 0; docs/models/lightwsp.md "Warm-up"): before the timed run,
// the memory accesses of the first ceil(f * n) ops of each thread's stream (n ops), kernel by
// kernel, are replayed into the caches: the threads take turns, one memory op each, so the shared L2
// and DRAM cache see them interleaved. A load or store touches each line of its lanes once (as the
// timed run does), an acquire reads and a release writes its flag. Only tags and LRU order change;
// lines are installed clean (the warm phase's writes count as written back), so the timed run pays
// no write-back for them. Not warmed: the checkpoint area (region formation's stores), the
// front-end buffers, WPQs, persist paths, DRAM and PM device state (rows, banks, bandwidth
// history), and the functional image (values are not written). Nothing is counted: every
// statistic covers the timed run only.
void CpuSystem::warm_up()
{
    if (cfg_.warmup <= 0) return;
    const persim_op *ops = prog_->ops;
    for (uint32_t k = 0; k < prog_->nkernels; ++k) {
        const persim_kernel &K = prog_->kernels[k];
        const uint32_t n = std::min<uint32_t>(K.nblocks * K.warps_per_block, (uint32_t)cores_.size());
        std::vector<uint64_t> pc(n), end(n);
        for (uint32_t s = 0; s < n; ++s) {
            const persim_stream &st = prog_->streams[K.first_stream + s];
            pc[s] = st.begin;
            const uint64_t len = st.end - st.begin;
            end[s] = st.begin + std::min<uint64_t>(len, (uint64_t)std::ceil(cfg_.warmup * (double)len));
        }
        for (bool any = true; any;) {
            any = false;
            for (uint32_t s = 0; s < n; ++s) {
                for (; pc[s] < end[s]; ++pc[s]) {
                    const persim_op &op = ops[pc[s]];
                    if (op.kind == OPK_LD || op.kind == OPK_ST) {
                        for (uint32_t l = 0; l < op.nlanes; ++l) {
                            const uint64_t a = op.addr + (uint64_t)l * op.stride;
                            if (l && a / cfg_.sys.line_bytes == (a - op.stride) / cfg_.sys.line_bytes) continue;
                            cores_[s]->warm(a);
                            ++warm_accesses_;
                        }
                    } else if (op.kind == OPK_ACQUIRE || op.kind == OPK_RELEASE) {
                        cores_[s]->warm(op.addr);
                        ++warm_accesses_;
                    } else {
                        continue;
                    }
                    ++warm_ops_;
                    ++pc[s];
                    any = true;
                    break;
                }
            }
        }
    }
}

// sim.fastforward_instructions and sim.warmup_instructions (docs/models/lightwsp.md "Fast-forward and
// functional warming"): before the timed run, kernel by kernel, each thread executes the first ops of
// its stream functionally, the threads taking turns one op each (so the shared caches and the image
// see them interleaved): first the ops that make up sim.fastforward_instructions instructions (the
// op that reaches the count included), then those of sim.warmup_instructions more. A functional op
// takes no time and touches no persist path: a store or release writes the functional image, a
// compute op only counts; an acquire goes on only when the image holds its value (else the
// thread waits for its next turn; when no thread can go on, the functional phase ends there). Warming ops also touch the caches as sim.warmup does (tags and LRU,
// lines clean). A thread stops at its first barrier (OPK_SYNC: the others would wait for it) and at
// the end of its stream; the timed run starts each stream at the first op not executed. Counted as
// the core counts (a compute op its instructions, a load, store, acquire or release one).
void CpuSystem::skip_prefixes()
{
    if (!cfg_.ff_instr && !cfg_.warm_instr) return;
    if (cfg_.crash_check)
        throw ConfigError("sim.fastforward_instructions / sim.warmup_instructions: not with sim.crash_check (the "
                          "skipped stores never reach PM, the checker would see them missing)");
    starts_.resize(prog_->nstreams);
    for (uint32_t i = 0; i < prog_->nstreams; ++i) starts_[i] = prog_->streams[i].begin;
    const persim_op *ops = prog_->ops;
    const uint32_t lb = cfg_.sys.line_bytes;
    for (uint32_t k = 0; k < prog_->nkernels; ++k) {
        const persim_kernel &K = prog_->kernels[k];
        const uint32_t n = std::min<uint32_t>(K.nblocks * K.warps_per_block, (uint32_t)cores_.size());
        std::vector<uint64_t> done(n, 0);
        for (bool any = true; any;) {
            any = false;
            for (uint32_t s = 0; s < n; ++s) {
                uint64_t &pc = starts_[K.first_stream + s];
                const uint64_t end = prog_->streams[K.first_stream + s].end;
                if (pc >= end || done[s] >= cfg_.ff_instr + cfg_.warm_instr) continue;
                const persim_op &op = ops[pc];
                if (op.kind == OPK_SYNC) continue;
                const bool warm = done[s] >= cfg_.ff_instr;
                uint64_t ni = 0;
                switch (op.kind) {
                case OPK_COMPUTE: ni = op.val; break;
                case OPK_LD:
                case OPK_ST:
                    for (uint32_t l = 0; l < op.nlanes; ++l) {
                        const uint64_t a = op.addr + (uint64_t)l * op.stride;
                        if (op.kind == OPK_ST) {
                            const uint64_t v = op_lane_val(prog_, &op, l);
                            uint8_t d[8];
                            std::memcpy(d, &v, 8);
                            mem_write(img_, a, d, op.elem);
                        }
                        if (warm && !(l && a / lb == (a - op.stride) / lb)) cores_[s]->warm(a);
                    }
                    ni = 1;
                    break;
                case OPK_RELEASE: {
                    uint8_t d[8];
                    std::memcpy(d, &op.val, 8);
                    mem_write(img_, op.addr, d, op.elem);
                    if (warm) cores_[s]->warm(op.addr);
                    ni = 1;
                    break;
                }
                case OPK_ACQUIRE: {
                    uint64_t cur = 0;
                    mem_read(img_, op.addr, &cur, op.elem);
                    if (cur != op.val) continue;          // held: this thread waits (another op's turn)
                    if (warm) cores_[s]->warm(op.addr);
                    ni = 1;
                    break;
                }
                default: break;
                }
                (warm ? fw_done_ : ff_done_) += ni;
                done[s] += ni;
                ++pc;
                any = true;
            }
        }
    }
}

void CpuSystem::start_kernel()
{
    if (power_failed_) return;
    if (kernel_ >= prog_->nkernels) {
        all_done_ = true;
        exec_done_ps_ = now_ps();
        for (auto &c : cores_) exec_done_ps_ = std::max(exec_done_ps_, c->finish_ps());
        return;
    }
    const persim_kernel &k = prog_->kernels[kernel_];
    kernel_threads_ = running_threads_ = k.nblocks * k.warps_per_block;
    barrier_count_ = 0;
    if (running_threads_ == 0) {
        ++kernel_;
        start_ev_.notify(SC_ZERO_TIME);
        return;
    }
    for (uint32_t s = 0; s < kernel_threads_; ++s) {
        const persim_stream &st = prog_->streams[k.first_stream + s];
        cores_[s]->start(starts_.empty() ? st.begin : starts_[k.first_stream + s], st.end, s);
    }
}

void CpuSystem::thread_done(CpuCore *)
{
    if (--running_threads_ == 0) {
        ++kernel_;
        start_ev_.notify(SC_ZERO_TIME);
    } else if (barrier_count_ && barrier_count_ >= running_threads_) {
        // threads that finished count as arrived
        barrier_count_ = 0;
        ++barrier_gen_;
        for (auto &c : cores_) c->wake();
    }
}

uint64_t CpuSystem::barrier_arrive()
{
    const uint64_t g = barrier_gen_;
    if (++barrier_count_ >= running_threads_) {
        barrier_count_ = 0;
        ++barrier_gen_;
        for (auto &c : cores_) c->wake();
    }
    return g;
}

void CpuSystem::functional_store(uint64_t addr, const uint8_t *data, uint32_t bytes)
{
    mem_write(img_, addr, data, bytes);
    if (waiters_.empty()) return;
    auto it = waiters_.find(addr);
    if (it == waiters_.end()) return;
    for (CpuCore *c : it->second) c->wake_at(now_ps() + cfg_.spin_ps);
    waiters_.erase(it);
}

void CpuSystem::functional_load(uint64_t addr, uint64_t *v, uint32_t bytes) const
{
    *v = 0;
    mem_read(img_, addr, v, bytes);
}

void CpuSystem::power_fail_method()
{
    power_failed_ = true;
    power_fail_at_ = now_ps();
    if (!all_done_) exec_done_ps_ = now_ps();
    for (auto &c : cores_) c->power_off();
    persistence_->power_fail(now_ps());
    pm_->power_fail(now_ps());
}

bool CpuSystem::finished() const
{
    if (power_failed_) return pm_->power_done();
    if (!all_done_) return false;
    for (auto &c : cores_)
        if (!c->path_idle()) return false;
    return persistence_->idle();
}

uint64_t CpuSystem::instructions() const
{
    uint64_t n = 0;
    for (auto &c : cores_) n += c->instructions();
    return n;
}

std::string CpuSystem::progress_line() const
{
    std::ostringstream o;
    o << "kernel " << std::min(kernel_ + 1, prog_->nkernels) << "/" << prog_->nkernels << ", " << running_threads_
      << " threads running";
    const std::string p = persistence_->progress();
    if (!p.empty()) o << ", " << p;
    return o.str();
}

std::string CpuSystem::describe_stuck() const
{
    std::string s;
    for (auto &c : cores_)
        if (c->running() || !c->path_idle()) s += "  " + c->describe();
    s += pm_->describe_stuck();
    return s;
}

void CpuSystem::trace(sc_core::sc_trace_file *tf)
{
    for (auto &c : cores_) c->trace(tf);
    pm_->trace(tf);
}

void CpuSystem::report(StatsWriter &w, uint64_t sim_ps)
{
    for (auto &c : cores_) c->report(w, sim_ps);
    l2_->report(w, sim_ps);
    if (dc_) dc_->report(w, sim_ps);
    if (dram_) dram_->report(w, sim_ps);
    pm_->report(w, sim_ps);
    if (!check_done_) {
        persistence_->finish_check(CheckCtx{has_sel_ ? &sel_ : nullptr, pm_->acks_on_entry(), sim_ps});
        check_done_ = true;
    }
    persistence_->report_check(w);
    const std::string g = "summary";
    const double cycles = (double)exec_done_ps_ / (double)cfg_.period_ps;
    const double instr = w.sum("top.core", "", "instructions");
    w.add(g, "sim_ns", exec_done_ps_ / 1000.0, "ns", "simulated time until the last thread finished (execution time)");
    w.add(g, "drain_ns", sim_ps / 1000.0, "ns", "simulated time until every region was durable (or the power-failure sequence ended)");
    w.add(g, "cpu_cycles", std::floor(cycles), "cycles", "core clock cycles of the execution time");
    w.add(g, "instructions", instr, "instructions", "instructions retired, all cores (checkpoint and PC stores included)");
    w.add(g, "checkpoint_instructions", w.sum("top.core", "", "checkpoint_instructions"), "instructions",
          "checkpoint and PC stores added by region formation");
    w.add(g, "ipc", cycles > 0 ? instr / cycles : 0, "instructions/cycle", "all cores");
    const double regions = w.sum("top.core", "", "regions");
    w.add(g, "regions", regions, "regions", "regions ended, all cores");
    w.add(g, "stores_per_region", regions ? w.sum("top.core", "", "path_writes") / regions : 0, "stores",
          "persist-path writes per region (checkpoint and PC stores included)");
    w.add(g, "path_writes", w.sum("top.core", "", "path_writes"), "writes", "8-byte entries put on the persist paths");
    double wait = 0;
    for (const char *r : {"front_end_buffer_full", "region_durable", "victim"}) {
        const double v = w.sum("top.core", "", std::string("stall_") + r + "_cycles");
        w.add(g, std::string("stall_") + r + "_cycles", v, "core-cycles", std::string("cycles cores stalled on ") + r);
        wait += v;
    }
    for (const char *r : {"loads", "store_buffer", "lock", "barrier", "persist_ACK"})
        w.add(g, std::string("stall_") + r + "_cycles",
              w.sum("top.core", "", std::string("stall_") + r + "_cycles") + w.sum("top.rdma", "", std::string("stall_") + r + "_cycles"),
              "core-cycles", std::string("cycles cores stalled on ") + r);
    const double tp = (double)persistence_->persist_latency_ps() / (double)cfg_.period_ps;
    w.add(g, "persist_latency_cycles", tp, "core-cycles",
          "T_p of LightWSP eq. 1: sum over regions of (durable - end of region)");
    w.add(g, "persist_wait_cycles", wait, "core-cycles", "T_wait of eq. 1: cycles cores stalled for persistence");
    w.add(g, "persistence_efficiency", tp > 0 ? std::max(0.0, (tp - wait) / tp) : 1.0, "-",
          "LightWSP eq. 1: (T_p - T_wait) / T_p");
    w.add(g, "fe_conflicts", w.sum("top.core", "", "fe_conflicts"), "events", "L1 victims that hit the front-end buffer");
    w.add(g, "wpq_overflows", w.sum("top.nvm", "", "wpq_deadlocks"), "events", "WPQ deadlocks resolved by overflow (IV-D)");
    w.add(g, "wpq_load_hits", w.sum("top.nvm", "", "wpq_load_hits"), "reads", "LLC read misses that hit a WPQ (IV-H)");
    w.add(g, "nvm_write_bytes", w.sum("top.nvm", "", "write_bytes"), "B", "bytes written to PM");
    w.add(g, "nvm_read_bytes", w.sum("top.nvm", "", "read_bytes"), "B", "bytes read from PM");
    const double sec = exec_done_ps_ * 1e-12;
    w.add(g, "nvm_write_bw", sec > 0 ? w.sum("top.nvm", "", "write_bytes") / sec / 1e9 : 0, "GB/s",
          "PM write bandwidth over the execution time (BROI's memory throughput)");
    w.add(g, "rdma_path_writes", w.sum("top.rdma", "", "path_writes"), "writes", "remote persist writes (RDMA channels)");
    w.add(g, "barriers", w.sum("top.core", "", "barriers") + w.sum("top.rdma", "", "barriers"), "barriers",
          "persist barriers sent (barrier models)");
    w.add(g, "power_failed", power_failed_ ? 1 : 0, "-", "the run ended by a power failure (sim.power_fail_ns)");
    if (cfg_.sample_period) {        // only with sampling on, so runs without it keep their figures
        // Each sampled figure over all windows of all threads: mean and the half-width of its 95%
        // confidence interval, t_{0.975, n-1} * s / sqrt(n) (s: the windows' sample standard deviation).
        std::vector<double> cpi, ps;
        uint64_t fn = 0;
        for (auto &c : cores_) {
            for (const auto &x : c->windows()) {
                cpi.push_back(x.cpi);
                ps.push_back(x.persist_stall_cpi);
            }
            fn += c->functional_instructions();
        }
        auto ci = [](const std::vector<double> &v, double *mean) {
            const size_t n = v.size();
            double m = 0;
            for (double x : v) m += x;
            m = n ? m / (double)n : 0;
            *mean = m;
            if (n < 2) return 0.0;
            double ss = 0;
            for (double x : v) ss += (x - m) * (x - m);
            static const double t975[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                          2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                          2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
            const double t = n - 1 <= 30 ? t975[n - 2] : 1.96;
            return t * std::sqrt(ss / (double)(n - 1)) / std::sqrt((double)n);
        };
        double m = 0, h = ci(cpi, &m);
        w.add(g, "sample_windows", (double)cpi.size(), "windows", "detailed sampling windows measured, all threads");
        w.add(g, "sample_functional_instructions", (double)fn, "instructions",
              "instructions run functionally between sampling windows (not in summary.instructions)");
        w.add(g, "sample_cpi", m, "cycles/instruction", "sampled cycles per instruction of a thread: mean over the windows");
        w.add(g, "sample_cpi_ci95", h, "cycles/instruction", "half-width of sample_cpi's 95% confidence interval");
        w.add(g, "sample_ipc", m > 0 ? 1.0 / m : 0, "instructions/cycle", "1 / sample_cpi (per thread)");
        h = ci(ps, &m);
        w.add(g, "sample_persist_stall_cpi", m, "cycles/instruction",
              "sampled persist-path stall cycles (front-end buffer full, region durable, victim, persist ACK) per instruction: mean over the windows");
        w.add(g, "sample_persist_stall_cpi_ci95", h, "cycles/instruction", "half-width of its 95% confidence interval");
    }
    if (cfg_.ff_instr || cfg_.warm_instr) {     // only with the keys on, so runs without them keep their figures
        w.add(g, "fastforward_instructions", (double)ff_done_, "instructions",
              "instructions skipped before the timed run, all threads (sim.fastforward_instructions)");
        w.add(g, "warmup_instructions", (double)fw_done_, "instructions",
              "instructions executed functionally, warming the caches, before the timed run, all threads "
              "(sim.warmup_instructions)");
    }
    if (cfg_.warmup > 0) {          // only with warm-up on, so runs without it keep their figures
        w.add(g, "warmup_ops", (double)warm_ops_, "ops", "memory ops replayed into the caches before the timed run (sim.warmup)");
        w.add(g, "warmup_line_accesses", (double)warm_accesses_, "accesses",
              "line accesses of the warm-up replay (sim.warmup; not counted in any cache statistic)");
    }
}

// ---- registration -----------------------------------------------------------------------------

namespace {

void cpu_workload_params(const Config &c, wl_params *prm)
{
    const CpuCfg k = CpuCfg::from(c);
    const uint32_t n = k.cores;
    prm->num_threads = n;
    prm->num_remote = k.rdma_channels;
    prm->num_sms = n;
    prm->max_threads_per_block = 32 * n;
    prm->max_warps_per_sm = n;
}

void cpu_validate(const Config &c, const persim_prog *p)
{
    const CpuCfg k = CpuCfg::from(c);
    const uint32_t n = k.cores + k.rdma_channels;
    for (uint32_t k = 0; k < p->nkernels; ++k) {
        const persim_kernel &K = p->kernels[k];
        const uint64_t threads = (uint64_t)K.nblocks * K.warps_per_block;
        if (threads > n)
            throw ConfigError("kernel '" + std::string(K.name) + "': " + std::to_string(threads) +
                              " threads (op streams) but cpu.cores + rdma.channels = " + std::to_string(n) +
                              " (a cpu program has one stream per hardware thread, then one per RDMA channel)");
        for (uint64_t s = K.first_stream; s < K.first_stream + threads; ++s)
            for (uint64_t o = p->streams[s].begin; o < p->streams[s].end; ++o)
                if (p->ops[o].kind == OPK_SYNC && p->ops[o].scope == SCOPE_BLOCK && K.nblocks > 1)
                    throw ConfigError("kernel '" + std::string(K.name) +
                                      "': block-scope sync with several blocks (the cpu system has one barrier for all threads)");
    }
}

std::vector<ModelInfo> cpu_models()
{
    std::vector<ModelInfo> v;
    for (auto *m : all_cpu_models()) v.push_back(ModelInfo{m->name, m->desc});
    return v;
}

std::vector<std::string> cpu_csv_columns()
{
    return {"sim_ns", "cpu_cycles", "instructions", "checkpoint_instructions", "ipc", "regions", "stores_per_region",
            "path_writes", "persistence_efficiency", "persist_latency_cycles", "persist_wait_cycles",
            "stall_front_end_buffer_full_cycles", "stall_region_durable_cycles", "stall_victim_cycles", "fe_conflicts",
            "wpq_overflows", "wpq_load_hits", "nvm_write_bytes", "nvm_read_bytes", "drain_ns", "nvm_write_bw",
            "barriers", "rdma_path_writes", "stall_persist_ACK_cycles"};
}

std::unique_ptr<System> cpu_make(const Config &c, const std::string &model, const persim_prog *prog, mem_image *backing)
{
    const CpuModel *m = find_cpu_model(model);
    if (!m) throw ConfigError("unknown model '" + model + "' for system.kind cpu (available: " + CpuSystem::kind.model_list() + ")");
    return std::make_unique<CpuSystem>("top", c, *m, prog, backing);
}

// persim check / crash: what the run's crash check found (region_check: region models; bsp_check:
// barrier models).
double cpu_self_check_report(const nlohmann::json &stats, const std::string &model, std::string &text)
{
    char b[512];
    double bad = 0;
    if (stats.contains("region_check")) {
        const auto &rc = stats["region_check"];
        auto v = [&](const char *k) { return rc.contains(k) ? rc[k]["value"].get<double>() : 0.0; };
        if (!rc.contains("run_images")) {     // persim check (persim crash says which images below)
            std::snprintf(b, sizeof b, "  crash images checked   %.0f (every distinct durable instant; a power failure there keeps\n"
                          "                         the durable writes and the persisted prefix of regions, IV-F)\n", v("crash_images"));
            text += b;
        }
        std::snprintf(b, sizeof b, "  regions                %.0f on the persist path, %.0f committed\n", v("regions"), v("committed_regions"));
        text += b;
        std::snprintf(b, sizeof b, "  violations             %.0f image(s) not equal to the replay of a committed region prefix\n", v("violations"));
        text += b;
        if (v("violations") > 0) {
            std::snprintf(b, sizeof b, "  first violation        at %.3f ns: PM word 0x%llx holds a store of an uncommitted region\n",
                          v("first_violation_ns"), (unsigned long long)v("first_violation_addr"));
            text += b;
        }
        bad += v("violations");
    }
    if (stats.contains("bsp_check")) {
        const auto &bc = stats["bsp_check"];
        auto v = [&](const char *k) { return bc.contains(k) ? bc[k]["value"].get<double>() : 0.0; };
        std::snprintf(b, sizeof b, "  durable writes checked %.0f in durable order (every prefix is a crash image)\n", v("durable_writes"));
        text += b;
        std::snprintf(b, sizeof b, "  violations             %.0f epoch order, %.0f reordered conflicts (buffered strict persistence)\n",
                      v("epoch_violations"), v("conflict_violations"));
        text += b;
        if (v("violations") > 0) {
            std::snprintf(b, sizeof b, "  first violation        at %.3f ns\n", v("first_violation_ns"));
            text += b;
        }
        bad += v("violations");
    }
    // persim crash's image choice (--points, --at, --images model, --seed): what was tried
    for (const char *grp : {"region_check", "bsp_check"}) {
        if (!stats.contains(grp) || !stats[grp].contains("run_images")) continue;
        const auto &g = stats[grp];
        auto v = [&](const char *k) { return g.contains(k) ? g[k]["value"].get<double>() : 0.0; };
        if (v("checked_run_images") > 0 || v("targeted_images") + v("samples") == 0) {
            std::snprintf(b, sizeof b, "  run images             %.0f of %.0f tried (seed %.0f), %.0f failed (a power failure\n"
                          "                         keeps the durable writes%s)\n",
                          v("checked_run_images"), v("run_images"), v("seed"), v("failed_run_images"),
                          std::string(grp) == "region_check" ? " and the persisted prefix of regions, IV-F"
                                                             : " of a prefix of the durable order");
            text += b;
        }
        if (v("targeted_images") + v("samples") > 0 || v("checked_run_images") == 0) {
            std::snprintf(b, sizeof b, "  targeted images        %.0f tried, %.0f failed (a write durable while an older one the model\n"
                          "                         does not order before it is not)\n", v("targeted_images"), v("targeted_failed"));
            text += b;
            std::snprintf(b, sizeof b, "  model samples          %.0f tried (seed %.0f), %.0f failed\n", v("samples"), v("seed"),
                          v("samples_failed"));
            text += b;
        }
        bad = v("failed_images");
        if (g.contains("first_failed_durable_thread") && g.contains("first_failed_missing_thread")) {
            const bool rc = std::string(grp) == "region_check";
            auto where = [&](const char *w) {
                char x[160];
                const std::string k = std::string("first_failed_") + w;
                if (rc)
                    std::snprintf(x, sizeof x, "thread %.0f region %.0f word 0x%llx", v((k + "_thread").c_str()),
                                  v((k + "_region").c_str()), (unsigned long long)v((k + "_addr").c_str()));
                else
                    std::snprintf(x, sizeof x, "thread %.0f epoch %.0f line 0x%llx (index)", v((k + "_thread").c_str()),
                                  v((k + "_epoch").c_str()), (unsigned long long)v((k + "_line").c_str()));
                return std::string(x);
            };
            text += "  first failing pair     durable: " + where("durable") + "\n                         not durable: " +
                    where("missing") + " (older; the model does not order it first)\n";
        }
    }
    if (!stats.contains("region_check") && !stats.contains("bsp_check"))
        text += "  model " + model + " makes no crash-consistency promise to check (no regions, no barriers)\n";
    return bad;
}

SystemKind make_cpu_kind()
{
    SystemKind k{"cpu", "multi-core CPU: trace-driven cores, L1s, shared L2, DRAM cache, PM controllers, persist paths",
                 cpu_workload_params, cpu_validate, cpu_models, cpu_make, cpu_csv_columns};
    k.self_check_report = cpu_self_check_report;
    k.workload_groups = 1u << WL_CPU;
    return k;
}

} // namespace

const SystemKind CpuSystem::kind = make_cpu_kind();
PERSIM_REGISTER(SystemKind, "cpu", CpuSystem::kind, 20);

} // namespace persim
