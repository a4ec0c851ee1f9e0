// Memory controllers: one TLM target module = device timing (cores/nvm.h) + a write-queue front
// end (write_queue.h: direct, adr_wpq, wpq_gate, ...) + the functional backing store. The GDDR
// controller is a MemCtrl with the `direct` front end; the NVM controllers take nvm.front_end.
// Controllers of one group reach each other through McLinks (a modelled link with latency and
// bandwidth) for the messages of multi-controller protocols (boundary and flush ACKs).
//
// Acknowledgements: a write is acknowledged when its front end says so: on return of b_transport
// (delay = time of the ack) or later (MemExt::ack_later, then MemExt::ack_to->on_late_ack); a
// persistent controller reports the write to the durable sink at that moment (persistence domain).
// With eADR (PM-far) the write is durable once it reaches the host LLC, before the front end.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include "cores_util.h"
#include "config.h"
#include "mem_proto.h"
#include "stats.h"
#include "timed_queue.h"
#include "write_queue.h"
extern "C" {
#include "link.h"
#include "mem_image.h"
#include "nvm.h"
#include "pm_dimm.h"
}

namespace persim {

class FrontEndTuning;
class McLinks;

// A controller's configuration, read from the config in one place (mem_ctrl.cpp).
struct MemCtrlCfg {
    nvm_cfg dev{};
    // nvm.device: "bank" = cores/nvm.h (banks and rows, fixed latencies, `dev`); "pm_dimm" =
    // cores/pm_dimm.h (Optane-class DIMMs: media lines, combining buffer, AIT cache; `dimm`).
    std::string device = "bank";
    pm_dimm_cfg dimm{};
    std::string front_end = "direct";
    uint32_t line_bytes = 128;   // l1.line_bytes
    uint32_t wpq_entries = 0;    // nvm.wpq_entries: write-pending queue entries of the front end
    uint64_t wpq_hit_ps = 0;     // nvm.wpq_hit_latency_ns: a read served from the queue
    uint32_t controllers = 1;    // nvm.controllers
    uint64_t interleave_bytes = 128;   // nvm.interleave_bytes (0 in the config: one line)
    uint64_t link_latency_ps = 0;      // nvm.link_latency_ns
    double link_gbps = 0;              // nvm.link_bw_gbps
    uint32_t link_msg_bytes = 8;       // nvm.link_msg_bytes
    bool pm = false;             // controller of the persistent region (reports persistence figures)
    bool persistent = false;     // writes reach the persistence domain here (durable sink); false
                                 // for the DRAM-only baseline (system.pm_in_dram)
    bool eadr = false;           // durable on reaching the host LLC (PM-far with eADR)
    uint64_t llc_ps = 0;         // host LLC latency (eADR)
    // The persistency model's front end and its typed settings (fe_tuning.h), or null: the
    // configuration's nvm.front_end as the config says.
    const FrontEndTuning *tuning = nullptr;
    static MemCtrlCfg dram(const Config &c);
    // One NVM controller of nvm.controllers (with a model's tuning: its front end).
    static MemCtrlCfg nvm(const Config &c, const FrontEndTuning *tuning = nullptr);
};

class MemCtrl : public sc_core::sc_module, public McPort {
public:
    tlm_utils::simple_target_socket<MemCtrl> tsock;
    SC_HAS_PROCESS(MemCtrl);
    MemCtrl(sc_core::sc_module_name n, const Config &c, const MemCtrlCfg &cfg, mem_image *backing,
            uint32_t index = 0, uint32_t peers = 1);
    ~MemCtrl() override;

    void set_durable_sink(DurableSink *s) { sink_ = s; }
    void set_links(McLinks *l) { links_ = l; }
    // A message for this controller arriving at time `at` (>= now): from a peer through the link,
    // or a boundary broadcast from a requester.
    void deliver(uint64_t at, const McMsg &m);
    // A message that travels on the same persist path as writes (a region boundary behind the
    // region's stores): handled at once, in call order with the writes, stamped with its arrival
    // `at` as b_transport stamps a write, so it never overtakes writes sent before it.
    void deliver_with_writes(uint64_t at, const McMsg &m);
    std::string describe_stuck() const;
    void report(StatsWriter &w, uint64_t sim_ps) const;
    void trace(sc_core::sc_trace_file *tf) { fe_->trace(tf, name()); }

    // McPort
    uint64_t device_write(uint64_t t, uint64_t addr, uint32_t bytes) override;
    uint64_t device_addr(uint64_t addr) const;   // the address within this controller's devices
    void ack(uint64_t id, uint64_t t) override;
    void accept(uint64_t id, uint64_t t) override;
    void power_fail(uint64_t t) { fe_->power_fail(t); }
    bool power_done() const { return fe_->power_done(); }
    bool acks_on_entry() const { return fe_->acks_on_entry(); }
    void send(uint32_t dst, const McMsg &m, uint64_t t) override;
    void wake_at(uint64_t t) override;
    // The scheduler's banks: the nvm core's banks, or the pm_dimm core's DIMMs.
    uint32_t device_banks() const override { return pm_ ? pm_dimm_config(pm_)->dimms : nvm_config(dev_)->banks; }
    uint32_t device_bank_of(uint64_t addr) const override
    {
        return pm_ ? pm_dimm_of(pm_, device_addr(addr)) : nvm_bank_of(dev_, device_addr(addr));
    }
    uint64_t device_bank_free_at(uint32_t bank) const override
    {
        return pm_ ? pm_dimm_free_at(pm_, bank) : nvm_bank_free_at(dev_, bank);
    }
    bool device_accepts() const override { return pm_ != nullptr; }
    uint64_t device_next_write_at() const override { return pm_ ? pm_dimm_next_write_at(pm_) : 0; }
    uint32_t index() const override { return index_; }
    const MemCtrlCfg &config() const override { return cfg_; }
    uint32_t peers() const override { return peers_; }

private:
    void b_transport(tlm::tlm_generic_payload &gp, sc_core::sc_time &delay);
    void event_method();
    void durable(uint64_t at, uint64_t arrive, uint64_t addr, const uint8_t *data, const uint64_t mask[2],
                 uint32_t lb, int requester, const uint32_t *writers);

    MemCtrlCfg cfg_;
    CoreState<nvm, nvm_cfg> core_mem_;   // the nvm core's state (nvm.device = bank)
    nvm *dev_ = nullptr;
    CoreState<pm_dimm, pm_dimm_cfg> pm_mem_;   // the pm_dimm core's state (nvm.device = pm_dimm)
    pm_dimm *pm_ = nullptr;
    uint64_t device_read(uint64_t t, uint64_t addr, uint32_t bytes);
    void report_pm_dimm(StatsWriter &w, const std::string &g, uint64_t sim_ps) const;
    std::unique_ptr<WriteQueue> fe_;
    mem_image *img_;
    DurableSink *sink_ = nullptr;
    McLinks *links_ = nullptr;
    uint32_t index_, peers_;
    uint64_t next_id_ = 1;
    uint64_t writing_id_ = 0, writing_accept_ps_ = 0, writing_ack_ps_ = 0;   // the write inside fe_->write, its acceptance
    // Writes acknowledged later (kAckLater): what the durable report and the late ack need.
    struct Pending {
        uint64_t arrive, addr;
        uint32_t lb;
        int requester;
        AckReceiver *to;
        uint64_t token;
        uint64_t mask[2];
        std::vector<uint8_t> data;
        std::vector<uint32_t> writers;
    };
    std::unordered_map<uint64_t, Pending> pending_;   // by write id (order never used)
    struct Ev {
        bool wake;
        McMsg msg;
    };
    TimedQueue<Ev> evq_;   // ties: push order
    sc_core::sc_event ev_;
    struct {
        uint64_t reads = 0, writes = 0, read_bytes = 0, write_bytes = 0, fe_reads = 0;
        uint64_t persists = 0, durable_bytes = 0, durable_lat_ps = 0, late_acks = 0, msgs_in = 0;
    } st_;
};

// The links between the controllers of one group: one `link` core per ordered pair (src, dst).
class McLinks : public sc_core::sc_module {
public:
    McLinks(sc_core::sc_module_name n, const MemCtrlCfg &c, const std::vector<MemCtrl *> &ctrls);
    void send(uint32_t src, uint32_t dst, const McMsg &m, uint64_t t);
    void report(StatsWriter &w, uint64_t sim_ps) const;

private:
    std::vector<MemCtrl *> ctrls_;
    std::vector<link_state> links_;    // src * n + dst
    uint32_t msg_bytes_;
};

// Routes addresses across `n` controllers, interleaved every `granule` bytes (nvm.interleave_bytes).
class PmRouter : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<PmRouter> tsock;
    std::vector<tlm_utils::simple_initiator_socket<PmRouter> *> isocks;
    PmRouter(sc_core::sc_module_name n, uint32_t targets, uint64_t granule);
    ~PmRouter() override;
    uint32_t target_of(uint64_t addr) const { return (uint32_t)((addr / granule_) % isocks.size()); }

private:
    void b_transport(tlm::tlm_generic_payload &gp, sc_core::sc_time &delay);
    uint64_t granule_;
};

} // namespace persim

namespace persim {

// The persistent-memory side every system builds the same way: nvm.controllers controllers named
// nvm0.. with the nvm.front_end front end, the router interleaving addresses across them, and the
// links between them. Construct it inside the system's constructor (the modules become its
// children: top.nvm0, top.pm_router, ...).
struct PmControllers {
    PmControllers(const Config &c, mem_image *backing, const FrontEndTuning *tuning = nullptr);
    ~PmControllers();
    PmRouter *router = nullptr;
    std::vector<MemCtrl *> ctrls;
    McLinks *links = nullptr;      // with more than one controller
    void set_durable_sink(DurableSink *s);
    // A region boundary from a requester, broadcast to every controller (arriving at `at`).
    void broadcast(const McMsg &m, uint64_t at);
    // A persist path's side door to controller `ctrl` (persist paths reach each controller on their
    // own wires, not through the router): the number of controllers, the one that owns `addr`, a
    // write, and a message (boundary, barrier) arriving now behind the writes delivered before it.
    uint32_t count() const { return (uint32_t)ctrls.size(); }
    uint32_t owner(uint64_t addr) const { return router->target_of(addr); }
    void write(uint32_t ctrl, tlm::tlm_generic_payload &gp, sc_core::sc_time &delay);
    void message(uint32_t ctrl, const McMsg &m);
    // Power fails at t: every controller drains what its ADR domain covers; done when all have.
    void power_fail(uint64_t t);
    bool power_done() const;
    // Every controller's front end makes a write durable as soon as it takes it (WriteQueue::acks_on_entry).
    bool acks_on_entry() const
    {
        for (auto *m : ctrls)
            if (!m->acks_on_entry()) return false;
        return true;
    }
    std::string describe_stuck() const;
    void report(StatsWriter &w, uint64_t sim_ps) const;
    void trace(sc_core::sc_trace_file *tf) { for (auto *m : ctrls) m->trace(tf); }
    std::string front_end;         // nvm.front_end in use
    bool late_acks = false;        // the front end may acknowledge writes after their return

private:
    void free_all();
};

} // namespace persim
