// Write-queue front ends of a memory controller (docs/architecture.md "Memory controllers").
//
// A controller (MemCtrl, mem_ctrl.h) is device timing (cores/nvm.h) plus one front end: the queue
// that accepts writes before the device and decides when each is acknowledged. Front ends are
// plug-ins chosen by name (config key nvm.front_end, or a cpu model's FrontEndTuning; each registers
// itself in its file with PERSIM_REGISTER):
//   direct    no queue: a write is acknowledged when the device completes it (GDDR; nvm.wpq_entries=0)
//   adr_wpq   the ADR write-pending queue (cores/adr_wpq.h): durable once accepted, FIFO drain
//   wpq_gate  LightWSP's region-gated WPQ (cores/wpq_gate.h): a write is acknowledged when its
//             region commits at every controller; boundaries and ACKs travel between controllers
//   broi      the BROI controller (cores/broi_sched.h): per-thread entries split by barriers, BLP-aware
//             issue to the device banks; acknowledged when the device write completes
// A front end reads the shared controller keys from McPort::config() and only its own keys (e.g.
// wpq_gate.*, broi.*) from the Config. A front end either acknowledges a write at once (write() returns the time) or later
// (write() returns kAckLater and the front end calls McPort::ack when it decides). It may ask to
// be woken (McPort::wake_at) and may send messages to the other controllers (McPort::send), which
// arrive through a modelled link with latency (mem_ctrl.h, McLinks).
#pragma once
namespace sc_core { class sc_trace_file; }
#include <cstdint>
#include <memory>
#include <string>
#include <vector>
#include "config.h"
#include "registry.h"
#include "stats.h"

namespace persim {

struct MemCtrlCfg;   // mem_ctrl.h: the controller's configuration (read once from the Config)

constexpr uint64_t kAckLater = UINT64_MAX;
// Requester ids from kRemoteRequester up are remote writers (RDMA channel = id - kRemoteRequester):
// front ends with remote queues (broi) put them there.
constexpr int kRemoteRequester = 1 << 20;

// A write as a front end sees it.
struct McWrite {
    uint64_t id;          // controller-unique write id (McPort::ack names it)
    uint64_t addr;        // line address (bytes)
    uint32_t bytes;       // bytes moved to the device
    int      requester;   // MemExt::requester
    uint32_t region;      // MemExt::region (region-tagged persist paths; 0 otherwise)
};

// A message between controllers, or from a requester to every controller (a region boundary,
// a persist barrier).
struct McMsg {
    enum Kind : uint8_t { BOUNDARY, BDRY_ACK, FLUSH_ACK, BARRIER } kind;
    uint32_t region;
    uint32_t src;         // sending controller (BOUNDARY, BARRIER: the requester's id)
};

// What a controller offers its front end.
class McPort {
public:
    virtual ~McPort() = default;
    // Device timing: a device access starting at t; returns its completion (nvm.device = bank), or
    // the time the device accepted it into its buffer (pm_dimm: device_accepts()).
    virtual uint64_t device_write(uint64_t t, uint64_t addr, uint32_t bytes) = 0;
    // True when the device paces writes itself (pm_dimm): a front end then drains its next entry
    // no earlier than device_next_write_at() after a device write, instead of pacing by the
    // configured write bandwidth.
    virtual bool device_accepts() const { return false; }
    virtual uint64_t device_next_write_at() const { return 0; }
    // Acknowledge write `id` (durable) at time t >= now (for writes that got kAckLater).
    virtual void ack(uint64_t id, uint64_t t) = 0;
    // Write `id` (that got kAckLater) entered the queue at t (optional: without it the
    // acknowledgement counts as acceptance). May be called from inside WriteQueue::write.
    virtual void accept(uint64_t /*id*/, uint64_t /*t*/) {}
    // Send `m` to controller `dst` (!= self) at time t; it arrives after the link latency.
    virtual void send(uint32_t dst, const McMsg &m, uint64_t t) = 0;
    // Call WriteQueue::wake at time t (>= now).
    virtual void wake_at(uint64_t t) = 0;
    // Device bank queries (pure; cores/nvm.h nvm_bank_of / nvm_bank_free_at; with pm_dimm the DIMMs): banks per channel,
    // the bank of an address, and the earliest time bank index `bank` is free in some channel.
    virtual uint32_t device_banks() const { return 1; }
    virtual uint32_t device_bank_of(uint64_t) const { return 0; }
    virtual uint64_t device_bank_free_at(uint32_t) const { return 0; }
    virtual uint32_t index() const = 0;          // this controller's index among its peers
    virtual uint32_t peers() const = 0;          // controllers in the group (self included)
    virtual const MemCtrlCfg &config() const = 0;
};

class WriteQueue {
public:
    virtual ~WriteQueue() = default;
    // A write arriving at t: its acknowledgement time, or kAckLater (McPort::ack comes later).
    virtual uint64_t write(uint64_t t, const McWrite &w) = 0;
    // A read of `addr` at t: true and *ready if the queue serves it (or holds it back: *ready is
    // when the device read may start, after the queued write it conflicts with has drained).
    virtual bool read(uint64_t t, uint64_t addr, uint64_t *ready) = 0;
    // A message from another controller (or a boundary from a requester) at t.
    virtual void message(uint64_t, const McMsg &) {}
    virtual void wake(uint64_t) {}
    // Power fails at t (cpu system, sim.power_fail_ns): accept nothing more, finish what the
    // design finishes on battery power. power_done() says when that is over.
    virtual void power_fail(uint64_t) {}
    virtual bool power_done() const { return true; }
    // The queue's core makes a write durable as soon as it takes it, ordered after nothing but what
    // the queue took before (an ADR queue); false: it holds writes back for an order of its own (the
    // region gate). The cpu crash check's model images read it (docs/checking.md).
    virtual bool acks_on_entry() const { return true; }
    // Writes held and not yet acknowledged, for stuck reports (empty when idle).
    virtual std::string describe() const { return ""; }
    // Figures into the controller's group.
    virtual void report(StatsWriter &w, const std::string &group, uint64_t sim_ps) const = 0;
    // VCD waveforms of the queue (persim run --vcd), named under `prefix` (the controller's name).
    virtual void trace(sc_core::sc_trace_file *, const std::string & /*prefix*/) {}
};

struct WriteQueueKind {
    const char *name;
    const char *desc;
    std::unique_ptr<WriteQueue> (*make)(const Config &c, McPort &port);
    bool late_acks = false;   // may answer kAckLater: every initiator of a write must take late acks
};

// Every front end registers itself in its file: PERSIM_REGISTER(WriteQueueKind, "name", kind, order).
inline const std::vector<const WriteQueueKind *> &all_write_queues() { return Registry<WriteQueueKind>::all(); }
inline const WriteQueueKind *find_write_queue(const std::string &name) { return Registry<WriteQueueKind>::find(name); }

} // namespace persim
