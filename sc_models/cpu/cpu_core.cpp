#include "cpu_core.h"
#include <algorithm>
#include <cstring>
#include <sstream>
#include "write_queue.h"

namespace persim {
using namespace sc_core;

namespace {
uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }     // no wrap near 2^64
}

CpuCore::CpuCore(sc_module_name n, uint32_t id, const CpuCfg &c, CpuPersistence &persistence, PmControllers &pm,
                 CpuCoreHost &sys, std::shared_ptr<L1Port> l1, bool remote)
    : sc_module(n), l2_isock("l2_isock"), id_(id), remote_(remote), cfg_(c), sys_(sys), l1_(std::move(l1)),
      lb_(c.sys.line_bytes)
{
    SC_METHOD(step);
    sensitive << ev_;
    dont_initialize();
    const int requester = remote ? kRemoteRequester + (int)(id - c.cores) : (int)id;
    path_ = persistence.make_path(CpuPathSite{"path", id, remote, requester, this}, pm);
}

void CpuCore::wake_if(uint32_t waits, uint64_t at)
{
    if (waits & wait_bit(wait_)) ev_.notify(at > now_ps() ? ps(at - now_ps()) : SC_ZERO_TIME);
}

void CpuCore::start(uint64_t begin, uint64_t end, uint32_t thread)
{
    ops_ = sys_.prog()->ops;
    begin_ = pc_ = begin;
    end_ = end;
    thread_ = thread;
    region_plan_free(&plan_);
    next_bd_ = 0;
    path_->plan(sys_.prog(), begin, end, &plan_);
    running_ = true;
    t_ = std::max(t_, now_ps());
    if (cfg_.sample_period && !remote_) {
        func_ = false;
        period_pos_ = 0;
        open_window(t_);
    }
    ev_.notify(SC_ZERO_TIME);
}

void CpuCore::stall(CpuWait w, uint64_t until)
{
    const uint64_t now = now_ps();
    wait_ = w;
    wait_since_ = now;
    if (until != UINT64_MAX && until > now) ev_.notify(ps(until - now));
    else if (until != UINT64_MAX) ev_.notify(SC_ZERO_TIME);
}

void CpuCore::step()
{
    if (!running_ || off_) return;
    const uint64_t now = now_ps();
    if (wait_ != CpuWait::NONE) {
        st_.wait_ps[(int)wait_] += now - wait_since_;
        wait_ = CpuWait::NONE;
    }
    t_ = std::max(t_, now);
    bool went = false;         // the path let the core go in this activation
    for (;;) {
        if (t_ > now) {
            if (went && cfg_.run_ahead) run_ahead();
            ev_.notify(ps(t_ - now));
            return;
        }
        PathStall hold;
        if (!path_->may_go(pc_ == end_, now, &hold)) {      // PPA's wait at a region end; RDMA's persist ACK
            stall(hold);
            return;
        }
        went = true;
        if (bd_active_) {
            if (!boundary_store(t_)) return;
            went = false;         // a region may have ended: may_go must be asked again
            continue;
        }
        if (cfg_.sample_period && !remote_ && pc_ != end_ && sample_step()) {
            ++pc_;
            continue;
        }
        if (next_bd_ < plan_.n && plan_.b[next_bd_].op == pc_) {
            bd_active_ = true;
            bd_left_ = plan_.b[next_bd_].ckpt + 1;
            continue;
        }
        if (pc_ == end_) {
            done();
            return;
        }
        {
            const uint64_t i0 = st_.instr;
            if (!exec(ops_[pc_], t_)) return;
            if (cfg_.sample_period && !remote_) period_pos_ += st_.instr - i0;
        }
        ++pc_;
    }
}

// sim.cpu_run_ahead (docs/architecture.md "Timing conventions"): the ops that touch nothing but this
// thread's own time and counts (compute gaps, and the markers region formation already used) run
// now, at their own issue times t_, instead of one activation each; the core returns to the kernel
// at the next op that touches anything shared: a memory op, a persist-path call, a lock, a barrier,
// a region boundary or the end of its stream. Every op keeps its issue time: the path's may_go, true
// in this activation, stays true until this thread itself ends a region (a boundary, which stops the
// run). Not exact against the default run all the same: fewer timed notifications reorder the
// kernel's equal-time events, so cores whose ops fall on the same picosecond (two acquires of one
// lock) may go in another order. Not across a power failure (an op at or after it must not retire),
// not with sampling (it counts each op of a period), and not for RDMA channels (their path's may_go
// waits for ACKs that arrive by time).
void CpuCore::run_ahead()
{
    if (remote_ || cfg_.sample_period) return;      // sampling counts every op of a period in sample_step
    const uint64_t pf = cfg_.power_fail_ps ? cfg_.power_fail_ps : UINT64_MAX;
    while (pc_ != end_ && t_ < pf && !bd_active_ && !(next_bd_ < plan_.n && plan_.b[next_bd_].op == pc_)) {
        const persim_op &op = ops_[pc_];
        if (op.kind == OPK_COMPUTE) {
            st_.instr += op.val;
            t_ += ceil_div(op.val, cfg_.width) * cfg_.period_ps;
        } else if (op.kind != OPK_MARK && op.kind != OPK_REQUIRE) {
            return;
        }
        ++pc_;
    }
}

int64_t CpuCore::l1_access(uint64_t addr, bool write, uint64_t t)
{
    if (remote_) return (int64_t)t;        // an RDMA write goes to the persist buffer, not the caches
    cache *c = l1_->tags.get();
    const uint64_t line = addr / lb_;
    t = std::max(t, l1_->busy_until);
    l1_->busy_until = t + cfg_.l1_busy_ps;
    int32_t idx = cache_lookup(c, line);
    if (idx >= 0) {
        cache_touch(c, idx);
        if (write) cache_write(c, idx, 0, nullptr, lb_);
        return (int64_t)(t + cfg_.l1_hit_ps);
    }
    // The victim is the path's choice (the region models' buffer snooping, IV-G).
    const int32_t v = path_->victim(c, line, t);
    if (v < 0) return -1;
    if (cache_line_present(c, v) && cache_line_dirty(c, v)) {
        ++st_.l1_writebacks;
        line_access(l2_isock, req_, true, cache_line_tag(c, v), lb_, t);
    }
    write ? ++st_.l1_write_misses : ++st_.l1_read_misses;
    cache_install(c, v, line, 1);
    const uint64_t r = line_access(l2_isock, req_, false, line, lb_, t + cfg_.l1_hit_ps);
    cache_fill(c, v, nullptr);
    if (write) cache_write(c, v, 0, nullptr, lb_);
    return (int64_t)r;
}

void CpuCore::warm(uint64_t addr)
{
    if (remote_) return;
    cache *c = l1_->tags.get();
    const uint64_t line = addr / lb_;
    int32_t idx = cache_lookup(c, line);
    if (idx >= 0) {
        cache_touch(c, idx);
        return;
    }
    idx = cache_victim(c, line);          // no front-end buffer entry exists yet: the LRU way
    cache_install(c, idx, line, 1);
    cache_fill(c, idx, nullptr);
    sys_.warm_line(line);
}

bool CpuCore::invalidate(uint64_t line)
{
    cache *c = l1_->tags.get();
    const int32_t idx = cache_lookup(c, line);
    if (idx < 0) return false;
    const bool d = cache_line_dirty(c, idx);
    cache_invalidate(c, idx);
    return d;
}

// One store of `bytes` (<= 8, within one 8-byte word or two) at `addr`: store buffer, the path's
// room, L1, the functional image, and the persist path. False: the core waits (stall()).
bool CpuCore::store(uint64_t addr, uint32_t bytes, const uint8_t *data, uint64_t t)
{
    while (!sb_.empty() && sb_.front() <= t) sb_.pop_front();
    if (sb_.size() >= cfg_.sb_entries) {
        stall(CpuWait::SB, sb_.front());
        return false;
    }
    PathStall s;
    if (!path_->store_room(addr, bytes, t, &s)) {
        stall(s);
        return false;
    }
    const int64_t r = l1_access(addr, true, t);
    if (r < 0) {
        stall(CpuWait::VICTIM, path_->victim_retry_at());
        return false;
    }
    sb_.push_back(std::max<uint64_t>((uint64_t)r, sb_.empty() ? 0 : sb_.back()));
    sys_.functional_store(addr, data, bytes);
    path_->store(addr, bytes, data, t);
    return true;
}

// The next checkpoint store (or, last, the PC store) of the boundary in progress; after the PC
// store the region ends: its boundary follows its stores on the path.
bool CpuCore::boundary_store(uint64_t t)
{
    const bool pc = bd_left_ == 1;
    uint64_t addr = 0, v = 0;
    path_->checkpoint(pc ? kPcSlot : plan_.b[next_bd_].ckpt - bd_left_ + 1, &addr, &v);
    uint8_t d[8];
    std::memcpy(d, &v, 8);
    if (!store(addr, 8, d, t)) return false;
    pc ? ++st_.pc_stores : ++st_.ckpt_stores;
    ++st_.ckpt_instr;
    ++st_.instr;
    t_ = t + cfg_.period_ps / cfg_.width;
    if (--bd_left_ == 0) {
        ++st_.regions;
        path_->region_end(t);
        bd_active_ = false;
        ++next_bd_;
    }
    return true;
}

bool CpuCore::exec(const persim_op &op, uint64_t t)
{
    switch (op.kind) {
    case OPK_COMPUTE:
        st_.instr += op.val;
        t_ = t + ceil_div(op.val, cfg_.width) * cfg_.period_ps;
        return true;
    case OPK_LD: {
        while (!loads_.empty() && loads_.top() <= t) loads_.pop();
        if (loads_.size() >= cfg_.max_loads) {
            stall(CpuWait::LOADS, loads_.top());
            return false;
        }
        uint64_t last = 0;
        for (uint32_t l = 0; l < op.nlanes; ++l) {
            const uint64_t a = op.addr + (uint64_t)l * op.stride;
            if (l && a / lb_ == (op.addr + (uint64_t)(l - 1) * op.stride) / lb_) continue;
            const int64_t r = l1_access(a, false, t);
            if (r < 0) {
                stall(CpuWait::VICTIM, path_->victim_retry_at());
                return false;
            }
            last = std::max(last, (uint64_t)r);
            path_->load(a / lb_);       // BROI: this thread's next persist follows what it read (RAW)
        }
        loads_.push(last);
        ++st_.loads;
        ++st_.instr;
        t_ = t + ceil_div(cfg_.period_ps, cfg_.width);
        return true;
    }
    case OPK_ST: {
        // lanes of a vector store as consecutive scalar stores (a CPU stream normally has one lane)
        for (uint32_t l = lane_; l < op.nlanes; ++l) {
            const uint64_t v = op_lane_val(sys_.prog(), &op, l);
            uint8_t d[8];
            std::memcpy(d, &v, 8);
            if (!store(op.addr + (uint64_t)l * op.stride, op.elem, d, t)) {
                lane_ = l;
                return false;
            }
            ++st_.stores;
        }
        lane_ = 0;
        ++st_.instr;
        t_ = t + ceil_div(cfg_.period_ps, cfg_.width);
        return true;
    }
    case OPK_ACQUIRE: {
        uint64_t cur = 0;
        sys_.functional_load(op.addr, &cur, op.elem);
        if (cur != op.val) {
            ++st_.lock_spins;
            sys_.wait_flag(op.addr, this);
            stall(CpuWait::LOCK, UINT64_MAX);
            return false;
        }
        const int64_t r = l1_access(op.addr, false, t);
        if (r < 0) {
            stall(CpuWait::VICTIM, path_->victim_retry_at());
            return false;
        }
        ++st_.instr;
        t_ = (uint64_t)r;          // the acquire completes when its read returns
        return true;
    }
    case OPK_RELEASE: {
        uint8_t d[8];
        std::memcpy(d, &op.val, 8);
        if (!store(op.addr, op.elem, d, t)) return false;
        ++st_.stores;
        ++st_.instr;
        t_ = t + ceil_div(cfg_.period_ps, cfg_.width);
        return true;
    }
    case OPK_SYNC:
        if (!barrier_waiting_) {
            barrier_gen_ = sys_.barrier_arrive();
            barrier_waiting_ = true;
        }
        if (!sys_.barrier_passed(barrier_gen_)) {
            stall(CpuWait::BARRIER, UINT64_MAX);
            return false;
        }
        barrier_waiting_ = false;
        return true;
    case OPK_DURABLE: {
        // A durability point: earlier stores durable before the thread goes on (region models: the
        // last region the thread ended; the boundary before this op ended it).
        PathStall s;
        if (path_->durable_point(&s)) return true;
        stall(s);
        return false;
    }
    case OPK_ORDER:
    case OPK_PBARRIER: {
        PathStall s;          // BROI: the end of a barrier epoch
        if (path_->order(t, &s)) return true;
        stall(s);
        return false;
    }
    default:          // require, mark: boundaries come from the region plan
        return true;
    }
}

// Sampling (sim.sample_period_instructions, docs/models/lightwsp.md "Sampling"): each period starts
// with a detailed window of sim.sample_window_instructions (timed as without sampling; its cycles and
// persist-path stalls per instruction are recorded when it ends), then runs functionally: loads,
// stores, acquires and releases warm the caches (CpuCore::warm), stores and releases write the
// functional image (waking lock waiters), compute ops count; no time passes, no persist path sees
// them. Region boundaries (their checkpoint and PC stores), an acquire of a held lock and a barrier
// run timed, as without sampling: a region left open would hold the gated WPQs' drain of every later
// region (the boundary's instructions count in summary.instructions, in no window). Called before the op at pc_ (not inside a boundary's stores).
bool CpuCore::sample_step()
{
    if (!func_ && period_pos_ >= cfg_.sample_window) {
        close_window(t_);
        func_ = true;
    }
    if (func_ && period_pos_ >= cfg_.sample_period) {
        period_pos_ = 0;
        func_ = false;
        open_window(t_);
    }
    if (!func_) return false;
    if (next_bd_ < plan_.n && plan_.b[next_bd_].op == pc_) return false;      // region boundaries run timed
    const persim_op &op = ops_[pc_];
    uint64_t n = 0;
    switch (op.kind) {
    case OPK_COMPUTE: n = op.val; break;
    case OPK_LD:
    case OPK_ST:
        for (uint32_t l = 0; l < op.nlanes; ++l) {
            const uint64_t a = op.addr + (uint64_t)l * op.stride;
            if (op.kind == OPK_ST) {
                const uint64_t v = op_lane_val(sys_.prog(), &op, l);
                uint8_t d[8];
                std::memcpy(d, &v, 8);
                sys_.functional_store(a, d, op.elem);
            }
            if (!(l && a / lb_ == (a - op.stride) / lb_)) warm(a);
        }
        n = 1;
        break;
    case OPK_RELEASE: {
        uint8_t d[8];
        std::memcpy(d, &op.val, 8);
        sys_.functional_store(op.addr, d, op.elem);
        warm(op.addr);
        n = 1;
        break;
    }
    case OPK_ACQUIRE: {
        uint64_t cur = 0;
        sys_.functional_load(op.addr, &cur, op.elem);
        if (cur != op.val) return false;          // held: timed, the thread waits
        warm(op.addr);
        n = 1;
        break;
    }
    case OPK_SYNC: return false;                  // barriers run timed
    default: break;                               // ordering and durability points: no path
    }
    period_pos_ += n;
    func_instr_ += n;
    return true;
}

uint64_t CpuCore::persist_stall_ps() const
{
    return st_.wait_ps[(int)CpuWait::FE_FULL] + st_.wait_ps[(int)CpuWait::REGION] + st_.wait_ps[(int)CpuWait::VICTIM] +
           st_.wait_ps[(int)CpuWait::PERSIST_ACK];
}

void CpuCore::open_window(uint64_t t)
{
    win_t_ = t;
    win_instr_ = st_.instr;
    win_stall_ = persist_stall_ps();
}

void CpuCore::close_window(uint64_t t)
{
    const uint64_t n = st_.instr - win_instr_;
    if (!n) return;
    const double cyc = (double)(t - win_t_) / (double)cfg_.period_ps;
    windows_.push_back(Window{cyc / (double)n, (double)(persist_stall_ps() - win_stall_) / (double)cfg_.period_ps / (double)n});
}

void CpuCore::done()
{
    if (cfg_.sample_period && !remote_ && !func_) close_window(std::max(t_, now_ps()));   // a last, partial window
    running_ = false;
    finish_ps_ = std::max(t_, now_ps());
    sys_.thread_done(this);
}

void CpuCore::power_off()
{
    off_ = true;
    running_ = false;
    path_->power_off();       // the front-end buffer and the path are volatile
}

std::string CpuCore::describe() const
{
    std::ostringstream o;
    o << name() << ": thread " << thread_ << " at op " << (pc_ - begin_) << " of " << (end_ - begin_);
    if (pc_ < end_) o << " (" << op_kind_name(ops_[pc_].kind) << ")";
    o << ", waits for " << cpu_wait_name(wait_) << path_->describe() << "\n";
    return o.str();
}

void CpuCore::report(StatsWriter &w, uint64_t) const
{
    const std::string g = name();
    const double cyc = (double)cfg_.period_ps;
    w.add(g, "instructions", st_.instr, "instructions", "instructions retired (checkpoint and PC stores included)");
    w.add(g, "checkpoint_instructions", st_.ckpt_instr, "instructions", "checkpoint and PC stores added by region formation");
    w.add(g, "loads", st_.loads, "ops", "load ops");
    w.add(g, "stores", st_.stores, "stores", "program stores (lanes)");
    w.add(g, "l1_read_misses", st_.l1_read_misses, "accesses", "L1 load misses");
    w.add(g, "l1_write_misses", st_.l1_write_misses, "accesses", "L1 store misses (write-allocate)");
    w.add(g, "l1_writebacks", st_.l1_writebacks, "lines", "dirty L1 victims written to the L2");
    w.add(g, "regions", st_.regions, "regions", "regions ended");
    w.add(g, "checkpoint_stores", st_.ckpt_stores, "stores", "live-out checkpoint stores");
    w.add(g, "pc_stores", st_.pc_stores, "stores", "PC-checkpoint stores (one per region)");
    w.add(g, "lock_spins", st_.lock_spins, "events", "acquires that found the lock held and waited");
    path_->report(w, g);
    for (int i = 1; i < kCpuWaits; ++i) {
        std::string n = cpu_wait_name((CpuWait)i);
        std::replace(n.begin(), n.end(), ' ', '_');
        std::replace(n.begin(), n.end(), '-', '_');
        w.add(g, "stall_" + n + "_cycles", st_.wait_ps[i] / cyc, "cycles", std::string("cycles stalled on ") + cpu_wait_name((CpuWait)i));
    }
}

} // namespace persim
