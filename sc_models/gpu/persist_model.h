// Persistency models of the GPU as plug-ins (docs/architecture.md "Persistency models"). A model is
// one file under sc_models/gpu/persist/ and one line in the registry (persist_model.cpp):
//   - `lower` maps a workload's ordering intent (workloads/op.h) to hardware primitives (Prim);
//   - `make_l1` builds the model's hardware beside each L1, if any (SBRP: the persist buffer), behind
//     the L1Persist interface the L1 calls on every PM store, eviction, acknowledgement and fence;
//   - `make_hw` builds the model's GPU-wide hardware, if any (nvwfifo: the NVW-FIFOs), behind the
//     PersistHw interface the SM, L2 and GPU call.
// The SM, L1, L2 and GPU hold no model-specific code: they run the generic primitives (write-back
// fences with acknowledgement tickets, flags, execution barriers) and hand the model's own
// primitives and events to these interfaces.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>
#include <systemc>
#include "config.h"
#include "system.h"
#include "registry.h"
#include "stats.h"
extern "C" {
#include "op.h"
}

namespace persim {

class Gpu;
class Sm;
class L1;
struct WarpCtx;
struct BlockCtx;

enum class Prim : uint8_t {
    OFENCE,        // SBRP oFence (PB order entry, no stall)
    DFENCE,        // SBRP dFence (stall until the warp's persists are durable)
    PACQ_BLK,      // SBRP block-scope persist acquire (PB entry, no stall)
    PREL_BLK,      // SBRP block-scope persist release (PB entry, no stall)
    PACQ_DEV,      // SBRP device-scope persist acquire (stall until ACTR == 0)
    PREL_DEV,      // SBRP device-scope persist release (stall until the warp's persists are durable)
    EPOCH_BAR,     // epoch barrier: flush the SM's dirty PM lines, wait for acks, invalidate PM lines
    SYS_FENCE,     // GPM: __threadfence_system as a barrier: flush all dirty lines (PM and volatile),
                   // wait for acks, invalidate the L1
    VOL_FLUSH,     // write back dirty volatile lines and wait (device-scope release visibility)
    L1_INV,        // invalidate clean L1 lines (device-scope acquire)
    FLAG_STORE,    // write the release flag and publish it at the op's scope
    FLAG_WAIT,     // spin until the acquire flag holds the value (visible at the op's scope)
    SYNC,          // execution barrier at the op's scope
    // NVW-FIFO persist barriers (model nvwfifo, persist/nvwfifo.cpp; scoped-barriers paper section 6.1)
    NVW_WI,        // p_barrier_wi: p_flush marker into the CU's L1 NVW-FIFO, the issuing warp waits
    NVW_WG,        // p_barrier_wg: wait for the whole block, then marker into the L1 FIFO, block waits
    NVW_KR,        // p_barrier_kr: wait for the whole kernel, markers into every L1 FIFO, all wait
    NVW_ALL,       // markers into every L1 FIFO, only the issuing warp waits (device-scope release)
    // Two-data-path models (AGPM family, persist/data_path.cpp; AGPM paper section II-A): clwb of
    // every dirty PM line of the SM's L1 plus a fence that waits for every PM write of the SM
    // (write-backs and non-temporal stores) to be acknowledged; lines stay valid (clwb, not
    // clflush). PersistHw::elide_pm_flush may skip it (Themis' fence elision).
    PM_FLUSH,
};
constexpr int kPrimCount = (int)Prim::PM_FLUSH + 1;

// The data path of one line of a PM store (AGPM paper sections I, IV-B): T (temporal: into the
// L1 and L2, persisted when the line is written back to the NVM controller), NT (non-temporal:
// bypass the L1 and L2 straight into the NVM controller's write queue; a copy in the caches is
// written back if dirty and dropped), T_WB (temporal, then a clwb-like write-back of the line right
// after the store: AGPM's added write-back when a log store's path changed from NT to T).
enum class StorePath : uint8_t { T, NT, T_WB };

// What the L1 knows about a PM store line when it asks the model for its path.
struct PmStoreQuery {
    int sm;
    uint32_t warp;
    uint64_t la;            // line address
    const uint64_t *mask;   // bytes of the line written (bit i = byte i)
    uint32_t line_bytes;
    bool log;               // a log write (persim_op.st_class == STC_LOG)
    uint32_t nseg;          // lines the warp's store op touches (coalescing degree; 1 = coalesced)
    bool l1_hit;            // the line is in the L1
    bool resv_fail;         // L1 miss whose victim line still waits for its fill (a reservation failure)
};

// Why a warp stalled in the L1's persist hardware.
enum class StallWhy : uint8_t { NONE, EDM, ODM, PB_FULL };

struct L1Result {
    bool done;              // false: the warp stalls in the persist hardware (why says on what)
    bool advance;           // with !done: the operation took effect, do not retry it
    StallWhy why;
    uint64_t ready_ps;      // done: when the warp may continue
};

// Persist hardware beside one L1 (SBRP: the persist buffer). Line indices are the L1 cache core's.
class L1Persist {
public:
    virtual ~L1Persist() = default;
    // A PM store of `warp` to line `idx`: NONE (go ahead) or the stall reason.
    virtual StallWhy store(uint32_t warp, int32_t idx) = 0;
    // Victim filter: line `idx` may not leave the L1 now.
    virtual bool pinned(int32_t idx) const = 0;
    // Line `idx`, held by the unit, is to be evicted by `warp`: true and *phase if it may leave now
    // (the L1 writes it back as a persist of that phase), false if the warp stalls (EDM).
    virtual bool evict(uint32_t warp, int32_t idx, uint32_t *phase) = 0;
    // True if line `idx` is held by the unit (leaves only in the unit's order, not by a fence flush).
    virtual bool holds(int32_t idx) const = 0;
    // An ordering primitive of the model (e.g. an SBRP fence) issued by `warp`: took effect (OK),
    // refused for lack of room (FULL, retry), or took effect and the warp may have to wait (WAIT:
    // it waits while its stalled() bit is set once the unit has been pumped).
    enum class FenceResult : uint8_t { OK, FULL, WAIT };
    virtual FenceResult fence(uint32_t warp, Prim p) = 0;
    // A persist of `phase` sent by the unit was acknowledged.
    virtual void ack(uint32_t phase) = 0;
    // Runs the unit's head actions (the L1 writes back what it asks) until idle.
    virtual void pump() = 0;
    virtual void sample() {}                     // sample occupancy statistics now
    virtual uint64_t stalled() const = 0;        // warps stalled in the unit (bit = warp slot)
    virtual void drain_all(bool on) = 0;         // kernel end: drain everything
    virtual bool idle() const = 0;               // nothing held, nothing unacknowledged
    virtual std::string describe() const = 0;    // state for stuck reports
    virtual void report(StatsWriter &w, const std::string &group, uint64_t sim_ps) = 0;
    virtual void trace(sc_core::sc_trace_file *, const std::string &) {}
};

// GPU-wide persist hardware of a model, and the hooks the SM, L1s, L2 and GPU call. The defaults
// are "no hardware": a model without one gets this base.
class PersistHw {
public:
    virtual ~PersistHw() = default;
    // SM: runs one of the model's own primitives for warp `w` (advance / stall / resume it through
    // the Sm's public primitive helpers). Generic primitives never reach here.
    virtual void exec(Sm &, WarpCtx &, Prim, const persim_op &, uint64_t) {}
    virtual void on_block_launch(Sm &, BlockCtx &) {}
    virtual void on_warp_finished(Sm &, BlockCtx &, uint64_t) {}
    // Kernel end, after the SM's L1 is written back: true while the model still has work for this
    // SM (the SM waits; the model calls Sm::persist_drained() when done).
    virtual bool kernel_end_pending(Sm &) { return false; }
    // L1: a PM store performed by `warp` of SM `sm` to line address `la`.
    virtual void on_l1_pm_store(int, uint32_t, uint64_t) {}
    // L1: true if the model chooses the data path of PM stores (pm_store_path is asked; the L1 then
    // also reports the per-path statistics). Default: no, every PM store is temporal.
    virtual bool chooses_store_path() const { return false; }
    // L1: the data path of one line of a PM store (generic two-path mechanism, l1.cpp). Default: T.
    virtual StorePath pm_store_path(const PmStoreQuery &) { return StorePath::T; }
    // L1: a PM load or store line was performed (after the path was chosen; `hit`: the L1 held the
    // line before the access). For models that record locality (AGPM buffers). `log`: a log write
    // (store) or the read of the data a log update copies (load, `ld log`).
    virtual void on_l1_pm_access(int, uint64_t /*la*/, const uint64_t * /*mask*/, bool /*write*/, bool /*log*/,
                                 StorePath, bool /*hit*/) {}
    // L1: dirty PM line `la` was written back towards the L2 (replacement, fence, clwb).
    virtual void on_l1_pm_writeback(int, uint64_t /*la*/) {}
    // L1: a PM request of SM `sm` (load miss, write-back or NT store) finished after `wait_ps`.
    virtual void on_pm_request_done(int /*sm*/, uint64_t /*wait_ps*/) {}
    // SM: Prim::PM_FLUSH with `dirty_pm_lines` dirty PM lines in the L1: true to skip it (no
    // write-back, no wait). Default: never.
    virtual bool elide_pm_flush(int /*sm*/, uint32_t /*dirty_pm_lines*/) { return false; }
    // L2: keep PM lines dirty (write-back) instead of writing them through to the PM controller.
    virtual bool l2_pm_write_back() const { return false; }
    virtual void on_l2_pm_write(uint64_t) {}          // a PM line was written into the L2 (write-back mode)
    virtual void on_l2_pm_evicted(uint64_t) {}        // a dirty PM line left the L2 by replacement (ack time)
    // GPU: a warp or block finished or arrived at a grid-wide barrier.
    virtual void on_grid_recheck(uint64_t) {}
    virtual std::string describe() const { return ""; }
    virtual void report(StatsWriter &, uint64_t) {}
};

struct PersistModel {
    const char *name;
    const char *desc;
    // Lowers one intent op; returns the number of primitives written to out (<= 4).
    int (*lower)(const persim_op &op, Prim out[4]);
    // Hardware beside each L1 (nullptr: none).
    std::unique_ptr<L1Persist> (*make_l1)(const Config &c, L1 &l1) = nullptr;
    // GPU-wide hardware (nullptr: none). Called once the SMs, L1s and L2 exist.
    std::unique_ptr<PersistHw> (*make_hw)(const Config &c, Gpu &gpu) = nullptr;
};

// The "no hardware" PersistHw (what a model without make_hw gets).
PersistHw *no_persist_hw();

// Every model registers itself in its file: PERSIM_REGISTER(PersistModel, "name", kModel, order).
inline const PersistModel *find_model(const std::string &name) { return Registry<PersistModel>::find(name); }
inline const std::vector<const PersistModel *> &all_models() { return Registry<PersistModel>::all(); }
const char *prim_name(Prim p);
// The persist order a model promises, in the vocabulary of the persist-order check (system.h
// OrderAct): each op lowered by the model, each primitive read as the order it makes.
int order_acts(const PersistModel &m, const persim_op &op, OrderAct out[kMaxOrderActs]);
// Rewrites every block-scope RELEASE/ACQUIRE of the program to device scope (config key
// persist.promote_block_scope; SBRP section 7.2 "Importance of scopes"). Execution barriers
// (SYNC) keep their scope. Returns the number of ops changed.
uint64_t promote_block_scope(persim_prog *p);

// The shape every lowering shares (persist/*.cpp): a model names its primitive for each intent.
//   order / durable          -> order / durable
//   persist_barrier(scope)   -> pbar_warp / pbar_block / pbar_device; with pbar_sync a scope wider
//                               than the warp is SYNC, the primitive, SYNC (every warp of the scope
//                               reaches it, runs it, and waits for the scope again)
//   release(scope)           -> rel_block / rel_device, then (device scope, vol_flush) VOL_FLUSH, then
//                               FLAG_STORE
//   acquire(scope)           -> FLAG_WAIT, then acq_block / acq_device, then (device scope, vol_flush)
//                               L1_INV
//   sync(scope)              -> SYNC
// kNoPrim: the model has no primitive there. vol_flush = false: the model's device-scope primitive
// already writes back volatile lines and invalidates the L1 (GPM's __threadfence_system).
constexpr Prim kNoPrim = (Prim)0xFF;
struct IntentPrims {
    Prim order, durable;
    Prim pbar_warp, pbar_block, pbar_device;
    bool pbar_sync;
    Prim rel_block, rel_device, acq_block, acq_device;
    bool vol_flush;
};
int lower_intent(const IntentPrims &m, const persim_op &op, Prim out[4]);

} // namespace persim
