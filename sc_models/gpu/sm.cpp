#include "sm.h"
#include <algorithm>
#include <cstring>
#include <sstream>
#include "cores_util.h"
#include "gpu.h"

namespace persim {
using namespace sc_core;

namespace {
struct Seg {
    uint64_t la;
    uint64_t mask[2];
    uint32_t lo, hi;
    uint8_t data[128];
};

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "exec_mem copies lane values as little-endian bytes");

// Sets bits [off, off+n) of a line's two-word byte mask (n <= 64).
inline void mask_set_range(uint64_t m[2], uint32_t off, uint32_t n)
{
    const uint32_t w = off >> 6, b = off & 63;
    const uint64_t bits = n >= 64 ? ~0ull : (1ull << n) - 1;
    m[w] |= bits << b;
    if (b + n > 64 && w == 0) m[1] |= bits >> (64 - b);
}

const char *reason_name(int r)
{
    static const char *n[] = {"mem", "edm", "odm", "pb_full", "barrier", "acquire", "sync"};
    return n[r];
}
} // namespace

Sm::Sm(sc_module_name n, const GpuCfg &g, const Config &c, int id, const PersistModel *model, Gpu *gpu)
    : sc_module(n), id_(id), gpu_(gpu), model_(model), hw_(no_persist_hw()), period_ps_(g.period_ps),
      line_bytes_(g.line_bytes), nsched_(g.warp_schedulers), max_blocks_(g.max_blocks_per_sm)
{
    l1 = new L1("l1", g, c, id, model, this);
    l1_hit_ps_ = g.l1_hit_ps;
    l2_rt_ps_ = g.l2_round_trip_ps;
    const uint32_t nw = g.max_warps_per_sm;
    warps_.resize(nw);
    for (uint32_t i = 0; i < nw; ++i) warps_[i].slot = i;
    blocks_.resize(max_blocks_);
    sched_free_.assign(nsched_, 0);
    rr_.assign(nsched_, 0);
    ready_.assign(nsched_, 0);
    free_slots_ = nw;
    SC_METHOD(run);
    sensitive << wake_;
    dont_initialize();
}

Sm::~Sm() { delete l1; }

bool Sm::can_accept(uint32_t nwarps) const
{
    if (nwarps > free_slots_) return false;
    for (const auto &b : blocks_)
        if (!b.active) return true;
    return false;
}

bool Sm::busy() const
{
    for (const auto &b : blocks_)
        if (b.active) return true;
    return false;
}

void Sm::launch_block(const persim_prog *p, const persim_kernel *k, uint32_t block)
{
    prog_ = p;
    uint32_t bs = 0;
    while (blocks_[bs].active) ++bs;
    BlockCtx &b = blocks_[bs];
    b.active = true;
    b.block = block;
    b.arrived = 0;
    b.live = 0;
    b.slots.clear();
    const uint64_t t = now_ps();
    uint32_t slot = 0;
    for (uint32_t w = 0; w < k->warps_per_block; ++w) {
        while (warps_[slot].active) ++slot;
        WarpCtx &x = warps_[slot];
        const persim_stream *s = prog_stream(p, k, block, w);
        x.active = true;
        x.block_slot = bs;
        x.block = block;
        x.warp = w;
        x.pc = p->ops + s->begin;
        x.begin = x.pc;
        x.last_reported = nullptr;
        x.end = p->ops + s->end;
        x.wait = Wait::NONE;
        x.ready_ps = t;
        x.nprims = x.pi = x.lines_done = 0;
        x.mem_ready = 0;
        sync_ready(x);
        b.slots.push_back(slot);
        ++b.live;
        --free_slots_;
    }
    b.persist_arrived = 0;
    hw_->on_block_launch(*this, b);
    ++st_.blocks;
    if (st_.first_ps == UINT64_MAX) st_.first_ps = t;
    kick(t);
}

void Sm::kick(uint64_t at)
{
    uint64_t t = now_ps();
    wake_.notify(at > t ? ps(at - t) : SC_ZERO_TIME);
}

void Sm::stall(WarpCtx &w, Wait what, uint8_t reason, uint64_t t)
{
    w.wait = what;
    w.reason = reason;
    w.wait_since = t;
    sync_ready(w);
}

void Sm::resume(WarpCtx &w, uint64_t at)
{
    if (w.wait != Wait::NONE && w.wait != Wait::DONE) {
        st_.stall_ps[w.reason] += at > w.wait_since ? at - w.wait_since : 0;
        w.wait = Wait::NONE;
        sync_ready(w);
    }
    w.ready_ps = at;
    kick(at);
}

void Sm::advance_prim(WarpCtx &w)
{
    if (++w.pi >= w.nprims) {
        st_.instructions += op_instructions(w.pc);
        ++st_.ops;
        ++w.pc;
        w.nprims = w.pi = 0;
    }
}

void Sm::run()
{
    const uint64_t t = now_ps();
    const uint32_t nw = (uint32_t)warps_.size();
    for (uint32_t s = 0; s < nsched_; ++s) {
        if (sched_free_[s] > t) continue;
        // Loose round robin over this scheduler's warps (slots s, s+nsched, ...).
        // The warps that may issue (active, not waiting), from rr_[s] on, then those before it.
        const uint32_t per = (nw + nsched_ - 1 - s) / nsched_;
        const uint64_t m = ready_[s];
        const uint32_t r = rr_[s];                          // < per
        const uint64_t from_r = r < 64 ? m >> r << r : 0;
        for (uint64_t part : {from_r, m & ~from_r}) {
            bool issued = false;
            for (; part; part &= part - 1) {
                const uint32_t j = (uint32_t)__builtin_ctzll(part);
                WarpCtx &w = warps_[s + j * nsched_];
                if (w.ready_ps > t) continue;
                uint64_t cycles = 1;
                step(w, t, cycles);
                sched_free_[s] = t + cycles * period_ps_;
                st_.busy_ps += cycles * period_ps_;
                rr_[s] = j + 1 == per ? 0 : j + 1;
                issued = true;
                break;
            }
            if (issued) break;
        }
    }
    // Next time some warp can issue.
    uint64_t next = UINT64_MAX;
    for (uint32_t s = 0; s < nsched_; ++s) {
        const uint64_t free_at = sched_free_[s];
        for (uint64_t m = ready_[s]; m; m &= m - 1) {
            const WarpCtx &w = warps_[s + (uint32_t)__builtin_ctzll(m) * nsched_];
            next = std::min(next, std::max(w.ready_ps, free_at));
        }
    }
    if (next != UINT64_MAX) kick(std::max(next, t + 1));
    st_.last_ps = t;
}

bool Sm::step(WarpCtx &w, uint64_t t, uint64_t &cycles)
{
    if (w.nprims == 0) {
        // Checker requirements are not executed by the hardware: they cost no issue slot.
        while (w.pc != w.end && w.pc->kind == OPK_REQUIRE) {
            ++st_.ops;
            ++w.pc;
        }
        // The previous op of this warp has completed (a dFence or barrier: its persists are durable).
        if (tracker_ && w.lines_done == 0 && w.pc != w.begin) {
            const persim_op *prev = w.pc - 1;
            if (prev->kind > OPK_COMPUTE && prev->kind != OPK_REQUIRE && prev != w.last_reported) {
                tracker_->on_complete(prev->id, t);
                w.last_reported = prev;
            }
        }
        if (w.pc == w.end) {
            finish_warp(w, t);
            return true;
        }
        const persim_op &op = *w.pc;
        if (log_ && w.block == log_block_ && w.warp == log_warp_ && op.kind <= OPK_COMPUTE && w.lines_done == 0)
            log_step(w, t, "issue");
        switch (op.kind) {
        case OPK_LD:
        case OPK_ST:
            ++st_.mem_ops;
            if (exec_mem(w, op, t)) {
                st_.instructions += 1;
                ++st_.ops;
                ++w.pc;
            }
            return true;
        case OPK_COMPUTE:
            cycles = op.val ? op.val : 1;
            w.ready_ps = t + cycles * period_ps_;
            st_.instructions += op.val;
            ++st_.ops;
            ++w.pc;
            return true;
        case OPK_REQUIRE:
            ++st_.ops;
            ++w.pc;
            return true;
        default:
            w.nprims = (uint8_t)model_->lower(op, w.prims);
            w.pi = 0;
            if (w.nprims == 0) {
                ++st_.ops;
                ++w.pc;
                return true;
            }
        }
    }
    Prim p = w.prims[w.pi];
    ++st_.prims[(int)p];
    if (log_ && w.block == log_block_ && w.warp == log_warp_) log_step(w, t, prim_name(p));
    exec_prim(w, p, *w.pc, t);
    return true;
}

void Sm::log_step(const WarpCtx &w, uint64_t t, const char *what)
{
    const persim_op &op = *w.pc;
    std::fprintf(log_, "%12.3f ns  %s  block %u warp %u  op %u %-8s %-10s addr 0x%llx\n", t / 1000.0, name(), w.block,
                 w.warp, op.id, op_kind_name(op.kind), what, (unsigned long long)op.addr);
}

bool Sm::exec_mem(WarpCtx &w, const persim_op &op, uint64_t t)
{
    // Coalesce the warp's lanes into line segments in order of first touch. prog_validate
    // guarantees elem in {1, 2, 4, 8} and stride >= elem for more than one lane, so the lanes'
    // addresses increase: lines are touched in increasing order, a lane spans at most two.
    Seg segs[64];
    uint32_t nseg = 0;
    const bool st = op.kind == OPK_ST;
    const uint32_t lb = line_bytes_, elem = op.elem;
    if (op.nlanes == 1 || op.stride == elem) {
        // Contiguous lanes: bytes [addr, addr + nlanes * elem), cut at line boundaries.
        uint8_t buf[PERSIM_WARP_SIZE * 8];
        if (st) {
            if (op.vals == PERSIM_NOVALS)
                for (uint32_t i = 0; i < op.nlanes; ++i) std::memcpy(buf + i * elem, &op.val, elem);
            else
                for (uint32_t i = 0; i < op.nlanes; ++i) std::memcpy(buf + i * elem, &prog_->vals[op.vals + i], elem);
        }
        const uint64_t end = op.addr + (uint64_t)op.nlanes * elem;
        for (uint64_t ab = op.addr; ab < end;) {
            const uint64_t la = ab / lb;
            const uint32_t off = (uint32_t)(ab - la * lb);
            const uint32_t n = (uint32_t)std::min<uint64_t>(end - ab, lb - off);
            Seg &s = segs[nseg++];
            s.la = la;
            cache_mask_range(s.mask, off, n);
            s.lo = off;
            s.hi = off + n - 1;
            if (st) std::memcpy(&s.data[off], buf + (ab - op.addr), n);
            ab += n;
        }
    } else {
        Seg *cur = nullptr;
        for (uint32_t i = 0; i < op.nlanes; ++i) {
            const uint64_t a = op.addr + (uint64_t)i * op.stride;
            const uint64_t v = st ? op_lane_val(prog_, &op, i) : 0;
            for (uint32_t done = 0; done < elem;) {
                const uint64_t ab = a + done;
                const uint64_t la = ab / lb;
                const uint32_t off = (uint32_t)(ab - la * lb);
                const uint32_t n = std::min<uint32_t>(elem - done, lb - off);
                if (!cur || cur->la != la) {
                    uint32_t k = 0;
                    while (k < nseg && segs[k].la != la) ++k;   // a line seen before (never, by the above)
                    if (k == nseg) {
                        if (nseg == 64) break;
                        Seg &s = segs[nseg++];
                        s.la = la;
                        s.mask[0] = s.mask[1] = 0;
                        s.lo = off;
                        s.hi = off;
                    }
                    cur = &segs[k];
                }
                mask_set_range(cur->mask, off, n);
                cur->lo = std::min(cur->lo, off);
                cur->hi = std::max(cur->hi, off + n - 1);
                if (st) {
                    const uint64_t x = v >> (8 * done);
                    std::memcpy(&cur->data[off], &x, n);   // little-endian: byte b of the lane = v >> 8b
                }
                done += n;
            }
        }
    }
    for (uint32_t k = w.lines_done; k < nseg; ++k) {
        uint64_t tk = t + (uint64_t)(k - w.lines_done) * period_ps_;
        L1Result r = st ? l1->store(w.slot, segs[k].la, segs[k].data, segs[k].mask, tk, op.id, op.st_class == STC_LOG,
                                    nseg, true)
                        : l1->load(w.slot, segs[k].la, segs[k].lo, segs[k].hi - segs[k].lo + 1, tk, op.st_class == STC_LOG);
        if (!r.done) {
            w.lines_done = (uint8_t)k;
            uint8_t why = r.why == StallWhy::PB_FULL ? ST_PB_FULL : ST_EDM;
            stall(w, Wait::PB, why, t);
            if (!(l1->persist_stalled() >> w.slot & 1)) resume(w, t + period_ps_);
            return false;
        }
        w.mem_ready = std::max(w.mem_ready, r.ready_ps);
    }
    uint64_t issue_done = t + (uint64_t)(nseg - w.lines_done) * period_ps_;
    if (st) {
        w.ready_ps = issue_done;
    } else {
        w.ready_ps = std::max(w.mem_ready, issue_done);
        st_.stall_ps[ST_MEM] += w.ready_ps - t;
    }
    w.lines_done = 0;
    w.mem_ready = 0;
    return true;
}

bool Sm::exec_prim(WarpCtx &w, Prim p, const persim_op &op, uint64_t t)
{
    auto ticket = [&](uint64_t tk, uint8_t after) {
        w.after_ticket = after;
        if (l1->ticket_done(tk)) {
            if (after) l1->invalidate_clean(after == 1);
            advance_prim(w);
            w.ready_ps = t + period_ps_;
        } else {
            w.ticket = tk;
            stall(w, Wait::TICKET, ST_BARRIER, t);
        }
        return true;
    };
    switch (p) {
    case Prim::EPOCH_BAR: return ticket(l1->flush(true, false), 1);
    case Prim::SYS_FENCE: return ticket(l1->flush(true, true), 2);
    case Prim::VOL_FLUSH: return ticket(l1->flush(false, true), 0);
    case Prim::PM_FLUSH:   // clwb of the dirty PM lines + fence over every PM write (lines stay valid)
        if (hw_->elide_pm_flush(id_, l1->dirty_pm_lines())) {
            advance_prim(w);
            w.ready_ps = t + period_ps_;
            return true;
        }
        return ticket(l1->flush(true, false), 0);
    case Prim::L1_INV:
        l1->invalidate_clean(false);
        advance_prim(w);
        w.ready_ps = t + period_ps_;
        return true;
    case Prim::FLAG_STORE: {
        Seg s;
        uint32_t off = (uint32_t)(op.addr % line_bytes_);
        s.mask[0] = s.mask[1] = 0;
        for (uint32_t b = 0; b < op.elem; ++b) {
            s.mask[(off + b) / 64] |= 1ull << ((off + b) % 64);
            s.data[off + b] = (uint8_t)(op.val >> (8 * b));
        }
        L1Result r = l1->store(w.slot, op.addr / line_bytes_, s.data, s.mask, t, op.id);
        if (!r.done) {
            stall(w, Wait::PB, r.why == StallWhy::PB_FULL ? ST_PB_FULL : ST_EDM, t);
            if (!(l1->persist_stalled() >> w.slot & 1)) resume(w, t + period_ps_);
            return true;
        }
        gpu_->publish_flag(op.addr, op.elem, op.val, id_, (persim_scope)op.scope, t);
        advance_prim(w);
        w.ready_ps = t + period_ps_;
        return true;
    }
    case Prim::FLAG_WAIT: {
        uint64_t vis = 0;
        if (gpu_->flag_check(op.addr, op.elem, op.val, id_, (persim_scope)op.scope, t, &vis)) {
            advance_prim(w);
            w.ready_ps = t + (op.scope <= SCOPE_BLOCK ? l1_hit_ps_ : l2_rt_ps_);
        } else {
            w.flag_addr = op.addr;
            stall(w, Wait::FLAG, ST_ACQUIRE, t);
            if (vis != UINT64_MAX) resume(w, vis);            // published, visible here at `vis`
            else gpu_->add_flag_waiter(op.addr, id_);
        }
        return true;
    }
    case Prim::SYNC: {
        advance_prim(w);
        stall(w, Wait::SYNC, ST_SYNC, t);
        if (op.scope == SCOPE_BLOCK) {
            w.flag_addr = 0;
            ++blocks_[w.block_slot].arrived;
            check_block_sync(blocks_[w.block_slot], t);
        } else {
            w.flag_addr = 1;       // grid-wide
            gpu_->grid_arrive(t);
        }
        return true;
    }
    default:
        hw_->exec(*this, w, p, op, t);      // the persistency model's own primitives
        return true;
    }
}

void Sm::check_block_sync(BlockCtx &b, uint64_t t)
{
    if (b.arrived == 0 || b.arrived < b.live) return;
    b.arrived = 0;
    for (uint32_t s : b.slots) {
        WarpCtx &w = warps_[s];
        if (w.active && w.wait == Wait::SYNC && w.flag_addr == 0) resume(w, t + period_ps_);
    }
}

void Sm::release_grid_sync(uint64_t at)
{
    for (uint64_t m = waiting_[(int)Wait::SYNC]; m; m &= m - 1) {   // by slot, as a scan of warps_
        WarpCtx &w = warps_[__builtin_ctzll(m)];
        if (w.active && w.wait == Wait::SYNC && w.flag_addr == 1) resume(w, at);
    }
}

void Sm::finish_warp(WarpCtx &w, uint64_t t)
{
    w.active = false;
    w.wait = Wait::DONE;
    sync_ready(w);
    ++free_slots_;
    BlockCtx &b = blocks_[w.block_slot];
    --b.live;
    if (b.live == 0) {
        b.active = false;
        gpu_->block_done(id_, t);
    } else {
        check_block_sync(b, t);
        hw_->on_warp_finished(*this, b, t);
        gpu_->grid_recheck(t);
    }
}

void Sm::on_pb_change(uint64_t stalled)
{
    const uint64_t t = now_ps();
    for (uint64_t m = waiting_[(int)Wait::PB] & ~stalled; m; m &= m - 1) {
        WarpCtx &w = warps_[__builtin_ctzll(m)];
        if (w.active && w.wait == Wait::PB && !((stalled >> w.slot) & 1)) resume(w, t + period_ps_);
    }
    check_drain();
}

void Sm::on_ticket_progress()
{
    const uint64_t t = now_ps();
    for (uint64_t m = waiting_[(int)Wait::TICKET]; m; m &= m - 1) {
        WarpCtx &w = warps_[__builtin_ctzll(m)];
        if (!w.active || w.wait != Wait::TICKET || !l1->ticket_done(w.ticket)) continue;
        if (w.after_ticket) l1->invalidate_clean(w.after_ticket == 1);
        advance_prim(w);
        resume(w, t + period_ps_);
    }
    check_drain();
}

void Sm::wake_flag_waiters(uint64_t flag, uint64_t at)
{
    for (uint64_t m = waiting_[(int)Wait::FLAG]; m; m &= m - 1) {
        WarpCtx &w = warps_[__builtin_ctzll(m)];
        if (w.active && w.wait == Wait::FLAG && w.flag_addr == flag) resume(w, std::max(at, now_ps()));
    }
}

void Sm::begin_drain()
{
    // First the L1's persist unit drains completely (if any), then every dirty line is written back.
    drain_state_ = 1;
    l1->set_drain_all(true);
    check_drain();
}

void Sm::check_drain()
{
    if (drain_state_ == 1 && l1->persist_idle()) {
        drain_state_ = 2;                       // set first: the calls below re-enter check_drain
        drain_ticket_ = l1->flush(true, true);
        l1->set_drain_all(false);
    }
    if (drain_state_ == 2 && l1->ticket_done(drain_ticket_)) {
        if (hw_->kernel_end_pending(*this)) return;   // the model's hardware persists what it holds first
        drain_state_ = 0;
        l1->invalidate_clean(false);
        gpu_->sm_drained(id_, now_ps());
    }
}

std::string Sm::describe_stuck() const
{
    std::ostringstream o;
    static const char *wn[] = {"ready", "persist buffer", "write-back acknowledgements", "flag", "barrier", "done",
                               "the persistency model's hardware (persist barrier)"};
    for (const auto &w : warps_) {
        if (!w.active) continue;
        o << "  " << name() << " warp slot " << w.slot << " (block " << w.block << ", warp " << w.warp << ")";
        if (w.pc == w.end) {
            o << ": at end of stream\n";
            continue;
        }
        const persim_op &op = *w.pc;
        o << ": op id " << op.id << " '" << op_kind_name(op.kind) << "'";
        if (w.nprims) o << " primitive " << prim_name(w.prims[w.pi < w.nprims ? w.pi : w.nprims - 1]);
        o << ", waiting for " << wn[(int)w.wait];
        if (w.wait == Wait::FLAG)
            o << " 0x" << std::hex << op.addr << std::dec << " == " << op.val << " (" << scope_name(op.scope) << " scope)";
        if (w.wait == Wait::PB && !l1->persist_describe().empty()) o << " (" << l1->persist_describe() << ")";
        if (w.wait == Wait::SYNC) o << (w.flag_addr ? " (grid)" : " (block)");
        o << "\n";
    }
    return o.str();
}

void Sm::report(StatsWriter &w, uint64_t sim_ps)
{
    const std::string g = name();
    w.add(g, "warp_instructions", st_.instructions, "instructions", "warp instructions executed (compute n counts n)");
    w.add(g, "ops", st_.ops, "ops", "ops retired from the warps' streams");
    w.add(g, "mem_ops", st_.mem_ops, "ops", "warp-wide load/store ops issued (retries included)");
    w.add(g, "blocks", st_.blocks, "blocks", "thread blocks run");
    w.add(g, "issue_utilization", sim_ps ? (double)st_.busy_ps / ((double)sim_ps * nsched_) : 0, "fraction",
          "scheduler issue slots used over run time");
    for (int r = 0; r < ST__COUNT; ++r)
        w.add(g, std::string("stall_") + reason_name(r) + "_cycles", (double)st_.stall_ps[r] / (double)period_ps_,
              "warp-cycles", std::string("warp cycles spent waiting: ") +
                  (r == ST_MEM ? "load data" : r == ST_EDM ? "EDM (ordering/eviction stall in the PB)"
                   : r == ST_ODM ? "ODM (dFence / device-scope pAcq/pRel)" : r == ST_PB_FULL ? "a free PB entry"
                   : r == ST_BARRIER ? "barrier/fence write-back acknowledgements" : r == ST_ACQUIRE ? "an acquire flag"
                   : "an execution barrier"));
    for (int p = 0; p < kPrimCount; ++p)
        if (st_.prims[p]) w.add(g, std::string("prim_") + prim_name((Prim)p), st_.prims[p], "issues", "primitive issues (retries included)");
    l1->report(w, sim_ps);
}

} // namespace persim
