// PbufPath: BROI's persist path (broi-persistence-parallelism.md IV-B/C, V; docs/models/broi.md). A
// store enters the thread's persist buffer (cores/persist_buf: an entry per cache block, or joining
// an unsent one of its barrier epoch) with the persist-persist dependencies the coherence engine's
// snoop of the other buffers finds; a load records its read-after-write dependencies; `order` /
// `pbarrier` ends the barrier epoch with a fence entry. The buffer releases its oldest entry once
// its dependencies are resolved: a block to its controller, a fence as a persist barrier to every
// controller; the controller's acknowledgement frees the entry and resolves the other buffers'
// dependencies on it. As an RDMA channel of a remote client (BROI V, Figure 8) the stores first
// cross the network (rdma.latency_ns, rdma.bw_gbps) into the server's remote persist buffer, and
// the persist ACK returns one network latency later: `sync` waits for it after every rdma_pwrite,
// `bsp` once, at the end of the stream.
#include <algorithm>
#include <cstring>
#include <memory>
#include <sstream>
#include <unordered_map>
#include <vector>
#include "bsp_check.h"
#include "cores_util.h"
#include "cpu_model.h"
#include "path_wires.h"
extern "C" {
#include "persist_buf.h"
}

namespace persim {
using namespace sc_core;

namespace {

class PbufPersistence;

class PbufPath : public PathWires {
public:
    SC_HAS_PROCESS(PbufPath);
    PbufPath(const CpuPathSite &s, PmControllers &pm, PbufPersistence &pp);

    bool may_go(bool at_end, uint64_t now, PathStall *s) override;
    bool store_room(uint64_t addr, uint32_t bytes, uint64_t t, PathStall *s) override;
    void store(uint64_t addr, uint32_t bytes, const uint8_t *data, uint64_t t) override;
    void load(uint64_t line) override;
    bool order(uint64_t t, PathStall *s) override;
    bool idle() const override { return wires_idle() && pbuf_count(pb_.get()) == 0; }
    void power_off() override { off_ = true; }
    std::string describe() const override;
    void report(StatsWriter &w, const std::string &g) const override;
    void on_late_ack(uint64_t token, uint64_t at) override;
    void trace(sc_core::sc_trace_file *tf, const std::string &prefix) override
    {
        trace_signals(tf, prefix, "persist_buffer_occupancy", "epoch");
        vcd_sample();
    }
    void vcd_sample()
    {
        if (!vcd_) return;
        vcd_buffer_ = pbuf_count(pb_.get());
        vcd_id_ = (int64_t)pbuf_epoch(pb_.get());
    }

    // The coherence engine's snoop of this buffer, its oldest live entry, and the resolution of
    // dependencies on thread `thread`'s entries.
    bool snoop(uint64_t line, uint64_t *id) const { return pbuf_snoop(pb_.get(), line, id); }
    uint64_t live_min() const { return pbuf_live_min(pb_.get()); }
    void resolve(uint32_t thread, uint64_t live_min)
    {
        if (pbuf_resolve(pb_.get(), thread, live_min) && head_blocked_) path_ev_.notify(SC_ZERO_TIME);
    }

private:
    void path_step();
    void ack_step();
    void slot_freed(uint64_t at) override { ack_ev_.notify(ps(at - now_ps())); }
    void payload(const Item &it, uint8_t *data, uint64_t mask[2]) const override;
    PbufPersistence &pp_;
    CoreState<persist_buf, pbuf_cfg> pb_;
    std::unordered_map<uint64_t, uint64_t> wid_;      // entry id -> its path write id
    sc_core::sc_event ack_ev_;
    bool head_blocked_ = false;
    // RDMA channel: the network from the client to the server's remote persist buffer; an entry may
    // leave the buffer once its data has arrived (id -> time); the persist ACK is back at the client
    // one network latency after the buffer got it; sync waits until entries up to this id are acked
    link_state net_{};
    std::unordered_map<uint64_t, uint64_t> ready_;
    uint64_t ack_back_at_ = 0;
    int64_t sync_wait_seq_ = -1;
    uint64_t barriers_ = 0;
};

class PbufPersistence : public CpuPersistence {
public:
    explicit PbufPersistence(const CpuPersistEnv &e) : cfg_(e.cfg), model_(e.model)
    {
        const uint32_t ctrls = MemCtrlCfg::nvm(e.cc).controllers;
        if (ctrls > 1)
            throw ConfigError("nvm.controllers: model '" + std::string(e.model.name) + "' orders barrier epochs at one "
                              "memory controller (BROI IV-C/D, Table III); with " + std::to_string(ctrls) +
                              " controllers epochs could persist out of order (set nvm.controllers = 1)");
        if (e.cfg.crash_check) bsp_ = std::make_unique<BspCheck>();
    }
    std::unique_ptr<CpuPersistPath> make_path(const CpuPathSite &s, PmControllers &pm) override
    {
        auto p = std::make_unique<PbufPath>(s, pm, *this);
        if (paths_.size() <= s.id) paths_.resize(s.id + 1, nullptr);
        paths_[s.id] = p.get();
        return p;
    }
    DurableSink *checker() override { return bsp_.get(); }
    bool checking() const { return bsp_ != nullptr; }
    void finish_check(const CheckCtx &c) override
    {
        if (bsp_) bsp_->finish(c);
    }
    void report_check(StatsWriter &w) override
    {
        if (bsp_) bsp_->report(w);
    }
    // A new persist-buffer entry of thread `thread` (a block of `line`) in barrier epoch `epoch`.
    // `entry`: the persist buffer's entry as the core made it (its request ID and the dependencies it
    // recorded: none in the broken ignore_deps mode); t: when it entered the buffer.
    uint64_t new_write(uint32_t thread, uint64_t epoch, uint64_t line, const pbuf_entry &entry, uint64_t t)
    {
        const uint64_t wid = next_wid_++;
        if (bsp_) {
            std::vector<std::pair<uint32_t, uint64_t>> deps;
            for (uint32_t i = 0; i < entry.ndeps; ++i) deps.push_back({entry.deps[i].thread, entry.deps[i].id});
            bsp_->path_write(wid, thread, epoch, line, vorder_, entry.id, std::move(deps), t);
        }
        ++vorder_;
        return wid;
    }
    // The coherence engine's snoop of the other threads' buffers for block `line` (their youngest
    // live entries of it).
    std::vector<pbuf_dep> snoop(uint32_t thread, uint64_t line) const
    {
        std::vector<pbuf_dep> d;
        for (uint32_t c = 0; c < paths_.size(); ++c) {
            uint64_t id;
            if (c != thread && paths_[c] && paths_[c]->snoop(line, &id)) d.push_back(pbuf_dep{c, id});
        }
        return d;
    }
    // Thread `thread`'s buffer lost entries: the others' dependencies on them may resolve.
    void acked(uint32_t thread)
    {
        const uint64_t lm = paths_[thread]->live_min();
        for (uint32_t c = 0; c < paths_.size(); ++c)
            if (c != thread && paths_[c]) paths_[c]->resolve(thread, lm);
    }
    const CpuCfg &cfg_;
    const CpuModel &model_;

private:
    std::vector<PbufPath *> paths_;
    std::unique_ptr<BspCheck> bsp_;
    uint64_t next_wid_ = 1, vorder_ = 0;
};

PbufPath::PbufPath(const CpuPathSite &s, PmControllers &pm, PbufPersistence &pp)
    : PathWires(s, pp.cfg_, pm, pp.model_.path_bytes), pp_(pp),
      pb_(pbuf_cfg{pp.cfg_.fe_entries, pp.cfg_.sys.line_bytes, pp.cfg_.pb_coalesce ? 1u : 0u, pp.model_.deps ? 0u : 1u},
          pbuf_bytes, pbuf_init, "persist_path.fe_entries: invalid persist buffer (1..64 entries, l1.line_bytes 8..128)")
{
    if (remote_)       // the RDMA network in front of the remote persist buffer (BROI V, Figure 8)
        init_link(&net_, cfg_.rdma_latency_ps, cfg_.rdma_gbps, "rdma.*: invalid RDMA network (latency, bandwidth)");
    SC_METHOD(path_step);
    sensitive << path_ev_;
    dont_initialize();
    SC_METHOD(ack_step);
    sensitive << ack_ev_;
    dont_initialize();
}

// rdma: sync waits for each rdma_pwrite's persist ACK; bsp checks once, at the end; an ACK is back
// at the client one network latency after the controller gave it (ack_step)
bool PbufPath::may_go(bool at_end, uint64_t now, PathStall *s)
{
    if (!remote_ || (sync_wait_seq_ < 0 && !at_end)) return true;
    const uint64_t live = pbuf_live_min(pb_.get());
    if (sync_wait_seq_ >= 0 ? live <= (uint64_t)sync_wait_seq_ : live != UINT64_MAX) {
        *s = PathStall{CpuWait::PERSIST_ACK, UINT64_MAX};
        return false;
    }
    if (ack_back_at_ > now) {
        *s = PathStall{CpuWait::PERSIST_ACK, ack_back_at_};
        return false;
    }
    sync_wait_seq_ = -1;
    return true;
}

// Room for an entry per cache block the store touches.
bool PbufPath::store_room(uint64_t addr, uint32_t bytes, uint64_t, PathStall *s)
{
    if (cfg_.fe_entries - pbuf_count(pb_.get()) >= (uint32_t)((addr + bytes - 1) / lb_ - addr / lb_ + 1)) return true;
    *s = PathStall{CpuWait::FE_FULL, UINT64_MAX};          // woken by ack_step
    return false;
}

// The store enters the persist buffer (a new entry per cache block, or joining an unsent one of the
// epoch), with the persist-persist dependencies the snoop of the other buffers finds (IV-C 1,
// Figure 6(b) steps 4-6).
void PbufPath::store(uint64_t addr, uint32_t bytes, const uint8_t *data, uint64_t t)
{
    const uint64_t arrive = remote_ ? link_send(&net_, t, bytes) : 0;
    for (uint64_t ln = addr / lb_; ln <= (addr + bytes - 1) / lb_; ++ln) {
        const uint64_t a0 = std::max(addr, ln * lb_), a1 = std::min(addr + bytes, (ln + 1) * lb_);
        const std::vector<pbuf_dep> deps = pp_.snoop(id_, ln);
        uint64_t eid = 0;
        const pbuf_result r = pbuf_store(pb_.get(), ln, (uint32_t)(a0 - ln * lb_), (uint32_t)(a1 - a0), data + (a0 - addr),
                                         deps.data(), (uint32_t)deps.size(), &eid);
        if (remote_) ready_[eid] = std::max(ready_[eid], arrive);
        if (r == PBUF_NEW) {
            pbuf_entry made{};
            if (pp_.checking() && pbuf_find(pb_.get(), eid, &made) != 0) throw std::logic_error("persist buffer lost the entry it made");
            wid_[eid] = pp_.new_write(id_, pbuf_epoch(pb_.get()), ln, made, t);
            ++path_writes_;
        } else if (r != PBUF_COALESCED) {
            throw std::logic_error("persist buffer refused a store it had room for");
        }
    }
    vcd_sample();
    path_ev_.notify(SC_ZERO_TIME);
}

// RAW: this thread's next persist follows what it read.
void PbufPath::load(uint64_t line)
{
    const std::vector<pbuf_dep> d = pp_.snoop(id_, line);
    pbuf_load(pb_.get(), d.data(), (uint32_t)d.size());
}

// A persist barrier ends the barrier epoch (BROI IV-A): a fence entry, unless the epoch is empty
// (nothing to order).
bool PbufPath::order(uint64_t t, PathStall *s)
{
    uint64_t fid = 0;
    const pbuf_result r = pbuf_fence(pb_.get(), &fid);
    if (r == PBUF_FULL) {
        *s = PathStall{CpuWait::FE_FULL, UINT64_MAX};
        return false;
    }
    vcd_sample();
    if (r == PBUF_NEW) {
        ++barriers_;
        if (remote_) ready_[fid] = link_send(&net_, t, 8);   // the end of the rdma_pwrite
        path_ev_.notify(SC_ZERO_TIME);
    }
    if (remote_ && cfg_.rdma_sync && pbuf_last_store(pb_.get()) != UINT64_MAX) {
        sync_wait_seq_ = (int64_t)pbuf_last_store(pb_.get());   // wait for this rdma_pwrite's persist ACK
    }
    return true;
}

// The buffer releases its oldest entry once its dependencies are resolved (IV-C).
void PbufPath::path_step()
{
    if (off_) return;
    const uint64_t now = now_ps();
    for (;;) {
        pbuf_entry e;
        const pbuf_head_state h = pbuf_head(pb_.get(), &e);
        head_blocked_ = h == PBUF_HEAD_BLOCKED;      // woken by resolve()
        if (h != PBUF_HEAD_READY) return;
        auto rd = ready_.find(e.id);
        if (rd != ready_.end()) {
            if (rd->second > now) {          // still crossing the network
                path_ev_.notify(ps(rd->second - now));
                return;
            }
            ready_.erase(rd);
        }
        const uint64_t free = link_free_at(&link_);
        if (free > now) {
            path_ev_.notify(ps(free - now));
            return;
        }
        const bool fence = e.kind == PBUF_FENCE;
        Item it{};
        if (fence) {
            it.message = it.barrier = true;
        } else {
            it.line = true;
            it.word = e.line * lb_ / 8;
            it.seq = e.id;
            it.wid = wid_.at(e.id);
            wid_.erase(e.id);
            outstanding_[it.wid] = Out{e.id, 0, false};
        }
        send(it, fence ? -1 : (int64_t)pm_.owner(e.line * lb_), now);
        pbuf_send(pb_.get());
        if (fence) {          // the fence left the buffer: its oldest live entry may have changed
            pp_.acked(id_);
            host_.wake_if(wait_bit(CpuWait::PERSIST_ACK) | wait_bit(CpuWait::FE_FULL), now);
        }
    }
}

// The controller's acknowledgements reach the persist buffer (one path latency after the write
// completed): the entries leave, and the other buffers' dependencies on them resolve.
void PbufPath::ack_step()
{
    if (off_) return;
    const uint64_t now = now_ps();
    bool any = false;
    frees_.pop_due(now, [&](uint64_t seq) {
        pbuf_ack(pb_.get(), seq);
        any = true;
    });
    if (any) {
        vcd_sample();
        if (remote_) ack_back_at_ = now + cfg_.rdma_latency_ps;     // the NIC sends the persist ACK back
        pp_.acked(id_);
        host_.wake_if(wait_bit(CpuWait::FE_FULL) | wait_bit(CpuWait::PERSIST_ACK), now);
    }
    if (!frees_.empty()) ack_ev_.notify(ps(frees_.next_at() - now));
}

void PbufPath::on_late_ack(uint64_t token, uint64_t at)
{
    auto it = outstanding_.find(token);
    if (it == outstanding_.end()) return;
    free_slot(token, at);
    outstanding_.erase(it);
}

// A persist-buffer entry stays until its acknowledgement: its data are read at delivery.
void PbufPath::payload(const Item &it, uint8_t *data, uint64_t mask[2]) const
{
    pbuf_entry e;
    if (pbuf_find(pb_.get(), it.seq, &e) != 0) throw std::logic_error("persist-buffer entry left before delivery");
    std::memcpy(data, e.data, lb_);
    mask[0] = e.mask[0];
    mask[1] = e.mask[1];
}

std::string PbufPath::describe() const
{
    std::ostringstream o;
    o << ", persist buffer " << pbuf_count(pb_.get()) << "/" << cfg_.fe_entries << " (" << pbuf_unsent(pb_.get())
      << " unsent" << (head_blocked_ ? ", head waits for a dependency" : "") << "), " << outstanding_.size()
      << " unacknowledged";
    return o.str();
}

void PbufPath::report(StatsWriter &w, const std::string &g) const
{
    report_common(w, g, path_writes_, nullptr, link_.st.busy_ps / 1000.0);
    const pbuf_stats *ps = pbuf_get_stats(pb_.get());
    w.add(g, "barriers", barriers_, "barriers", "persist barriers sent (ends of non-empty barrier epochs)");
    w.add(g, "dep_entries", ps->dep_entries, "entries", "persist-buffer entries with inter-thread dependencies");
    w.add(g, "pb_coalesced", ps->coalesced, "stores", "stores that joined an unsent persist-buffer entry of their block");
    w.add(g, "pb_full", ps->full, "events", "stores/fences refused by a full persist buffer");
}

} // namespace

std::unique_ptr<CpuPersistence> make_pbuf_persistence(const CpuPersistEnv &e)
{
    return std::make_unique<PbufPersistence>(e);
}

} // namespace persim
