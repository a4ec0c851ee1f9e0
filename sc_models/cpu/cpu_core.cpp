#include "cpu_core.h"
#include <algorithm>
#include <cstring>
#include <sstream>
#include "cpu_system.h"

namespace persim {
using namespace sc_core;

namespace {
constexpr int kWaits = 9;
uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
}

CpuCore::CpuCore(sc_module_name n, uint32_t id, const CpuCfg &c, const CpuModel &m, CpuSystem &sys,
                 std::shared_ptr<L1Port> l1, bool remote)
    : sc_module(n), l2_isock("l2_isock"), id_(id), remote_(remote),
      requester_(remote ? kRemoteRequester + (int)(id - c.cores) : (int)id), cfg_(c), model_(m), sys_(sys),
      l1_(std::move(l1)), lb_(c.sys.line_bytes)
{
    link_cfg lc{};
    lc.latency_ps = c.path_latency_ps;
    lc.gbps = c.path_gbps;
    lc.header_bytes = c.path_header;
    lc.max_payload = 0;
    if (link_init(&link_, &lc) != 0) throw ConfigError("persist_path.*: invalid persist path (latency, bandwidth)");
    if (remote) {       // the RDMA network in front of the remote persist buffer (BROI V, Figure 8)
        link_cfg nc = lc;
        nc.latency_ps = c.rdma_latency_ps;
        nc.gbps = c.rdma_gbps;
        if (link_init(&net_, &nc) != 0) throw ConfigError("rdma.*: invalid RDMA network (latency, bandwidth)");
    }
    const fe_buf_cfg fc{c.fe_entries, lb_};
    fe_mem_.resize((fe_buf_bytes(&fc) + 7) / 8 + 1);
    if (fe_buf_init(fe_mem_.data(), &fc) != 0)
        throw ConfigError("persist_path.fe_entries: invalid front-end buffer (1..4096 entries, l1.line_bytes 8..128)");
    fe_ = reinterpret_cast<fe_buf *>(fe_mem_.data());
    if (m.barriers) {       // BROI: the persist buffer instead of the front-end buffer
        const pbuf_cfg pc{c.fe_entries, lb_, c.pb_coalesce ? 1u : 0u, m.deps ? 0u : 1u};
        pb_mem_.resize((pbuf_bytes(&pc) + 7) / 8 + 1);
        if (pbuf_init(pb_mem_.data(), &pc) != 0)
            throw ConfigError("persist_path.fe_entries: invalid persist buffer (1..64 entries, l1.line_bytes 8..128)");
        pb_ = reinterpret_cast<persist_buf *>(pb_mem_.data());
    }
    SC_METHOD(step);
    sensitive << ev_;
    dont_initialize();
    SC_METHOD(path_step);
    sensitive << path_ev_;
    dont_initialize();
    SC_METHOD(deliver_step);
    sensitive << deliver_ev_;
    dont_initialize();
    SC_METHOD(ack_step);
    sensitive << ack_ev_;
    dont_initialize();
}

const char *CpuCore::wait_name(Wait w) const
{
    static const char *const n[kWaits] = {"none", "loads", "store buffer", "front-end buffer full",
                                          "region durable", "lock", "barrier", "victim", "persist ACK"};
    return n[(int)w];
}

void CpuCore::start(uint64_t begin, uint64_t end, uint32_t thread)
{
    ops_ = sys_.prog()->ops;
    begin_ = pc_ = begin;
    end_ = end;
    thread_ = thread;
    region_plan_free(&plan_);
    next_bd_ = 0;
    if (model_.regions && region_form(sys_.prog(), begin, end, &cfg_.regions, &plan_) != 0)
        throw ConfigError("region formation failed (regions.* keys)");
    running_ = true;
    t_ = std::max(t_, now_ps());
    ev_.notify(SC_ZERO_TIME);
}

void CpuCore::stall(Wait w, uint64_t until)
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
    if (wait_ != Wait::NONE) {
        st_.wait_ps[(int)wait_] += now - wait_since_;
        wait_ = Wait::NONE;
    }
    t_ = std::max(t_, now);
    for (;;) {
        if (t_ > now) {
            ev_.notify(ps(t_ - now));
            return;
        }
        if (model_.at_boundary == CpuModel::AtBoundary::CORE_WAITS && last_closed_ >= 0 &&
            !sys_.book().durable((uint64_t)last_closed_)) {
            stall(Wait::REGION, UINT64_MAX);          // PPA: wait at the region end (woken by acks)
            return;
        }
        if (bd_active_) {
            if (!boundary_store(t_)) return;
            continue;
        }
        if (remote_ && (sync_wait_seq_ >= 0 || pc_ == end_)) {
            // rdma: sync waits for each rdma_pwrite's persist ACK; bsp checks once, at the end; an
            // ACK is back at the client one network latency after the controller gave it (ack_step)
            const uint64_t live = pb_live_min();
            if (sync_wait_seq_ >= 0 ? live <= (uint64_t)sync_wait_seq_ : live != UINT64_MAX) {
                stall(Wait::PERSIST_ACK, UINT64_MAX);
                return;
            }
            if (ack_back_at_ > now) {
                stall(Wait::PERSIST_ACK, ack_back_at_);
                return;
            }
            sync_wait_seq_ = -1;
        }
        if (model_.regions && next_bd_ < plan_.n && plan_.b[next_bd_].op == pc_) {
            bd_active_ = true;
            bd_left_ = plan_.b[next_bd_].ckpt + 1;
            continue;
        }
        if (pc_ == end_) {
            done();
            return;
        }
        if (!exec(ops_[pc_], t_)) return;
        ++pc_;
    }
}

bool CpuCore::fe_room(uint64_t t)
{
    if (pb_) return !pbuf_full(pb_);          // acknowledgements reach the persist buffer in ack_step
    fe_frees_.pop_due(t, [&](uint64_t seq) { fe_buf_ack(fe_, seq); });
    return !fe_buf_full(fe_);
}

void CpuCore::fe_free(uint64_t wid, uint64_t at)
{
    auto it = outstanding_.find(wid);
    if (it == outstanding_.end() || it->second.freed) return;
    it->second.freed = true;
    const uint64_t ft = std::max(at, now_ps()) + cfg_.path_latency_ps;   // the ACK travels back to the buffer
    fe_frees_.push(it->second.seq, ft, it->second.seq);
    if (pb_) ack_ev_.notify(ps(ft - now_ps()));
    else if (wait_ == Wait::FE_FULL || wait_ == Wait::VICTIM) ev_.notify(ps(ft - now_ps()));
}

// BROI: the controller's acknowledgements reach the persist buffer (one path latency after the
// write completed): the entries leave, and the other buffers' dependencies on them resolve.
void CpuCore::ack_step()
{
    if (off_) return;
    const uint64_t now = now_ps();
    bool any = false;
    fe_frees_.pop_due(now, [&](uint64_t seq) {
        pbuf_ack(pb_, seq);
        any = true;
    });
    if (any) {
        if (remote_) ack_back_at_ = now + cfg_.rdma_latency_ps;     // the NIC sends the persist ACK back
        sys_.persist_acked(id_);
        if (wait_ == Wait::FE_FULL || wait_ == Wait::PERSIST_ACK) ev_.notify(SC_ZERO_TIME);
    }
    if (!fe_frees_.empty()) ack_ev_.notify(ps(fe_frees_.next_at() - now));
}

void CpuCore::on_late_accept(uint64_t token, uint64_t at) { fe_free(token, at); }

void CpuCore::on_late_ack(uint64_t token, uint64_t at)
{
    auto it = outstanding_.find(token);
    if (it == outstanding_.end()) return;
    fe_free(token, at);
    const uint32_t region = it->second.region;
    outstanding_.erase(it);
    if (model_.regions) sys_.book().ack(region, at);
    if (wait_ == Wait::REGION) ev_.notify(ps(std::max(at, now_ps()) - now_ps()));
    if (path_hold_region_ >= 0) path_ev_.notify(SC_ZERO_TIME);
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
    // Victim: with a persist path, a dirty line with a store still in the front-end buffer must not
    // leave before it (buffer snooping, IV-G); the policy (cores/fe_buf.h) says how far to look.
    int32_t v;
    if (model_.path_bytes && !pb_) {
        fe_room(t);
        const int pol = cfg_.victim_policy == VictimPolicy::FULL ? FE_VICTIM_FULL
                      : cfg_.victim_policy == VictimPolicy::HALF ? FE_VICTIM_HALF
                      : cfg_.victim_policy == VictimPolicy::ZERO ? FE_VICTIM_ZERO : FE_VICTIM_NONE;
        v = fe_buf_victim(fe_, c, line, pol, nullptr);
        if (v < 0) return -1;
    } else {
        v = cache_victim(c, line);
    }
    if (cache_line_present(c, v) && cache_line_dirty(c, v)) {
        ++st_.l1_writebacks;
        line_access(l2_isock, true, cache_line_tag(c, v), lb_, t);
    }
    write ? ++st_.l1_write_misses : ++st_.l1_read_misses;
    cache_install(c, v, line, 1);
    const uint64_t r = line_access(l2_isock, false, line, lb_, t + cfg_.l1_hit_ps);
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

// One store of `bytes` (<= 8, within one 8-byte word or two) at `addr`: store buffer, L1, the
// functional image, and the persist path. False: the core waits (state recorded by stall()).
bool CpuCore::store(uint64_t addr, uint32_t bytes, const uint8_t *data, uint32_t op_id, uint64_t t)
{
    (void)op_id;
    while (!sb_.empty() && sb_.front() <= t) sb_.pop_front();
    if (sb_.size() >= cfg_.sb_entries) {
        stall(Wait::SB, sb_.front());
        return false;
    }
    const uint64_t w0 = addr / 8, w1 = (addr + bytes - 1) / 8;
    if (pb_) {          // room for an entry per cache block the store touches
        if (cfg_.fe_entries - pbuf_count(pb_) < (uint32_t)((addr + bytes - 1) / lb_ - addr / lb_ + 1)) {
            stall(Wait::FE_FULL, UINT64_MAX);          // woken by ack_step
            return false;
        }
    } else if (model_.path_bytes) {
        if (!fe_room(t) || cfg_.fe_entries - fe_buf_count(fe_) < (uint32_t)(w1 - w0 + 1)) {
            stall(Wait::FE_FULL, fe_frees_.empty() ? UINT64_MAX : fe_frees_.next_at());
            return false;
        }
        if (model_.regions && region_ < 0) region_ = (int64_t)sys_.book().take((int)thread_);
    }
    const int64_t r = l1_access(addr, true, t);
    if (r < 0) {
        stall(Wait::VICTIM, fe_frees_.empty() ? UINT64_MAX : fe_frees_.next_at());
        return false;
    }
    sb_.push_back(std::max<uint64_t>((uint64_t)r, sb_.empty() ? 0 : sb_.back()));
    sys_.functional_store(addr, data, bytes);
    if (pb_) return pb_store(addr, bytes, data, remote_ ? link_send(&net_, t, bytes) : 0);
    if (model_.path_bytes) {
        for (uint64_t w = w0; w <= w1; ++w) {
            PathItem it{};
            it.boundary = false;
            it.word = w;
            it.region = model_.regions ? (uint32_t)region_ : 0;
            for (uint32_t b = 0; b < bytes; ++b) {
                const uint64_t a = addr + b;
                if (a / 8 != w) continue;
                it.data[a % 8] = data[b];
                it.mask |= 1ull << (a % 8);
            }
            it.wid = sys_.new_path_write(it.region, w, it.mask, it.data, id_, 0);
            if (model_.regions) sys_.book().write(it.region);
            uint64_t d64;
            std::memcpy(&d64, it.data, 8);
            fe_buf_push(fe_, w, d64, it.region, &it.seq);      // room checked above
            path_q_.push_back(it);
            ++st_.path_writes;
        }
        path_ev_.notify(SC_ZERO_TIME);
    }
    return true;
}

// BROI: the store enters the persist buffer (cores/persist_buf decides: a new entry per cache
// block, or joining an unsent one of the epoch), with the persist-persist dependencies the
// coherence engine's snoop of the other buffers finds (IV-C 1, Figure 6(b) steps 4-6).
bool CpuCore::pb_store(uint64_t addr, uint32_t bytes, const uint8_t *data, uint64_t arrive)
{
    for (uint64_t ln = addr / lb_; ln <= (addr + bytes - 1) / lb_; ++ln) {
        const uint64_t a0 = std::max(addr, ln * lb_), a1 = std::min(addr + bytes, (ln + 1) * lb_);
        const std::vector<pbuf_dep> deps = sys_.snoop(id_, ln);
        uint64_t eid = 0;
        const pbuf_result r = pbuf_store(pb_, ln, (uint32_t)(a0 - ln * lb_), (uint32_t)(a1 - a0), data + (a0 - addr),
                                         deps.data(), (uint32_t)deps.size(), &eid);
        if (remote_) pb_ready_[eid] = std::max(pb_ready_[eid], arrive);
        if (r == PBUF_NEW) {
            static const uint8_t zero[8] = {0};
            pb_wid_[eid] = sys_.new_path_write(0, ln * lb_ / 8, 0, zero, id_, pbuf_epoch(pb_));
            ++st_.path_writes;
        } else if (r != PBUF_COALESCED) {
            throw std::logic_error("persist buffer refused a store it had room for");
        }
    }
    path_ev_.notify(SC_ZERO_TIME);
    return true;
}

// The next checkpoint store (or, last, the PC store) of the boundary in progress; after the PC
// store the region ends: its boundary follows its stores on the path.
bool CpuCore::boundary_store(uint64_t t)
{
    const bool pc = bd_left_ == 1;
    const uint64_t slot = pc ? 63 : (uint64_t)(plan_.b[next_bd_].ckpt - bd_left_ + 1);
    const uint64_t addr = sys_.checkpoint_base() + (uint64_t)thread_ * 512 + slot * 8;
    uint64_t v = (uint64_t)(region_ < 0 ? 0 : region_) << 8 | slot;
    uint8_t d[8];
    std::memcpy(d, &v, 8);
    if (!store(addr, 8, d, 0, t)) return false;
    pc ? ++st_.pc_stores : ++st_.ckpt_stores;
    ++st_.ckpt_instr;
    ++st_.instr;
    t_ = t + cfg_.period_ps / cfg_.width;
    if (--bd_left_ == 0) {
        end_region(t);
        bd_active_ = false;
        ++next_bd_;
    }
    return true;
}

void CpuCore::end_region(uint64_t t)
{
    ++st_.regions;
    if (region_ >= 0) {
        PathItem b{};
        b.boundary = true;
        b.region = (uint32_t)region_;
        path_q_.push_back(b);
        path_ev_.notify(SC_ZERO_TIME);
        sys_.book().close((uint64_t)region_, t);
        last_closed_ = region_;
    }
    region_ = -1;
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
            stall(Wait::LOADS, loads_.top());
            return false;
        }
        uint64_t last = 0;
        for (uint32_t l = 0; l < op.nlanes; ++l) {
            const uint64_t a = op.addr + (uint64_t)l * op.stride;
            if (l && a / lb_ == (op.addr + (uint64_t)(l - 1) * op.stride) / lb_) continue;
            const int64_t r = l1_access(a, false, t);
            if (r < 0) {
                stall(Wait::VICTIM, fe_frees_.empty() ? UINT64_MAX : fe_frees_.next_at());
                return false;
            }
            last = std::max(last, (uint64_t)r);
            if (pb_) {                  // RAW: this thread's next persist follows what it read
                const std::vector<pbuf_dep> d = sys_.snoop(id_, a / lb_);
                pbuf_load(pb_, d.data(), (uint32_t)d.size());
            }
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
            if (!store(op.addr + (uint64_t)l * op.stride, op.elem, d, op.id, t)) {
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
            stall(Wait::LOCK, UINT64_MAX);
            return false;
        }
        const int64_t r = l1_access(op.addr, false, t);
        if (r < 0) {
            stall(Wait::VICTIM, fe_frees_.empty() ? UINT64_MAX : fe_frees_.next_at());
            return false;
        }
        ++st_.instr;
        t_ = (uint64_t)r;          // the acquire completes when its read returns
        return true;
    }
    case OPK_RELEASE: {
        uint8_t d[8];
        std::memcpy(d, &op.val, 8);
        if (!store(op.addr, op.elem, d, op.id, t)) return false;
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
            stall(Wait::BARRIER, UINT64_MAX);
            return false;
        }
        barrier_waiting_ = false;
        return true;
    case OPK_DURABLE:
        // A durability point: earlier stores durable before the thread goes on. Region models wait
        // for the last region they ended (the boundary before this op ended it).
        if (model_.regions && last_closed_ >= 0 && !sys_.book().durable((uint64_t)last_closed_)) {
            stall(Wait::REGION, UINT64_MAX);
            return false;
        }
        return true;
    case OPK_ORDER:
    case OPK_PBARRIER:
        if (pb_) {
            // a persist barrier ends the barrier epoch (BROI IV-A): a fence entry, unless the epoch
            // is empty (nothing to order)
            uint64_t fid = 0;
            const pbuf_result r = pbuf_fence(pb_, &fid);
            if (r == PBUF_FULL) {
                stall(Wait::FE_FULL, UINT64_MAX);
                return false;
            }
            if (r == PBUF_NEW) {
                ++st_.barriers;
                if (remote_) pb_ready_[fid] = link_send(&net_, t, 8);   // the end of the rdma_pwrite
                path_ev_.notify(SC_ZERO_TIME);
            }
            if (remote_ && cfg_.rdma_sync && pbuf_last_store(pb_) != UINT64_MAX) {
                sync_wait_seq_ = (int64_t)pbuf_last_store(pb_);   // wait for this rdma_pwrite's persist ACK
                ++st_.sync_waits;
            }
        }
        return true;
    default:          // require, mark: boundaries come from the region plan
        return true;
    }
}

void CpuCore::done()
{
    running_ = false;
    finish_ps_ = std::max(t_, now_ps());
    sys_.thread_done(this);
}

void CpuCore::power_off()
{
    off_ = true;
    running_ = false;
    path_q_.clear();          // the front-end buffer and the path are volatile
    flight_.clear();
}

void CpuCore::path_step()
{
    if (off_) return;
    const uint64_t now = now_ps();
    if (pb_) {
        path_step_pb(now);
        return;
    }
    while (!path_q_.empty()) {
        PathItem &it = path_q_.front();
        // Capri with several controllers: the next region's stores wait until the previous one drained.
        if (!it.boundary && model_.at_boundary == CpuModel::AtBoundary::PATH_WAITS && path_hold_region_ >= 0) {
            if (!sys_.book().durable((uint64_t)path_hold_region_)) return;    // woken by its acks
            path_hold_region_ = -1;
        }
        const uint64_t free = link_free_at(&link_);
        if (free > now) {
            path_ev_.notify(ps(free - now));
            return;
        }
        const uint64_t arrive = link_send(&link_, now, it.boundary ? 8 : model_.path_bytes);
        auto fly = [&](uint32_t ctrl) {
            const uint64_t at = arrive + (uint64_t)ctrl * cfg_.path_skew_ps;
            if (flight_.empty() || at < flight_.next_at()) deliver_ev_.notify(ps(at - now));
            flight_.push(Flight{ctrl, it}, at);
            return at;
        };
        if (it.boundary) {
            // the boundary goes to every controller (IV-B); persisted once the last one has it
            uint64_t last = 0;
            for (uint32_t c = 0; c < sys_.controllers(); ++c) last = std::max(last, fly(c));
            sys_.boundary_sent(it.region, last);
            if (model_.at_boundary == CpuModel::AtBoundary::PATH_WAITS) path_hold_region_ = it.region;
        } else {
            fe_buf_entry fe;
            fe_buf_next_send(fe_, &fe);        // the same entry: the buffer and the path are both FIFO
            outstanding_[it.wid] = Out{it.seq, it.region, false};
            fly(sys_.pm_target(it.word * 8));
        }
        path_q_.pop_front();
    }
}

// BROI: the persist buffer releases its oldest entry once its dependencies are resolved (IV-C):
// a store entry (a cache block) to its controller, a fence as a persist barrier to every controller.
void CpuCore::path_step_pb(uint64_t now)
{
    for (;;) {
        pbuf_entry e;
        const pbuf_head_state h = pbuf_head(pb_, &e);
        head_blocked_ = h == PBUF_HEAD_BLOCKED;      // woken by pb_resolve
        if (h != PBUF_HEAD_READY) return;
        auto rd = pb_ready_.find(e.id);
        if (rd != pb_ready_.end()) {
            if (rd->second > now) {          // still crossing the network
                path_ev_.notify(ps(rd->second - now));
                return;
            }
            pb_ready_.erase(rd);
        }
        const uint64_t free = link_free_at(&link_);
        if (free > now) {
            path_ev_.notify(ps(free - now));
            return;
        }
        const bool fence = e.kind == PBUF_FENCE;
        const uint64_t arrive = link_send(&link_, now, fence ? 8 : model_.path_bytes);
        auto fly = [&](uint32_t ctrl, const PathItem &it) {
            const uint64_t at = arrive + (uint64_t)ctrl * cfg_.path_skew_ps;
            if (flight_.empty() || at < flight_.next_at()) deliver_ev_.notify(ps(at - now));
            flight_.push(Flight{ctrl, it}, at);
        };
        PathItem it{};
        if (fence) {
            it.boundary = it.barrier = true;
            for (uint32_t c = 0; c < sys_.controllers(); ++c) fly(c, it);
        } else {
            it.line = true;
            it.word = e.line * lb_ / 8;
            it.seq = e.id;
            it.wid = pb_wid_.at(e.id);
            pb_wid_.erase(e.id);
            outstanding_[it.wid] = Out{e.id, 0, false};
            fly(sys_.pm_target(e.line * lb_), it);
        }
        pbuf_send(pb_);
        if (fence) {          // the fence left the buffer: its oldest live entry may have changed
            sys_.persist_acked(id_);
            if (wait_ == Wait::PERSIST_ACK || wait_ == Wait::FE_FULL) ev_.notify(SC_ZERO_TIME);
        }
    }
}

void CpuCore::deliver_step()
{
    if (off_) {
        flight_.clear();         // the persist path is volatile: what is on it is lost
        return;
    }
    const uint64_t now = now_ps();
    flight_.pop_due(now, [&](const Flight &f) { deliver(f.item, f.ctrl); });
    if (!flight_.empty()) deliver_ev_.notify(ps(flight_.next_at() - now));
}

// A path item arriving now at controller `ctrl`.
void CpuCore::deliver(const PathItem &it, uint32_t ctrl)
{
    if (it.boundary) {
        if (it.barrier) sys_.deliver_barrier(ctrl, (uint32_t)requester_);
        else sys_.deliver_boundary(ctrl, it.region, id_);
        return;
    }
    const uint32_t lb = it.line ? lb_ : 8;
    MemReq req(tlm::TLM_WRITE_COMMAND, it.word * 8, lb);
    pbuf_entry e;                       // a persist-buffer entry stays until its acknowledgement
    if (it.line && pbuf_find(pb_, it.seq, &e) != 0) throw std::logic_error("persist-buffer entry left before delivery");
    std::memcpy(req.data, it.line ? e.data : it.data, lb);
    req.ext.pm = true;
    req.ext.persist = true;
    req.ext.requester = requester_;
    req.ext.region = it.region;
    req.ext.line_bytes = lb;
    req.ext.mask[0] = it.line ? e.mask[0] : it.mask;
    req.ext.mask[1] = it.line ? e.mask[1] : 0;
    req.ext.wire_bytes = model_.path_bytes;
    req.ext.ack_to = this;
    req.ext.ack_token = it.wid;
    uint32_t writers[128];
    for (auto &w : writers) w = (uint32_t)it.wid;
    req.ext.writers = writers;
    sc_time d = SC_ZERO_TIME;
    sys_.controller(ctrl)->tsock.get_base_export()->b_transport(req.gp, d);
    if (!req.ext.ack_later) on_late_ack(it.wid, now_ps() + (uint64_t)d.value());
    else if (req.ext.accept_ps) fe_free(it.wid, req.ext.accept_ps);
}

std::string CpuCore::describe() const
{
    std::ostringstream o;
    o << name() << ": thread " << thread_ << " at op " << (pc_ - begin_) << " of " << (end_ - begin_);
    if (pc_ < end_) o << " (" << op_kind_name(ops_[pc_].kind) << ")";
    o << ", waits for " << wait_name(wait_) << ", region " << region_ << ", front-end buffer " << fe_buf_count(fe_) << "/"
      << cfg_.fe_entries << (pb_ ? ", persist buffer " + std::to_string(pbuf_count(pb_)) + " (" +
                              std::to_string(pbuf_unsent(pb_)) + " unsent" + (head_blocked_ ? ", head waits for a dependency" : "") + ")" : "")
      << ", " << path_q_.size() << " unsent, " << outstanding_.size() << " unacknowledged\n";
    return o.str();
}

void CpuCore::report(StatsWriter &w, uint64_t sim_ps) const
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
    w.add(g, "path_writes", st_.path_writes, "writes", "entries put on the persist path (8-byte stores; BROI: persist-buffer entries, cache blocks)");
    const fe_buf_stats *fs = fe_buf_get_stats(fe_);
    w.add(g, "fe_conflicts", fs->conflicts, "events", "L1 victim candidates that conflicted with the front-end buffer (IV-G)");
    w.add(g, "victim_waits", fs->victim_waits, "events", "evictions delayed: no conflict-free victim within the policy");
    w.add(g, "fe_full", fs->full, "events", "pushes refused by a full front-end buffer");
    w.add(g, "lock_spins", st_.lock_spins, "events", "acquires that found the lock held and waited");
    if (pb_) {
        const pbuf_stats *ps = pbuf_get_stats(pb_);
        w.add(g, "barriers", st_.barriers, "barriers", "persist barriers sent (ends of non-empty barrier epochs)");
        w.add(g, "dep_entries", ps->dep_entries, "entries", "persist-buffer entries with inter-thread dependencies");
        w.add(g, "pb_coalesced", ps->coalesced, "stores", "stores that joined an unsent persist-buffer entry of their block");
        w.add(g, "pb_full", ps->full, "events", "stores/fences refused by a full persist buffer");
    }
    w.add(g, "link_busy_ns", link_.st.busy_ps / 1000.0, "ns", "persist path serialization time");
    for (int i = 1; i < kWaits; ++i) {
        std::string n = wait_name((Wait)i);
        std::replace(n.begin(), n.end(), ' ', '_');
        std::replace(n.begin(), n.end(), '-', '_');
        w.add(g, "stall_" + n + "_cycles", st_.wait_ps[i] / cyc, "cycles", std::string("cycles stalled on ") + wait_name((Wait)i));
    }
    (void)sim_ps;
}

} // namespace persim
