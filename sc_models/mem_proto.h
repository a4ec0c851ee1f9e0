// persim memory-side protocol: TLM-2.0 generic payloads carrying one cache line (data pointer
// = line bytes, extension = byte mask and persistence attributes). Loosely timed: a caller
// issues b_transport at the current simulation time with delay = 0; every hop adds its latency
// (queueing included, computed by the C cores) so that on return `delay` is the time until the
// response (read data or write acknowledgement) is back at the caller. Nobody calls wait() on
// this path: the initiator schedules the completion itself, so idle blocks cost nothing.
#pragma once
#include <cstdint>
#include <cstring>
#include <systemc>
#include <tlm>

namespace persim {

struct MemExt : tlm::tlm_extension<MemExt> {
    bool     pm = false;          // address is persistent memory
    bool     persist = false;     // a PM write that must reach the persistence domain (ack wanted)
    int      sm = -1;             // originating SM (-1: none, e.g. L2 eviction)
    uint64_t mask[2] = {0, 0};    // bytes carried by a write (bit i = byte i of the line)
    uint64_t durable_ps = 0;      // out: absolute time the write became durable (persist writes)
    uint32_t line_bytes = 128;

    tlm::tlm_extension_base *clone() const override { return new MemExt(*this); }
    void copy_from(const tlm::tlm_extension_base &e) override { *this = static_cast<const MemExt &>(e); }
};

// A stack-allocated request: payload + extension + line buffer.
struct MemReq {
    tlm::tlm_generic_payload gp;
    MemExt ext;
    uint8_t data[128];

    MemReq(tlm::tlm_command cmd, uint64_t line_addr, uint32_t line_bytes)
    {
        std::memset(data, 0, sizeof data);
        gp.set_command(cmd);
        gp.set_address(line_addr);
        gp.set_data_ptr(data);
        gp.set_data_length(line_bytes);
        gp.set_streaming_width(line_bytes);
        gp.set_byte_enable_ptr(nullptr);
        gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        ext.line_bytes = line_bytes;
        gp.set_extension(&ext);
    }
    ~MemReq() { gp.clear_extension(&ext); }
    MemReq(const MemReq &) = delete;
    MemReq &operator=(const MemReq &) = delete;
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
inline sc_core::sc_time ps(uint64_t v) { return sc_core::sc_time((double)v, sc_core::SC_PS); }

// Receives every write at the moment it becomes durable (persistence domain), in arrival order.
struct DurableSink {
    virtual ~DurableSink() = default;
    virtual void on_durable(uint64_t durable_ps, uint64_t line_addr, const uint8_t *data,
                            const uint64_t mask[2], uint32_t line_bytes, int sm) = 0;
};

} // namespace persim
