// The wires every real cpu persist path has (persist_path.h): the link from the core to the memory
// controllers (cores/link: serialization at persist_path.bandwidth_gbps, persist_path.latency_ns,
// persist_path.skew_ns more per controller index), the items on it in send order per controller (so
// a boundary or barrier never overtakes the writes sent before it), their delivery to the
// controllers, and the acknowledgements back: an entry's buffer slot is freed one path latency after
// the controller accepted (or completed) its write. What a path puts on the wires, and when, is the
// path's (RegionPath, PbufPath).
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <systemc>
#include "mem_ctrl.h"
#include "persist_path.h"
#include "timed_queue.h"
extern "C" {
#include "link.h"
}

namespace persim {

class PathWires : public sc_core::sc_module, public CpuPersistPath {
public:
    SC_HAS_PROCESS(PathWires);
    PathWires(const CpuPathSite &s, const CpuCfg &c, PmControllers &pm, uint32_t wire_bytes);
    void on_late_accept(uint64_t token, uint64_t at) override { free_slot(token, at); }
    // The next buffer slot freed by an acknowledgement (when a refused store or victim may retry).
    uint64_t victim_retry_at() const override { return frees_.empty() ? UINT64_MAX : frees_.next_at(); }

protected:
    // One item on the path.
    struct Item {
        bool message;       // a region boundary (LightWSP) or a persist barrier (BROI), to every controller
        bool barrier;
        bool line;          // a cache block (BROI persist-buffer entry; its data are read at delivery)
        uint64_t word;      // 8-byte word address of a write (line: the block's first word)
        uint8_t data[8];
        uint64_t mask;      // bytes of the word written
        uint64_t region;    // region ID (region models; 0 otherwise)
        uint32_t tag;       // the region's ID on the wire
        uint64_t wid;       // path write id (the acknowledgement token)
        uint64_t seq;       // its buffer entry (fe_buf seq / persist_buf id)
    };
    // A link of `latency_ps` and `gbps` with the path's packet header (ConfigError naming `keys`).
    void init_link(link_state *l, uint64_t latency_ps, double gbps, const char *keys) const;
    // Sends `it` now (the link must be free): to controller `ctrl`, or to every controller when
    // ctrl < 0. Returns when it reaches the last one.
    uint64_t send(const Item &it, int64_t ctrl, uint64_t now);
    // A write's data and byte mask at delivery (a line item's are read from the buffer).
    virtual void payload(const Item &it, uint8_t *data, uint64_t mask[2]) const;
    // The slot of acknowledged write `wid` is free at `at` (the path latency added here).
    void free_slot(uint64_t wid, uint64_t at);
    virtual void slot_freed(uint64_t /*free_at*/) {}
    bool wires_idle() const { return flight_.empty() && outstanding_.empty(); }

    struct Out {
        uint64_t seq;
        uint64_t region;
        bool freed;
    };
    std::unordered_map<uint64_t, Out> outstanding_;   // sent, not yet acknowledged
    TimedQueue<uint64_t> frees_;                     // (time, seq) of slots to free; ties by seq
    link_state link_{};
    const CpuCfg &cfg_;
    PmControllers &pm_;
    CpuPathHost &host_;
    uint32_t id_;
    bool remote_;
    int requester_;
    uint32_t lb_;
    uint32_t wire_bytes_;   // bytes a write moves on the path
    bool off_ = false;
    uint64_t path_writes_ = 0;
    // --vcd (trace): the path's buffer occupancy and its region (RegionPath) or barrier epoch
    // (PbufPath) ID; the path refreshes them with vcd_sample() where they change.
    bool vcd_ = false;
    uint64_t vcd_buffer_ = 0;
    int64_t vcd_id_ = -1;
    void trace_signals(sc_core::sc_trace_file *tf, const std::string &prefix, const char *buffer, const char *id);
    sc_core::sc_event path_ev_;     // the path's own process (RegionPath::path_step, PbufPath::path_step)

private:
    void deliver_step();
    void deliver(const Item &it, uint32_t ctrl);
    struct Flight {
        uint32_t ctrl;
        Item item;
    };
    TimedQueue<Flight> flight_;   // ties: send order
    sc_core::sc_event deliver_ev_;
};

} // namespace persim
