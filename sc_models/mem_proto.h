// persim memory-side protocol: TLM-2.0 generic payloads carrying one cache line (data pointer
// = line bytes, extension = byte mask and persistence attributes). Loosely timed: a caller
// issues b_transport at the current simulation time with delay = 0; every hop adds its latency
// (queueing included, computed by the C cores) so that on return `delay` is the time until the
// response (read data or write acknowledgement) is back at the caller. Nobody calls wait() on
// this path: the initiator schedules the completion itself, so idle blocks cost nothing.
#pragma once
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <vector>
#include <systemc>
#include <tlm>

namespace persim {

// Receives acknowledgements that a target gives later than the return of b_transport (a write that
// waits for a region boundary or a scheduling decision; write_queue.h).
struct AckReceiver {
    virtual ~AckReceiver() = default;
    // The write the initiator tagged with `token` is acknowledged (durable) at `ack_ps` (>= now).
    virtual void on_late_ack(uint64_t token, uint64_t ack_ps) = 0;
    // The write was accepted into the target's queue at `ps` (>= now), before its acknowledgement
    // (a front end that holds writes in a queue until they are durable, e.g. the WPQ gate: the
    // persist path frees its buffer entry on acceptance, LightWSP IV-G). Optional.
    virtual void on_late_accept(uint64_t /*token*/, uint64_t /*ps*/) {}
};

struct MemExt : tlm::tlm_extension<MemExt> {
    bool     pm = false;          // address is persistent memory
    bool     persist = false;     // a PM write that must reach the persistence domain (ack wanted)
    int      requester = -1;      // originating requester id (GPU: the SM's L1; -1: none, e.g. L2 eviction)
    uint32_t region = 0;          // region ID of a region-tagged persist path (LightWSP), else 0
    // Late acknowledgements: an initiator that can take them sets ack_to/ack_token; a target that
    // cannot acknowledge by the return of b_transport sets ack_later and calls ack_to later.
    AckReceiver *ack_to = nullptr;
    uint64_t ack_token = 0;
    bool     ack_later = false;   // out: the delay is not the acknowledgement; ack_to will be called
    uint64_t accept_ps = 0;       // out (with ack_later): accepted into the target's queue at this time
                                  // (0: not yet; ack_to->on_late_accept follows)
    uint32_t wire_bytes = 0;      // bytes the write moves (0: whole 32-byte sectors of the mask)
    uint64_t mask[2] = {0, 0};    // bytes carried by a write (bit i = byte i of the line)
    bool     no_allocate = false; // a non-temporal write: caches on the way drop their copy and forward it
    uint64_t durable_ps = 0;      // out: absolute time the write became durable (persist writes)
    uint32_t line_bytes = 128;
    const uint32_t *writers = nullptr; // optional: op id (persim_op.id) of the store that wrote each byte
                                       // of the line (valid during b_transport; set when tracking)

    tlm::tlm_extension_base *clone() const override { return new MemExt(*this); }
    void copy_from(const tlm::tlm_extension_base &e) override { *this = static_cast<const MemExt &>(e); }
};

// A hop between an initiator and a target that may acknowledge late (PCIe, the GPU crossbar): it
// puts itself in as the receiver while it forwards a write, and relays a late acknowledgement back
// to the initiator after its own return latency (return_ps).
class AckRelay : public AckReceiver {
public:
    struct Saved { AckReceiver *to; uint64_t token, mine; };
    // Before forwarding write `e` (nullptr: no extension).
    Saved enter(MemExt *e)
    {
        Saved s{e ? e->ack_to : nullptr, e ? e->ack_token : 0, next_++};
        if (s.to) {
            e->ack_to = this;
            e->ack_token = s.mine;
        }
        return s;
    }
    // After forwarding: gives the initiator its receiver back; true if the acknowledgement comes
    // later (it is relayed through `port`, see return_ps).
    bool leave(MemExt *e, const Saved &s, uint32_t port)
    {
        if (!s.to) return false;
        e->ack_to = s.to;
        e->ack_token = s.token;
        if (!e->ack_later) return false;
        relay_[s.mine] = Pending{s.to, s.token, port};
        return true;
    }
    void on_late_ack(uint64_t token, uint64_t ack_ps) override
    {
        auto it = relay_.find(token);
        if (it == relay_.end()) return;
        const Pending p = it->second;
        relay_.erase(it);
        p.to->on_late_ack(p.token, return_ps(p.port, ack_ps));
    }

protected:
    // When an acknowledgement given at `ack_ps` at the far side is back at the near side.
    virtual uint64_t return_ps(uint32_t port, uint64_t ack_ps) = 0;

private:
    struct Pending { AckReceiver *to; uint64_t token; uint32_t port; };
    std::map<uint64_t, Pending> relay_;
    uint64_t next_ = 1;
};

// A stack-allocated request: payload + extension + line buffer.
struct MemReq {
    tlm::tlm_generic_payload gp;
    MemExt ext;
    uint8_t data[128];

    MemReq(tlm::tlm_command cmd, uint64_t line_addr, uint32_t line_bytes)
    {
        reset(cmd, line_addr, line_bytes);
        gp.set_extension(&ext);
    }
    // The state of a freshly constructed request (MemReqPool reuses requests).
    void reset(tlm::tlm_command cmd, uint64_t line_addr, uint32_t line_bytes)
    {
        std::memset(data, 0, sizeof data);
        gp.set_command(cmd);
        gp.set_address(line_addr);
        gp.set_data_ptr(data);
        gp.set_data_length(line_bytes);
        gp.set_streaming_width(line_bytes);
        gp.set_byte_enable_ptr(nullptr);
        gp.set_byte_enable_length(0);
        gp.set_dmi_allowed(false);
        gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        ext = MemExt();
        ext.line_bytes = line_bytes;
    }
    ~MemReq() { gp.clear_extension(&ext); }
    MemReq(const MemReq &) = delete;
    MemReq &operator=(const MemReq &) = delete;
};

// Requests kept for reuse: a generic payload allocates its extension array when constructed, which
// on the GPU's hot paths (a request per L1 miss, write-back and L2 fill) cost more than the work.
// A Lease takes a reset request (a new one if all are in use, so nested requests are safe) and
// gives it back when it goes out of scope. One pool per module; not thread-safe (SystemC is not).
class MemReqPool {
public:
    class Lease {
    public:
        Lease(MemReqPool &p, tlm::tlm_command cmd, uint64_t line_addr, uint32_t line_bytes) : p_(p)
        {
            if (p.free_.empty()) {
                p.all_.emplace_back(new MemReq(cmd, line_addr, line_bytes));
                r_ = p.all_.back().get();
            } else {
                r_ = p.free_.back();
                p.free_.pop_back();
                r_->reset(cmd, line_addr, line_bytes);
            }
        }
        ~Lease() { p_.free_.push_back(r_); }
        Lease(const Lease &) = delete;
        Lease &operator=(const Lease &) = delete;
        MemReq &operator*() const { return *r_; }
        MemReq *operator->() const { return r_; }

    private:
        MemReqPool &p_;
        MemReq *r_;
    };

private:
    std::vector<std::unique_ptr<MemReq>> all_;
    std::vector<MemReq *> free_;
};

inline MemExt *mem_ext(tlm::tlm_generic_payload &gp)
{
    MemExt *e = nullptr;
    gp.get_extension(e);
    return e;
}

// Bytes a write moves: whole 32-byte sectors that hold at least one written byte.
inline uint32_t sector_bytes(const uint64_t mask[2], uint32_t line_bytes)
{
    uint32_t n = 0;
    for (uint32_t s = 0; s < line_bytes; s += 32) {
        uint64_t w = mask[s / 64];
        uint64_t m = (s % 64 == 0) ? (w & 0xFFFFFFFFull) : (w >> 32);
        if (m) n += 32;
    }
    return n;
}

inline uint64_t now_ps() { return (uint64_t)sc_core::sc_time_stamp().value(); }
// from_value: the time resolution is 1 ps (nothing sets another; now_ps reads value() as ps), so this
// is sc_time((double)v, SC_PS) without the floating-point conversion (exact below 2^53 ps).
inline sc_core::sc_time ps(uint64_t v) { return sc_core::sc_time::from_value(v); }

// Receives every write at the moment it becomes durable (persistence domain), in arrival order.
struct DurableSink {
    virtual ~DurableSink() = default;
    virtual void on_durable(uint64_t durable_ps, uint64_t line_addr, const uint8_t *data,
                            const uint64_t mask[2], uint32_t line_bytes, int requester) = 0;
    // Same, with the op id of the store that wrote each byte (writers[i] for byte i; nullptr when
    // the writes are not tracked). The persistence domain calls this one.
    virtual void on_durable_ids(uint64_t durable_ps, uint64_t line_addr, const uint8_t *data,
                                const uint64_t mask[2], uint32_t line_bytes, int requester, const uint32_t *writers)
    {
        (void)writers;
        on_durable(durable_ps, line_addr, data, mask, line_bytes, requester);
    }
};

// Follows data from the warps to the persistence domain (persim run --check, check, crash; see
// docs/checking.md). Installed with Top::set_tracker; L1s then keep the writer op id of every
// byte and flushes carry them (MemExt::writers). Op ids are persim_op.id.
struct WriteTracker : DurableSink {
    // Store (or release flag write) `op` wrote bytes `mask` of line `line_addr` into an L1.
    virtual void on_perform(uint64_t t, uint32_t op, uint64_t line_addr, const uint64_t mask[2]) = 0;
    // Bytes `mask` of line `line_addr`, written by `old_op` and not yet flushed, were overwritten in
    // the L1 by `new_op` (old_op's value never leaves the L1; it is durable once new_op's is).
    virtual void on_overwrite(uint32_t old_op, uint32_t new_op, uint64_t line_addr, const uint64_t mask[2]) = 0;
    // The op after `op` in its warp's stream started (or the warp finished) at t: `op` has completed
    // (for a dFence or a barrier: the persists it waited for are durable).
    virtual void on_complete(uint32_t op, uint64_t t) = 0;
    // Kernel `k` (program order) finished: every block done and every SM drained, at t.
    virtual void on_kernel_end(uint32_t k, uint64_t t) = 0;
};

} // namespace persim
