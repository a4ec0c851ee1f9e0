#include "gpu.h"
#include <algorithm>
#include <sstream>
#include "cores_util.h"

namespace persim {
using namespace sc_core;

Gpu::Gpu(sc_module_name n, const Config &c, const PersistModel *model, const persim_prog *prog, mem_image *backing)
    : sc_module(n), g_(GpuCfg::from(c)), prog_(prog), backing_(backing)
{
    for (uint32_t i = 0; i < g_.num_sms; ++i) {
        char nm[16];
        std::snprintf(nm, sizeof nm, "sm%02u", i);
        sms.push_back(new Sm(nm, g_, c, (int)i, model, this));
    }
    icnt = new Interconnect("icnt", g_);
    l2 = new L2("l2", g_);
    for (auto *s : sms) s->l1->isock.bind(icnt->tsock);
    icnt->isock.bind(l2->tsock);
    // The persistency model's GPU-wide hardware, once the SMs, L1s and L2 exist.
    if (model->make_hw) hw_own_ = model->make_hw(c, *this);
    hw_ = hw_own_ ? hw_own_.get() : no_persist_hw();
    for (auto *s : sms) s->set_persist_hw(hw_);
    l2->set_persist_hw(hw_);
    launch_gap_ps_ = g_.kernel_launch_ps;
    l1_ps_ = g_.l1_hit_ps;
    l2_ps_ = g_.l2_round_trip_ps;
    SC_METHOD(launch_method);
    sensitive << launch_ev_;
}

Gpu::~Gpu()
{
    for (auto *s : sms) delete s;
    delete icnt;
    hw_own_.reset();
    delete l2;
}

void Gpu::launch_method()
{
    if (finished_) return;
    if (kernel_ >= prog_->nkernels) {
        finished_ = true;
        finish_ps_ = now_ps();
        return;
    }
    next_block_ = blocks_done_ = drained_ = grid_arrived_ = 0;
    draining_ = false;
    kernel_start_ps_ = now_ps();
    if (prog_->kernels[kernel_].nblocks == 0) {
        kernel_ps_.push_back(0);
        ++kernel_;
        launch_ev_.notify(SC_ZERO_TIME);
        return;
    }
    dispatch(now_ps());
}

void Gpu::dispatch(uint64_t t)
{
    (void)t;
    const persim_kernel &k = prog_->kernels[kernel_];
    const uint32_t n = (uint32_t)sms.size();
    while (next_block_ < k.nblocks) {
        bool placed = false;
        for (uint32_t i = 0; i < n; ++i) {
            Sm *s = sms[(rr_ + i) % n];
            if (s->can_accept(k.warps_per_block)) {
                s->launch_block(prog_, &k, next_block_++);
                rr_ = (rr_ + i + 1) % n;
                placed = true;
                break;
            }
        }
        if (!placed) break;
    }
}

void Gpu::block_done(int, uint64_t t)
{
    const persim_kernel &k = prog_->kernels[kernel_];
    ++blocks_done_;
    if (blocks_done_ == k.nblocks) {
        draining_ = true;
        for (auto *s : sms) s->begin_drain();
        return;
    }
    dispatch(t);
    grid_recheck(t);
}

void Gpu::sm_drained(int, uint64_t t)
{
    if (!draining_) return;
    if (++drained_ < sms.size()) return;
    draining_ = false;
    kernel_ps_.push_back(t - kernel_start_ps_);
    if (tracker_) tracker_->on_kernel_end(kernel_, t);
    ++kernel_;
    launch_ev_.notify(ps(launch_gap_ps_));
}

Gpu::Flag &Gpu::flag(uint64_t addr, uint32_t elem)
{
    auto it = flags_.find(addr);
    if (it != flags_.end()) return it->second;
    Flag f;
    uint64_t v = 0;
    mem_read(backing_, addr, &v, elem);   // initial value from the program's input image
    f.val = v;
    return flags_.emplace(addr, f).first->second;
}

void Gpu::publish_flag(uint64_t addr, uint32_t elem, uint64_t val, int sm, persim_scope scope, uint64_t t)
{
    Flag &f = flag(addr, elem);
    f.val = elem >= 8 ? val : (val & ((1ull << (8 * elem)) - 1));
    f.sm = sm;
    f.t_local = t + l1_ps_;
    // A block-scope release is visible to its own SM through the L1; other SMs see the value
    // once it reaches the L2 (the flag travels like a write-through store).
    f.t_global = t + l2_ps_ + (scope <= SCOPE_BLOCK ? l1_ps_ : 0);
    auto w = waiters_.find(addr);
    if (w == waiters_.end()) return;
    std::vector<int> sm_ids = w->second;
    waiters_.erase(w);
    std::sort(sm_ids.begin(), sm_ids.end());
    sm_ids.erase(std::unique(sm_ids.begin(), sm_ids.end()), sm_ids.end());
    for (int s : sm_ids) sms[(size_t)s]->wake_flag_waiters(addr, s == sm ? f.t_local : f.t_global);
}

bool Gpu::flag_check(uint64_t addr, uint32_t elem, uint64_t val, int sm, persim_scope scope, uint64_t t, uint64_t *vis)
{
    Flag &f = flag(addr, elem);
    uint64_t want = elem >= 8 ? val : (val & ((1ull << (8 * elem)) - 1));
    *vis = UINT64_MAX;
    if (f.val != want) return false;
    uint64_t at = (f.sm == sm && scope <= SCOPE_BLOCK) ? f.t_local : (f.sm == sm ? std::min(f.t_local, f.t_global) : f.t_global);
    if (f.sm < 0) at = 0;
    if (at <= t) return true;
    *vis = at;
    return false;
}

void Gpu::add_flag_waiter(uint64_t addr, int sm) { waiters_[addr].push_back(sm); }

void Gpu::grid_arrive(uint64_t t)
{
    ++grid_arrived_;
    grid_recheck(t);
}

void Gpu::grid_recheck(uint64_t t)
{
    hw_->on_grid_recheck(t);               // e.g. p_barrier_kr waits for the same condition
    if (grid_arrived_ == 0) return;
    if (!kernel_resident()) return;        // not every block is resident yet
    // Every block is resident: the barrier releases when every unfinished warp has arrived.
    if (grid_arrived_ < unfinished_warps()) return;
    grid_arrived_ = 0;
    for (auto *s : sms) s->release_grid_sync(t + l2_ps_);
}

bool Gpu::kernel_resident() const
{
    return kernel_ < prog_->nkernels && next_block_ >= prog_->kernels[kernel_].nblocks;
}

uint32_t Gpu::unfinished_warps() const
{
    uint32_t n = 0;
    for (auto *s : sms) n += s->unfinished_warps();
    return n;
}

uint64_t Gpu::instructions() const
{
    uint64_t n = 0;
    for (auto *s : sms) n += s->instructions();
    return n;
}

std::string Gpu::describe_stuck() const
{
    std::ostringstream o;
    if (kernel_ < prog_->nkernels) {
        const persim_kernel &k = prog_->kernels[kernel_];
        o << "kernel " << kernel_ << " '" << k.name << "': " << blocks_done_ << "/" << k.nblocks << " blocks done, "
          << next_block_ << " dispatched" << (draining_ ? ", draining persists at kernel end" : "") << "\n";
    }
    std::string all;
    for (auto *s : sms) all += s->describe_stuck();
    // Keep reports readable: at most 40 warp lines.
    std::istringstream in(all);
    std::string line;
    int nlines = 0, total = 0;
    while (std::getline(in, line)) {
        ++total;
        if (nlines < 40) { o << line << "\n"; ++nlines; }
    }
    if (total > nlines) o << "  ... and " << (total - nlines) << " more stuck warps\n";
    o << hw_->describe();
    return o.str();
}

std::string Gpu::progress_line() const
{
    std::ostringstream o;
    if (kernel_ < prog_->nkernels) {
        const persim_kernel &k = prog_->kernels[kernel_];
        o << "kernel " << (kernel_ + 1) << "/" << prog_->nkernels << " '" << k.name << "' blocks " << blocks_done_ << "/"
          << k.nblocks;
    } else {
        o << "done";
    }
    return o.str();
}

void Gpu::set_tracker(WriteTracker *t)
{
    tracker_ = t;
    for (auto *s : sms) s->set_tracker(t);
    l2->set_tracker(t);
}

void Gpu::drain_functional(mem_image *img)
{
    for (auto *s : sms) s->l1->drain_functional(img);
    l2->drain_functional(img);
}

void Gpu::report(StatsWriter &w, uint64_t sim_ps)
{
    for (auto *s : sms) s->report(w, sim_ps);
    icnt->report(w, sim_ps);
    l2->report(w, sim_ps);
    hw_->report(w, sim_ps);
    const std::string g = name();
    w.add(g, "kernels", (double)kernel_ps_.size(), "kernels", "kernels completed");
    for (size_t i = 0; i < kernel_ps_.size(); ++i)
        w.add(g, "kernel" + std::to_string(i) + "_ns", kernel_ps_[i] / 1000.0, "ns",
              std::string("duration of kernel '") + prog_->kernels[i].name + "' (launch to drained)");
}

} // namespace persim
