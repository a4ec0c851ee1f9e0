// The cache controller every cache level uses (GPU L1 and L2 banks today; the CPU caches next): a
// cache core (cores/cache.h) with its line storage, the write-back of a dirty line downstream
// (TLM write carrying the requester id and, when a check runs, the writer op id of every byte), the
// masked write of a line, the functional drain, and acknowledgement tracking keyed by requester id
// (a fence of one requester waits for the write-backs that requester issued, not for another's).
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>
#include <systemc>
#include <tlm>
#include "cores_util.h"
#include "config.h"
#include "mem_proto.h"
#include "timed_queue.h"
extern "C" {
#include "cache.h"
#include "mem_image.h"
}

namespace persim {

class CacheCtrl {
public:
    // `what` names the cache (and its config keys) in the error for a bad geometry.
    CacheCtrl(const cache_cfg &cc, const std::string &what);
    cache *core() { return c_; }
    const cache *core() const { return c_; }
    uint32_t line_bytes() const { return lb_; }

    // Writes the dirty bytes of line `idx` downstream through `sock`, starting at `start_ps`
    // (>= now), and marks the line clean. Returns the acknowledgement time, or kLateAck if the
    // target acknowledges later through `ack_to` (with `token`; nullptr: the caller cannot take it).
    static constexpr uint64_t kLateAck = UINT64_MAX;
    template <class Socket>
    uint64_t write_back(Socket &sock, int32_t idx, uint64_t start_ps, int requester, const uint32_t *writers,
                        AckReceiver *ack_to = nullptr, uint64_t token = 0)
    {
        MemReqPool::Lease lease(reqs_, tlm::TLM_WRITE_COMMAND, 0, lb_);
        MemReq &req = *lease;
        fill_write_back(req, idx, requester, writers);
        req.ext.ack_to = ack_to;
        req.ext.ack_token = token;
        sc_core::sc_time d = ps(start_ps - now_ps());
        sock->b_transport(req.gp, d);
        cache_clean(c_, idx);
        return req.ext.ack_later ? kLateAck : now_ps() + d.value();
    }
    // Byte-masked write into line `idx` (runs of set bits).
    void write_masked(int32_t idx, const uint8_t *data, const uint64_t mask[2]);
    // End of run (untimed): every dirty byte into `img`.
    void drain_functional(mem_image *img) const;

private:
    void fill_write_back(MemReq &req, int32_t idx, int requester, const uint32_t *writers) const;
    CoreState<cache, cache_cfg> mem_;
    MemReqPool reqs_;
    cache *c_;
    uint32_t lb_;
};

// Acknowledgements of write-backs in time order. A tracked write-back gets a ticket of its
// requester: the requester's fence is done once every tracked write-back it issued up to its
// ticket is acknowledged. An untracked one only carries a tag back (e.g. a persist unit's phase).
// expect() registers a write-back before it is sent (its ticket counts at once); arrive() gives
// its acknowledgement time, on return of the write or later (a late acknowledgement).
class AckQueue {
public:
    struct Ack { uint64_t at, seq; bool tracked; int requester; uint32_t tag; };
    uint64_t expect(bool tracked, int requester, uint32_t tag);   // returns the write-back's seq (ticket)
    void arrive(uint64_t seq, uint64_t at);
    // The newest ticket of `requester` (0: none yet); done when it and all before are acknowledged.
    uint64_t ticket(int requester) const;
    bool ticket_done(int requester, uint64_t ticket) const;
    bool empty() const { return q_.empty(); }
    uint64_t next_at() const { return q_.next_at(); }
    // Removes and returns the acknowledgements due at t, in time order (ties: issue order).
    std::vector<Ack> pop_due(uint64_t t);

private:
    TimedQueue<Ack> q_;                     // ties: by seq (issue order, not arrival order)
    std::map<int, std::set<uint64_t>> outstanding_;
    std::map<int, uint64_t> last_;
    std::map<uint64_t, Ack> expected_;      // sent, acknowledgement time not known yet
    uint64_t seq_ = 1;
};

} // namespace persim
