// One core of the cpu system (docs/models/lightwsp.md): replays one hardware thread's op stream
// (workloads/op.h) with compute gaps at cpu.width instructions per cycle, at most cpu.max_loads
// outstanding loads, a store buffer of cpu.sb_entries, a private L1 (tag-only cache core), and,
// when the persistency model has a persist path, the front-end buffer and the path to the memory
// controllers: region-tagged stores, checkpoint and PC stores and boundary broadcasts at the
// region boundaries that region formation (workloads/region_form.h) placed.
// Values live in the system's functional image (loads of lock flags read it); the persistent
// state is what the path delivers.
#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include "cpu_cfg.h"
#include "cpu_mem.h"
#include "cpu_model.h"
#include "mem_proto.h"
#include "stats.h"
#include "timed_queue.h"
extern "C" {
#include "cache.h"
#include "fe_buf.h"
#include "link.h"
#include "persist_buf.h"
#include "mem_image.h"
#include "op.h"
#include "region_form.h"
}

namespace persim {

class CpuSystem;

class CpuCore : public sc_core::sc_module, public AckReceiver {
public:
    tlm_utils::simple_initiator_socket<CpuCore> l2_isock;
    SC_HAS_PROCESS(CpuCore);
    // remote = an RDMA channel of a remote client (BROI V): its stream's stores are rdma_pwrite
    // payloads that cross the network (the path: rdma.latency_ns, rdma.bw_gbps) into the remote
    // persist buffer; no caches; `order` ends an rdma_pwrite (a barrier region); requester id
    // kRemoteRequester + channel.
    CpuCore(sc_core::sc_module_name n, uint32_t id, const CpuCfg &c, const CpuModel &m, CpuSystem &sys,
            std::shared_ptr<L1Port> l1, bool remote = false);
    ~CpuCore() override { region_plan_free(&plan_); }

    // Starts running ops [begin, end) of the program (one kernel's stream) with its region plan.
    void start(uint64_t begin, uint64_t end, uint32_t thread);
    bool running() const { return running_; }
    // Nothing of this thread's left to persist: no unsent item or persist-buffer entry, nothing on
    // the path, nothing unacknowledged.
    bool path_idle() const
    {
        return path_q_.empty() && flight_.empty() && outstanding_.empty() && (!pb_ || pbuf_count(pb_) == 0);
    }
    void wake() { ev_.notify(sc_core::SC_ZERO_TIME); }
    void wake_at(uint64_t t) { ev_.notify(t > now_ps() ? ps(t - now_ps()) : sc_core::SC_ZERO_TIME); }
    void power_off();
    // BROI persist buffer (cores/persist_buf): the coherence engine's snoop of this core's buffer,
    // its oldest live entry, and the resolution of dependencies on core `thread`'s entries.
    bool pb_snoop(uint64_t line, uint64_t *id) const { return pb_ && pbuf_snoop(pb_, line, id); }
    uint64_t pb_live_min() const { return pb_ ? pbuf_live_min(pb_) : UINT64_MAX; }
    void pb_resolve(uint32_t thread, uint64_t live_min)
    {
        if (pb_ && pbuf_resolve(pb_, thread, live_min) && head_blocked_) path_ev_.notify(sc_core::SC_ZERO_TIME);
    }
    // Inclusion: drop the line from the L1; true if it was dirty.
    bool invalidate(uint64_t line);
    // Functional warming (sim.warmup): the line of `addr` into this core's L1 and, on a miss, the
    // L2 and DRAM cache below (tags and LRU only, installed clean); no time, no statistics, no
    // persist path. RDMA channels have no caches.
    void warm(uint64_t addr);
    uint64_t instructions() const { return st_.instr; }
    uint64_t finish_ps() const { return finish_ps_; }
    std::string describe() const;
    void report(StatsWriter &w, uint64_t sim_ps) const;

    // AckReceiver (persist-path writes)
    void on_late_ack(uint64_t token, uint64_t ack_ps) override;
    void on_late_accept(uint64_t token, uint64_t ps) override;

private:
    enum class Wait : uint8_t { NONE, LOADS, SB, FE_FULL, REGION, LOCK, BARRIER, VICTIM, PERSIST_ACK };
    void step();
    void path_step();
    void deliver_step();
    void ack_step();
    void path_step_pb(uint64_t now);
    bool pb_store(uint64_t addr, uint32_t bytes, const uint8_t *data, uint64_t arrive);
    struct PathItem;
    void deliver(const PathItem &it, uint32_t ctrl);
    bool exec(const persim_op &op, uint64_t t);
    bool store(uint64_t addr, uint32_t bytes, const uint8_t *data, uint32_t op_id, uint64_t t);
    bool boundary_store(uint64_t t);
    int64_t l1_access(uint64_t addr, bool write, uint64_t t);   // completion time, -1: wait (victim)
    bool fe_room(uint64_t t);
    void fe_free(uint64_t wid, uint64_t at);
    void stall(Wait w, uint64_t until);
    void end_region(uint64_t t);
    void done();
    const char *wait_name(Wait w) const;

    uint32_t id_;
    bool remote_ = false;
    int requester_;                 // MemExt::requester of its persists
    const CpuCfg &cfg_;
    const CpuModel &model_;
    CpuSystem &sys_;
    std::shared_ptr<L1Port> l1_;      // this thread's core's L1 (shared by its hardware threads)
    uint32_t lb_;
    sc_core::sc_event ev_, path_ev_, deliver_ev_, ack_ev_;

    // program
    const persim_op *ops_ = nullptr;
    uint64_t pc_ = 0, end_ = 0, begin_ = 0;
    uint32_t thread_ = 0;
    bool running_ = false, off_ = false;
    region_plan plan_{};
    size_t next_bd_ = 0;
    uint32_t bd_left_ = 0;          // checkpoint + PC stores still to emit at the current boundary
    bool bd_active_ = false;
    // region state
    int64_t region_ = -1;           // ID of the open region (-1: none taken yet)
    int64_t last_closed_ = -1;
    // timing
    uint64_t t_ = 0;                // local issue time (>= now)
    std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<uint64_t>> loads_;
    std::deque<uint64_t> sb_;       // store-buffer slots: when each drains into the L1
    Wait wait_ = Wait::NONE;
    uint64_t wait_since_ = 0;
    uint64_t finish_ps_ = 0;
    // persist path
    struct PathItem {
        bool boundary;      // a region boundary (LightWSP), or with `barrier` a persist barrier (BROI)
        bool barrier;
        bool line;          // BROI: a persist-buffer entry, a cache block (word = its first word)
        uint64_t word;      // 8-byte word address (stores)
        uint8_t data[8];
        uint64_t mask;      // bytes of the word written
        uint32_t region;
        uint64_t wid;       // path write id
        uint64_t seq;       // its fe_buf / persist_buf entry (line: data and mask are read from it)
    };
    std::deque<PathItem> path_q_;           // front-end buffer entries not yet sent (and boundaries)
    struct Out { uint64_t seq; uint32_t region; bool freed; };
    std::unordered_map<uint64_t, Out> outstanding_;   // sent, not yet acknowledged
    // The front-end buffer (cores/fe_buf.h: entries, CAM, victim choice); its ACK reaches the
    // buffer one path latency after the controller accepted the write: (time, seq) to free.
    std::vector<uint64_t> fe_mem_;
    fe_buf *fe_ = nullptr;
    TimedQueue<uint64_t> fe_frees_;         // ties: by seq
    link_state link_{};
    // Sent, still on the path: delivered to controller `ctrl` at `at` (in send order per controller,
    // so a boundary never overtakes the writes sent before it).
    struct Flight {
        uint32_t ctrl;
        PathItem item;
    };
    TimedQueue<Flight> flight_;             // ties: send order
    int64_t path_hold_region_ = -1;         // capri: the path waits until this region is durable
    uint32_t lane_ = 0;                     // next lane of a vector store that stalled
    // BROI persist buffer (IV-B/C; cores/persist_buf: entries, dependencies, release rule); the
    // path write id of each entry; the rdma sync wait (entries up to this id acknowledged)
    std::vector<uint64_t> pb_mem_;
    persist_buf *pb_ = nullptr;
    std::unordered_map<uint64_t, uint64_t> pb_wid_;
    // RDMA channel: the network (rdma.latency_ns, rdma.bw_gbps) from the client to the server's
    // remote persist buffer; an entry may leave the buffer once its data has arrived (id -> time);
    // the persist ACK is back at the client one network latency after the buffer got it
    link_state net_{};
    std::unordered_map<uint64_t, uint64_t> pb_ready_;
    uint64_t ack_back_at_ = 0;
    int64_t sync_wait_seq_ = -1;
    bool head_blocked_ = false;
    bool barrier_waiting_ = false;
    uint64_t barrier_gen_ = 0;
    // statistics
    struct {
        uint64_t instr = 0, ckpt_instr = 0, loads = 0, stores = 0, l1_read_misses = 0, l1_write_misses = 0;
        uint64_t l1_writebacks = 0, regions = 0, ckpt_stores = 0, pc_stores = 0, path_writes = 0;
        uint64_t lock_spins = 0, barriers = 0, sync_waits = 0;
        uint64_t wait_ps[9] = {0};
    } st_;
    friend class CpuSystem;
};

} // namespace persim
