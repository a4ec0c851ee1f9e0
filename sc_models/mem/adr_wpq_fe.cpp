// Front end `adr_wpq`: the ADR write-pending queue (cores/adr_wpq.h). A write is durable, and
// acknowledged, once the queue accepts it; it drains to the device in FIFO order; reads of a line
// still queued are served from the queue.
#include "cores_util.h"
#include "write_queue.h"
#include <vector>
#include "mem_ctrl.h"
extern "C" {
#include "adr_wpq.h"
}

namespace persim {
namespace {

class AdrWpqFe : public WriteQueue {
public:
    explicit AdrWpqFe(McPort &p) : port_(p)
    {
        adr_wpq_cfg qc{};
        qc.entries = p.config().wpq_entries;
        qc.line_bytes = p.config().line_bytes;
        qc.hit_latency_ps = p.config().wpq_hit_ps;
        q_ = mem_.make(qc, adr_wpq_bytes, adr_wpq_init, "nvm.wpq_entries: invalid ADR write-pending queue size");
    }
    uint64_t write(uint64_t t, const McWrite &w) override
    {
        const uint64_t accept = adr_wpq_accept(q_, t);
        const uint64_t done = port_.device_write(accept, w.addr, w.bytes);
        adr_wpq_commit(q_, w.addr, t, accept, done);
        return accept;
    }
    bool read(uint64_t t, uint64_t addr, uint64_t *ready) override { return adr_wpq_read(q_, t, addr, ready) != 0; }
    void report(StatsWriter &w, const std::string &g, uint64_t) const override
    {
        const adr_wpq_stats *s = adr_wpq_get_stats(q_);
        w.add(g, "wpq_full_stalls", s->full_stalls, "writes", "writes that waited for a free WPQ entry");
        w.add(g, "wpq_stall_ns", s->stall_ps / 1000.0, "ns", "total time writes waited for a WPQ entry");
        w.add(g, "wpq_read_hits", s->read_hits, "reads", "reads served from the WPQ");
    }

private:
    McPort &port_;
    CoreState<adr_wpq, adr_wpq_cfg> mem_;
    adr_wpq *q_;
};

std::unique_ptr<WriteQueue> make(const Config &, McPort &p) { return std::make_unique<AdrWpqFe>(p); }

} // namespace

const WriteQueueKind kAdrWpqFe{"adr_wpq", "ADR write-pending queue: durable once accepted, FIFO drain", make};
PERSIM_REGISTER(WriteQueueKind, "adr_wpq", kAdrWpqFe, 20);

} // namespace persim
