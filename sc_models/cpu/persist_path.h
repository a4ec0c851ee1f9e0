// The cpu system's persist paths (docs/models/lightwsp.md, docs/models/broi.md, docs/architecture.md
// "The cpu side"): what a store, a load, an ordering op and a region boundary do beyond the caches,
// the way L1Persist / PersistHw serve the GPU. A CpuCore replays its thread's ops through its caches
// and calls its CpuPersistPath; the path decides what goes to the memory controllers, when, and
// when the core must wait. One implementation per path:
//   RegionPath  (paths/region_path.cpp)  the front-end buffer to the (region-gated) WPQs: LightWSP,
//               PPA, Capri; region IDs, durability, end-of-region policy and checkpoint layout in
//               the C core cores/region_seq;
//   PbufPath    (paths/pbuf_path.cpp)    BROI's persist buffer (cores/persist_buf) to the BROI
//               controller; as an RDMA channel of a remote client, behind the network;
//   NoPath      (persist_path.cpp)       no persist path (memory mode, ideal PSP).
// The system-wide part of a model (CpuPersistence: region sequencer, the buffers' coherence snoop,
// the crash checker, write ids) is made once per system; it makes each thread's path.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <systemc>
#include "cpu_cfg.h"
#include "mem_proto.h"
#include "stats.h"
#include "system.h"
extern "C" {
#include "cache.h"
#include "fe_buf.h"
#include "mem_image.h"
#include "op.h"
#include "region_form.h"
}

namespace sc_core { class sc_trace_file; }

namespace persim {

struct PmControllers;
struct CpuModel;

// Why a core waits (its stall statistics, in this order).
enum class CpuWait : uint8_t { NONE, LOADS, SB, FE_FULL, REGION, LOCK, BARRIER, VICTIM, PERSIST_ACK };
constexpr int kCpuWaits = 9;
const char *cpu_wait_name(CpuWait w);

// A refusal: the core waits for `wait` until `until` (UINT64_MAX: until the path wakes it).
struct PathStall {
    CpuWait wait = CpuWait::NONE;
    uint64_t until = UINT64_MAX;
};

// What a path needs from its core.
class CpuPathHost {
public:
    virtual ~CpuPathHost() = default;
    // Wake the core at `at` (>= now) if it waits for one of `waits` (a bit per CpuWait).
    virtual void wake_if(uint32_t waits, uint64_t at) = 0;
};
constexpr uint32_t wait_bit(CpuWait w) { return 1u << (uint32_t)w; }
constexpr uint32_t kPcSlot = 63;      // the PC store's checkpoint slot (cores/region_seq.h RSEQ_PC_SLOT)

// One hardware thread's (or RDMA channel's) persist path.
class CpuPersistPath : public AckReceiver {
public:
    ~CpuPersistPath() override = default;
    // Region formation: the boundaries of ops [begin, end) (plan->n = 0: the path forms no regions).
    virtual void plan(const persim_prog *, uint64_t /*begin*/, uint64_t /*end*/, region_plan *p) { p->n = 0; }
    // Before each op (and once more at the end of the stream, at_end): may the core go on?
    virtual bool may_go(bool /*at_end*/, uint64_t /*t*/, PathStall *) { return true; }
    // A checkpoint (slot < kPcSlot) or PC store (slot kPcSlot) of the boundary in progress: its word.
    virtual void checkpoint(uint32_t /*slot*/, uint64_t *addr, uint64_t *value) { *addr = *value = 0; }
    // The region ends at t (after its PC store).
    virtual void region_end(uint64_t /*t*/) {}
    // Room for a store of `bytes` at addr, before the L1 takes it (false: *s says the wait).
    virtual bool store_room(uint64_t /*addr*/, uint32_t /*bytes*/, uint64_t /*t*/, PathStall *) { return true; }
    // The store left the store buffer into the L1 at t: it enters the path.
    virtual void store(uint64_t /*addr*/, uint32_t /*bytes*/, const uint8_t * /*data*/, uint64_t /*t*/) {}
    // A load of `line` (cache-line index) at t.
    virtual void load(uint64_t /*line*/) {}
    // An ordering op (OPK_ORDER, OPK_PBARRIER) at t.
    virtual bool order(uint64_t /*t*/, PathStall *) { return true; }
    // A durability point (OPK_DURABLE): earlier stores durable before the thread goes on.
    virtual bool durable_point(PathStall *) { return true; }
    // The L1 victim for `line` (a way index; -1: none may leave yet, retry at victim_retry_at()).
    virtual int32_t victim(cache *c, uint64_t line, uint64_t /*t*/) { return cache_victim(c, line); }
    virtual uint64_t victim_retry_at() const { return UINT64_MAX; }
    // Nothing of this thread's left to persist.
    virtual bool idle() const { return true; }
    virtual void power_off() {}
    virtual std::string describe() const { return ""; }
    // --vcd: its signals under `prefix` (the core's name), e.g. buffer occupancy and region/epoch ID.
    virtual void trace(sc_core::sc_trace_file *, const std::string & /*prefix*/) {}
    // Its figures, in its core's group (NoPath: the same keys, zero).
    virtual void report(StatsWriter &w, const std::string &group) const;
    // The figures every path reports (fs: its front-end buffer's, null when it has none).
    static void report_common(StatsWriter &w, const std::string &g, uint64_t path_writes, const fe_buf_stats *fs,
                              double link_busy_ns);
    void on_late_ack(uint64_t, uint64_t) override {}
};

// Where a path is (what CpuPersistence::make_path gets).
struct CpuPathSite {
    std::string name;               // its SystemC name (made in the core's constructor: a child of the core)
    uint32_t id;                    // hardware thread / channel index (0..cores+channels-1)
    bool remote;                    // an RDMA channel of a remote client (BROI V)
    int requester;                  // MemExt::requester of its persists
    CpuPathHost *host;
};

// What the crash checker's last pass gets (CpuPersistence::finish_check): persim crash's image
// choice (null: every distinct run image), whether every controller's core makes a write durable
// as soon as it takes it (WriteQueue::acks_on_entry: nothing but the queue's own order holds it
// back, so a model image may make it durable the moment it is performed), and the end of the run.
struct CheckCtx {
    const CrashSelect *sel = nullptr;
    bool acks_on_entry = true;
    uint64_t end_ps = 0;
};

// What persim crash's image choice (CheckCtx::sel) found: figures of the checker's group.
struct SelFigs {
    uint64_t run_images = 0, checked_run = 0, failed_run = 0, targeted = 0, targeted_failed = 0, samples = 0,
             samples_failed = 0, failed = 0, seed = 1;
    int64_t first_kind = -1, first_index = -1;   // first failing image: 0 a run image, 1 targeted, 2 a sample; its number
    uint64_t first_ps = 0, first_addr = 0, first_a = 0, first_b = 0;
    // An image failed: counted, and recorded when it is the first (at t; addr: lowest differing word,
    // a: an older write not durable, b: the write made durable; 0 when none).
    void fail(uint64_t t, int kind, int64_t index, uint64_t addr, uint64_t a, uint64_t b)
    {
        ++failed;
        if (first_kind >= 0) return;
        first_kind = kind;
        first_index = index;
        first_ps = t;
        first_addr = addr;
        first_a = a;
        first_b = b;
    }
    void report(StatsWriter &w, const std::string &g) const;
};

// The system-wide part of a persistency model.
class CpuPersistence {
public:
    virtual ~CpuPersistence() = default;
    virtual std::unique_ptr<CpuPersistPath> make_path(const CpuPathSite &s, PmControllers &pm) = 0;
    // Every region durable (region models).
    virtual bool idle() const { return true; }
    virtual std::string progress() const { return ""; }
    // The crash checker that sees durable writes (sim.crash_check), or null.
    virtual DurableSink *checker() { return nullptr; }
    virtual void power_fail(uint64_t /*t*/) {}
    virtual void finish_check(const CheckCtx &) {}
    virtual void report_check(StatsWriter &) {}
    virtual uint64_t persist_latency_ps() const { return 0; }   // T_p of LightWSP eq. 1
};

// What a model's persistence is made from (made before the controllers: its constructor checks the
// configuration, so a refused one allocates no SystemC module).
struct CpuPersistEnv {
    const Config &cc;
    const CpuCfg &cfg;
    const CpuModel &model;
    mem_image *backing;            // the initial image (the region checker's reference)
};

std::unique_ptr<CpuPersistence> make_no_persistence(const CpuPersistEnv &e);
std::unique_ptr<CpuPersistence> make_region_persistence(const CpuPersistEnv &e);
std::unique_ptr<CpuPersistence> make_pbuf_persistence(const CpuPersistEnv &e);

} // namespace persim
