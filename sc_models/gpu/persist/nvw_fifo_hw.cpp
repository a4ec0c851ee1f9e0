// The NVW-FIFOs of model nvwfifo (see persist/nvw_fifo_hw.h, docs/models/nvwfifo.md): the SystemC side of
// cores/nvw_fifo.{h,c}.
#include "persist/nvw_fifo_hw.h"
#include <algorithm>
#include <sstream>
#include "config_table.h"
#include "cores_util.h"
#include "gpu.h"
#include "l2.h"

namespace persim {
using namespace sc_core;

namespace {
constexpr uint32_t kPayloadBits = 56;     // line addresses (< 2^50) and marker tags
const char *const kKindName[] = {"none", "wi", "wg", "kr", "all", "kernel_end"};
const char *const kScopeName[] = {"wi", "wg", "kr"};

// persist.nvw_* keys: the NVW-FIFO beside each L1 and the one beside the L2 (cores/nvw_fifo.h).
struct NvwCfg {
    uint32_t l1_entries;
    uint32_t l2_entries;
    bool l2_pipelined;
    int64_t l2_markers;
};

const ConfigTable<NvwCfg> &nvw_table()
{
    using K = NvwCfg;
    static const ConfigTable<K> t =
        ConfigTable<K>("nvw_fifo", "sc_models/gpu/persist/nvw_fifo_hw.cpp")
            .num("persist.nvw_l1_entries", PERSIM_FIELD(K, l1_entries), 16, "entries",
                 1, 65535, "nvwfifo: NVW-FIFO entries beside each L1 (scoped-barriers paper Table 2: 16)")
            .num("persist.nvw_l2_entries", PERSIM_FIELD(K, l2_entries), 64, "entries",
                 1, 65535, "nvwfifo: NVW-FIFO entries beside the L2 (scoped-barriers paper Table 2: 64)")
            .flag("persist.nvw_l2_pipelined", PERSIM_FIELD(K, l2_pipelined), false,
                  "nvwfifo: the L2 keeps writing back NVW-FIFO entries behind a p_flush marker while the marker waits "
                  "for the acknowledgements of the write-backs before it (false: the marker blocks the FIFO head, "
                  "section 6.1 step 5 as written)")
            .num("persist.nvw_l2_markers", PERSIM_FIELD(K, l2_markers), 0, "markers", 0, 65534,
                 "nvwfifo: p_flush markers that may wait for their acknowledgements at once in the L2 NVW-FIFO. With "
                 "persist.nvw_l2_pipelined=false (section 6.1 as written: the marker at the head blocks the FIFO) only 0 or 1; "
                 "with persist.nvw_l2_pipelined=true, N = 1..65534 markers wait aside while the entries behind them keep "
                 "draining (0 = unbounded, i.e. 65534, the default)");
    return t;
}

NvwCfg nvw_cfg(const Config &c)
{
    NvwCfg k{};
    nvw_table().fill(c, k);
    return k;
}
} // namespace
PERSIM_CONFIG_TABLE(nvw_table, 410);

NvwSystem::NvwSystem(sc_module_name n, const Config &c, Gpu *gpu)
    : sc_module(n), gpu_(gpu), pm_in_dram_(gpu->cfg().sys.pm_in_dram), pipelined_(nvw_cfg(c).l2_pipelined),
      period_ps_(gpu->cfg().period_ps),
      hop_ps_(gpu->cfg().icnt_hop_ps), nsm_((uint32_t)gpu->sms.size()), nslots_(gpu->cfg().max_warps_per_sm)
{
    const NvwCfg k = nvw_cfg(c);
    l1_.resize(nsm_);
    for (auto &q : l1_) init_fifo(q, k.l1_entries, 0);
    // Literal section 6.1 (core ack_mode 1): a marker at the head waits for every write-back
    // before it and blocks the FIFO. Pipelined (core ack_mode 2): the marker waits aside for the
    // write-backs of its epoch while the entries behind it keep draining.
    // persist.nvw_l2_markers: how many markers may wait at once. Blocking FIFO (as written): 1 (0 =
    // default). Pipelined: N waiting markers aside while the entries behind them drain (0 = 65534).
    const int64_t mk = k.l2_markers;
    if (mk >= 2 && !pipelined_)
        throw ConfigError("persist.nvw_l2_markers=" + std::to_string(mk) +
                          " needs the pipelined L2 NVW-FIFO (persist.nvw_l2_pipelined=true); 1 = the blocking FIFO of "
                          "section 6.1, 0 = by persist.nvw_l2_pipelined");
    max_markers_ = pipelined_ ? (mk >= 1 ? (uint32_t)mk : 65534u) : 1u;
    init_fifo(l2_, k.l2_entries, pipelined_ ? 2 : 1);
    writes_.assign((size_t)nsm_ * nslots_, 0);
    level_.assign((size_t)nsm_ * nslots_, 0);
    drain_.assign(nsm_, 0);
    SC_METHOD(event_method);
    sensitive << ev_;
    dont_initialize();
}

void NvwSystem::init_fifo(Fifo &q, uint32_t entries, uint32_t ack_mode)
{
    // The L2 FIFO does not cap outstanding write-backs itself: the NVM controllers queue them.
    // Pipelined: max_markers_ waiting markers (persist.nvw_l2_markers; by default the core's
    // largest queue, 65534: markers in flight are bounded by the stalled requesters long before that).
    nvw_fifo_cfg fc{entries, kPayloadBits, ack_mode, 65535, ack_mode == 2 ? max_markers_ : 0u};
    q.mem.resize((nvw_fifo_bytes(&fc) + 7) / 8);
    if (nvw_fifo_init(q.mem.data(), &fc) != 0)
        throw ConfigError("persist: invalid NVW-FIFO size (persist.nvw_l1_entries / persist.nvw_l2_entries)");
    q.f = reinterpret_cast<nvw_fifo *>(q.mem.data());
    q.hist.init(entries);
}

uint64_t NvwSystem::new_tag(NvwKind k, int sm, uint32_t idx, uint64_t group)
{
    uint64_t t = next_tag_++;
    tags_[t] = Tag{k, sm, idx, group, now_ps()};
    return t;
}

// ---- L1 FIFOs -------------------------------------------------------------------------------

void NvwSystem::l1_action(int sm, nvw_action a, uint64_t p)
{
    Fifo &q = l1_[(size_t)sm];
    if (a == NVW_WRITE) {
        // Step 2: flush the line from the L1 to the L2 (the L2 appends it to its FIFO) unless an
        // earlier entry, an eviction or a kernel-end write-back already took it there.
        if (gpu_->sms[(size_t)sm]->l1->flush_pm_line(p)) ++q.flushed;
        else ++q.clean;
    } else if (a == NVW_MARKER) {
        // Step 3: the marker follows the lines to the L2 FIFO, one crossbar hop later.
        at_l2_[p] = now_ps() + hop_ps_;
        l2_push(true, p);
    }
}

void NvwSystem::l1_pump(int sm)
{
    Fifo &q = l1_[(size_t)sm];
    uint64_t p;
    for (;;) {
        const bool marker = nvw_fifo_markers(q.f) > 0;
        nvw_action a = nvw_fifo_drain(q.f, 1, &p);
        if (a == NVW_IDLE) break;
        if (a == NVW_WRITE && !marker) ++q.forced;     // the FIFO was full
        l1_action(sm, a, p);
    }
    q.hist.update(now_ps(), nvw_fifo_count(q.f));
}

void NvwSystem::on_l1_pm_store(int sm, uint32_t slot, uint64_t la)
{
    ++writes_[(size_t)sm * nslots_ + slot];
    Fifo &q = l1_[(size_t)sm];
    while (nvw_fifo_push_write(q.f, la) == NVW_FULL) {
        // A full FIFO forces its oldest entry out (persisting early is always allowed).
        uint64_t p;
        nvw_action a = nvw_fifo_drain(q.f, 1, &p);
        if (a == NVW_WRITE) ++q.forced;
        l1_action(sm, a, p);
    }
    l1_pump(sm);
}

void NvwSystem::push_marker(int sm, uint64_t tag)
{
    Fifo &q = l1_[(size_t)sm];
    while (nvw_fifo_push_flush(q.f, tag) == NVW_FULL) {
        uint64_t p;
        nvw_action a = nvw_fifo_drain(q.f, 1, &p);
        if (a == NVW_WRITE) ++q.forced;
        l1_action(sm, a, p);
    }
    l1_pump(sm);    // step 2: the marker drains the entries ahead of it
}

// ---- L2 FIFO --------------------------------------------------------------------------------

void NvwSystem::on_l2_pm_write(uint64_t la) { l2_push(false, la); }

void NvwSystem::on_l2_pm_evicted(uint64_t ack_ps)
{
    ++l2_evictions_;
    evict_until_ = std::max(evict_until_, ack_ps);
}

void NvwSystem::l2_push(bool marker, uint64_t payload)
{
    staged_.emplace_back(marker, payload);
    l2_pump();
    staged_peak_ = std::max<uint64_t>(staged_peak_, staged_.size());
}

void NvwSystem::l2_pump()
{
    const uint32_t cap = nvw_fifo_config(l2_.f)->entries;
    for (;;) {
        while (!staged_.empty() && nvw_fifo_count(l2_.f) < cap) {
            const auto &e = staged_.front();
            if (e.first) nvw_fifo_push_flush(l2_.f, e.second);
            else nvw_fifo_push_write(l2_.f, e.second);
            staged_.pop_front();
        }
        const bool marker = nvw_fifo_markers(l2_.f) > 0;
        uint64_t p;
        nvw_action a = nvw_fifo_drain(l2_.f, 1, &p);
        if (a == NVW_IDLE) break;
        if (a == NVW_WRITE) {
            // Step 4: write the line back to NVM if it is still NV-dirty in the L2. The core
            // counts it as outstanding (pipelined: in its epoch) until it is acknowledged.
            if (!marker) ++l2_.forced;
            const uint32_t ep = nvw_fifo_last_epoch(l2_.f);
            uint64_t ack = 0;
            if (gpu_->l2->writeback_pm_line(p, &ack)) {
                ++l2_.flushed;
                schedule(ack, 0, ep);
            } else {
                ++l2_.clean;
                nvw_fifo_ack_epoch(l2_.f, ep);
            }
        } else if (a == NVW_DONE) {
            // Steps 5-6: every write-back before the marker is acknowledged (and every NV line
            // the L2 evicted meanwhile); the acknowledgement travels back to the L1 / SM.
            // (Pipelined: NVW_WAIT moved a marker aside; it comes back here, in order.)
            auto it = at_l2_.find(p);
            uint64_t at = std::max({now_ps(), it != at_l2_.end() ? it->second : 0, evict_until_}) + hop_ps_;
            if (it != at_l2_.end()) at_l2_.erase(it);
            schedule(at, 1, p);
        }
    }
    l2_.hist.update(now_ps(), nvw_fifo_count(l2_.f) + (uint32_t)staged_.size());
    waiting_peak_ = std::max(waiting_peak_, nvw_fifo_waiting(l2_.f));
}

// ---- events ---------------------------------------------------------------------------------

void NvwSystem::schedule(uint64_t at, uint8_t type, uint64_t a)
{
    const uint64_t t = now_ps();
    if (at < t) at = t;
    evq_.push(Ev{type, a}, at);
    ev_.notify(ps(evq_.next_at() - t));
}

void NvwSystem::event_method()
{
    const uint64_t t = now_ps();
    evq_.pop_due(t, [&](const Ev &e) {
        if (e.type == 0) {
            nvw_fifo_ack_epoch(l2_.f, (uint32_t)e.a);   // ack_mode 1: the epoch is ignored
            l2_pump();
        } else {
            deliver(e.a);
        }
    });
    if (!evq_.empty()) ev_.notify(ps(evq_.next_at() - t));
}

void NvwSystem::deliver(uint64_t tag)
{
    auto it = tags_.find(tag);
    if (it == tags_.end()) return;
    const Tag g = it->second;
    tags_.erase(it);
    if (g.group) {
        auto gl = group_left_.find(g.group);
        if (gl != group_left_.end() && --gl->second > 0) return;
        if (gl != group_left_.end()) group_left_.erase(gl);
    }
    const int k = (int)g.kind;
    ++lat_[k].n;
    lat_[k].ps += now_ps() - g.issued_ps;
    if (g.kind == NvwKind::KR) {
        for (auto *s : gpu_->sms) wake(*s, NvwKind::KR, 0);
    } else {
        wake(*gpu_->sms[(size_t)g.sm], g.kind, g.idx);
    }
}

// ---- barriers -------------------------------------------------------------------------------

uint64_t NvwSystem::take_writes(int sm, uint32_t slot)
{
    uint64_t &w = writes_[(size_t)sm * nslots_ + slot];
    uint64_t v = w;
    w = 0;
    return v;
}

void NvwSystem::record(int scope, uint32_t level, uint64_t writes)
{
    auto &e = levels_[{scope, level}];
    e.first += writes;
    e.second += 1;
}

void NvwSystem::note_pbarrier(int sm, uint32_t slot) { ++level_[(size_t)sm * nslots_ + slot]; }

void NvwSystem::on_launch(int sm, uint32_t slot)
{
    writes_[(size_t)sm * nslots_ + slot] = 0;
    level_[(size_t)sm * nslots_ + slot] = 0;
}

void NvwSystem::barrier_warp(int sm, uint32_t slot, bool all_l1s, bool pbarrier)
{
    const uint64_t w = take_writes(sm, slot);
    if (pbarrier) record(0, level_[(size_t)sm * nslots_ + slot], w);
    if (!all_l1s) {
        push_marker(sm, new_tag(NvwKind::WI, sm, slot, 0));     // step 1: the CU's L1 FIFO
        return;
    }
    const uint64_t g = next_group_++;
    group_left_[g] = nsm_;
    for (uint32_t i = 0; i < nsm_; ++i) push_marker((int)i, new_tag(NvwKind::ALL, sm, slot, g));
}

void NvwSystem::barrier_block(int sm, uint32_t block_slot, const std::vector<uint32_t> &slots, bool pbarrier)
{
    uint64_t w = 0;
    uint32_t lvl = 0;
    for (uint32_t s : slots) {
        w += take_writes(sm, s);
        lvl = std::max(lvl, level_[(size_t)sm * nslots_ + s]);
    }
    if (pbarrier) record(1, lvl, w);
    push_marker(sm, new_tag(NvwKind::WG, sm, block_slot, 0));    // step 2: the CU's L1 FIFO
}

void NvwSystem::kr_arrive(bool pbarrier, uint64_t t)
{
    ++kr_arrived_;
    kr_pbarrier_ |= pbarrier;
    kr_recheck(t);
}

void NvwSystem::kr_recheck(uint64_t t)
{
    (void)t;
    if (kr_arrived_ == 0 || !gpu_->kernel_resident()) return;   // every workgroup must be resident
    if (kr_arrived_ < gpu_->unfinished_warps()) return;          // step 1: every wavefront of the kernel
    kr_arrived_ = 0;
    uint64_t w = 0;
    uint32_t lvl = 0;
    for (size_t i = 0; i < writes_.size(); ++i) {
        w += writes_[i];
        writes_[i] = 0;
        lvl = std::max(lvl, level_[i]);
    }
    if (kr_pbarrier_) record(2, lvl, w);
    kr_pbarrier_ = false;
    const uint64_t g = next_group_++;
    group_left_[g] = nsm_;
    for (uint32_t i = 0; i < nsm_; ++i) push_marker((int)i, new_tag(NvwKind::KR, (int)i, 0, g));  // step 2
}

void NvwSystem::kernel_end(int sm)
{
    for (uint32_t s = 0; s < nslots_; ++s) on_launch(sm, s);
    push_marker(sm, new_tag(NvwKind::END, sm, 0, 0));
}

std::string NvwSystem::describe() const
{
    std::ostringstream o;
    o << "  NVW-FIFOs: L2 " << nvw_fifo_count(l2_.f) << " entries (" << nvw_fifo_markers(l2_.f) << " markers, "
      << nvw_fifo_outstanding(l2_.f) << " write-backs unacknowledged), " << staged_.size() << " staged, "
      << nvw_fifo_waiting(l2_.f) << " markers waiting (pipelined); L1s";
    for (const auto &q : l1_) o << " " << nvw_fifo_count(q.f);
    o << "; kernel barrier arrivals " << kr_arrived_ << "\n";
    return o.str();
}

void NvwSystem::report(StatsWriter &w, uint64_t sim_ps)
{
    const std::string g = name();
    uint64_t l1w = 0, l1m = 0, l1f = 0, l1fl = 0, l1c = 0;
    double occ = 0;
    uint32_t peak = 0;
    for (auto &q : l1_) {
        const nvw_fifo_stats *s = nvw_fifo_get_stats(q.f);
        l1w += s->writes;
        l1m += s->markers;
        l1f += q.forced;
        l1fl += q.flushed;
        l1c += q.clean;
        q.hist.update(sim_ps, q.hist.cur);
        occ += sim_ps ? q.hist.weighted / (double)sim_ps : 0;
        peak = std::max(peak, q.hist.peak);
    }
    w.add(g, "pm_in_dram", pm_in_dram_ ? 1 : 0, "bool", "1 if the persistent region is placed in DRAM (no persist work)");
    w.add(g, "l1_entries", nvw_fifo_config(l1_[0].f)->entries, "entries", "NVW-FIFO entries beside each L1");
    w.add(g, "l2_entries", nvw_fifo_config(l2_.f)->entries, "entries", "NVW-FIFO entries beside the L2");
    w.add(g, "l1_nv_writes", l1w, "entries", "NV writes appended to the L1 FIFOs (one per PM line store)");
    w.add(g, "l1_markers", l1m, "markers", "p_flush markers appended to the L1 FIFOs");
    w.add(g, "l1_forced", l1f, "entries", "L1 FIFO entries pushed out by a full FIFO (no marker)");
    w.add(g, "l1_flushed_lines", l1fl, "lines", "lines flushed L1 -> L2 by dequeued L1 FIFO entries");
    w.add(g, "l1_clean_entries", l1c, "entries", "dequeued L1 entries whose line had already left the L1 or was clean");
    w.add(g, "l1_avg_occupancy", nsm_ ? occ / nsm_ : 0, "entries", "time-averaged L1 FIFO occupancy, mean over L1s");
    w.add(g, "l1_peak_occupancy", peak, "entries", "largest L1 FIFO occupancy");
    const nvw_fifo_stats *s2 = nvw_fifo_get_stats(l2_.f);
    l2_.hist.update(sim_ps, l2_.hist.cur);
    w.add(g, "l2_nv_writes", s2->writes, "entries", "NV lines appended to the L2 FIFO (L1 flushes and evictions)");
    w.add(g, "l2_markers", s2->markers, "markers", "p_flush markers that reached the L2 FIFO");
    w.add(g, "l2_pipelined", pipelined_ ? 1 : 0, "bool",
          "1 if entries behind a waiting marker keep draining (persist.nvw_l2_pipelined)");
    w.add(g, "l2_max_markers", max_markers_, "markers",
          "markers that may wait for their acknowledgements at once (persist.nvw_l2_markers; 1 = blocking FIFO)");
    w.add(g, "l2_waiting_peak", waiting_peak_, "markers",
          "most markers waiting aside at once in the pipelined L2 FIFO (0 with the blocking FIFO)");
    w.add(g, "l2_forced", l2_.forced, "entries", "L2 FIFO entries written back while no marker was queued (full FIFO)");
    w.add(g, "l2_writebacks", l2_.flushed, "lines", "NV-dirty L2 lines written back to NVM by dequeued L2 entries");
    w.add(g, "l2_clean_entries", l2_.clean, "entries", "dequeued L2 entries whose line was already written back");
    w.add(g, "l2_nv_evictions", l2_evictions_, "lines", "NV-dirty L2 lines evicted to NVM by replacement");
    w.add(g, "l2_avg_occupancy", sim_ps ? l2_.hist.weighted / (double)sim_ps : 0, "entries",
          "time-averaged L2 FIFO occupancy (staged entries included)");
    w.add(g, "l2_peak_occupancy", l2_.hist.peak, "entries", "largest L2 FIFO occupancy (staged entries included)");
    w.add(g, "l2_staged_peak", staged_peak_, "entries",
          "most entries waiting for room in a full L2 FIFO (back-pressure, not timed)");
    for (int k = 1; k <= (int)NvwKind::END; ++k) {
        w.add(g, std::string("barriers_") + kKindName[k], lat_[k].n, "barriers",
              std::string("completed persist barriers of kind ") + kKindName[k] +
                  (k == (int)NvwKind::ALL ? " (device-scope release)" : k == (int)NvwKind::END ? " (kernel end)" : ""));
        w.add(g, std::string("avg_latency_ns_") + kKindName[k], lat_[k].n ? lat_[k].ps / 1000.0 / lat_[k].n : 0, "ns",
              "average time from the markers' insertion to the acknowledgement");
    }
    // Table 3 of the paper: NV writes each barrier has to persist, per barrier level.
    for (int sc = 0; sc < 3; ++sc) {
        uint32_t maxl = 0;
        for (auto &e : levels_)
            if (e.first.first == sc) maxl = std::max(maxl, e.first.second);
        if (maxl == 0) continue;
        std::vector<double> mean(maxl, 0.0), cnt(maxl, 0.0);
        std::vector<std::string> labels;
        for (uint32_t l = 1; l <= maxl; ++l) {
            labels.push_back(std::to_string(l));
            auto it = levels_.find({sc, l});
            if (it == levels_.end()) continue;
            cnt[l - 1] = (double)it->second.second;
            mean[l - 1] = it->second.second ? (double)it->second.first / (double)it->second.second : 0;
        }
        w.add_hist(g, std::string("pbarrier_writes_") + kScopeName[sc], mean, labels, "NV writes",
                   std::string("mean NV writes (PM line stores) of the barrier's scope since its previous persist "
                               "barrier, per p_barrier_") + kScopeName[sc] +
                       ", by the barrier's position in its warps' streams (1 = first; B+tree: 1 = leaf level)");
        w.add_hist(g, std::string("pbarrier_count_") + kScopeName[sc], cnt, labels, "barriers",
                   std::string("p_barrier_") + kScopeName[sc] + " instances at each position");
    }
}

// ---- SM side ----------------------------------------------------------------------------------

void NvwSystem::exec(Sm &sm, WarpCtx &w, Prim p, const persim_op &op, uint64_t t)
{
    const bool pbar = op.kind == OPK_PBARRIER;
    sm.advance_prim(w);
    if (pm_in_dram_) {
        // DRAM-only baseline: the persist barrier has nothing to persist and is not executed.
        w.ready_ps = t + sm.period_ps();
        return;
    }
    const int id = sm.id();
    if (pbar) note_pbarrier(id, w.slot);
    sm.stall(w, Wait::PERSIST, ST_BARRIER, t);
    switch (p) {
    case Prim::NVW_WG: {
        w.persist_tag = (uint8_t)NvwKind::WG;
        BlockCtx &b = sm.blocks()[w.block_slot];
        ++b.persist_arrived;
        on_warp_finished(sm, b, t);       // the same check: has every live warp of the block arrived?
        break;
    }
    case Prim::NVW_KR:
        w.persist_tag = (uint8_t)NvwKind::KR;
        kr_arrive(pbar, t);
        break;
    case Prim::NVW_ALL:
        w.persist_tag = (uint8_t)NvwKind::ALL;
        barrier_warp(id, w.slot, true, pbar);
        break;
    default:
        w.persist_tag = (uint8_t)NvwKind::WI;
        barrier_warp(id, w.slot, false, pbar);
        break;
    }
}

void NvwSystem::on_warp_finished(Sm &sm, BlockCtx &b, uint64_t)
{
    if (b.persist_arrived == 0 || b.persist_arrived < b.live) return;
    b.persist_arrived = 0;
    auto &blocks = sm.blocks();
    auto &warps = sm.warps();
    const uint32_t bs = (uint32_t)(&b - blocks.data());
    std::vector<uint32_t> slots;
    for (uint32_t s : b.slots)
        if (warps[s].active && warps[s].block_slot == bs && warps[s].block == b.block) slots.push_back(s);
    barrier_block(sm.id(), bs, slots, true);
}

void NvwSystem::on_block_launch(Sm &sm, BlockCtx &b)
{
    for (uint32_t s : b.slots) on_launch(sm.id(), s);
}

bool NvwSystem::kernel_end_pending(Sm &sm)
{
    if (pm_in_dram_) return false;
    int &st = drain_[(size_t)sm.id()];
    if (st == 0) {
        // Kernel end: the L1's dirty lines are in the L2 now; a marker persists every NV line.
        st = 1;
        kernel_end(sm.id());
        return true;
    }
    if (st == 1) return true;
    st = 0;
    return false;
}

void NvwSystem::wake(Sm &sm, NvwKind k, uint32_t idx)
{
    const uint64_t t = now_ps();
    auto &warps = sm.warps();
    auto one = [&](WarpCtx &w, NvwKind want) {
        if (w.active && w.wait == Wait::PERSIST && w.persist_tag == (uint8_t)want) {
            w.persist_tag = 0;
            sm.resume(w, t + sm.period_ps());
        }
    };
    switch (k) {
    case NvwKind::WI:
    case NvwKind::ALL:
        one(warps[idx], k);
        break;
    case NvwKind::WG:
        for (uint32_t s : sm.blocks()[idx].slots)
            if (warps[s].block_slot == idx) one(warps[s], k);
        break;
    case NvwKind::KR:
        for (auto &w : warps) one(w, k);
        break;
    case NvwKind::END:
        drain_[(size_t)sm.id()] = 2;
        sm.check_drain();
        break;
    default:
        break;
    }
}

} // namespace persim
