// The persist-order check of the barrier models on the cpu system (BROI: buffered strict
// persistence, broi-persistence-parallelism.md IV-A; `persim check` / `persim crash` with a broi
// model; docs/checking.md). Every persist-path write is recorded with its thread, its barrier
// epoch and its place in the volatile (coherence) order of its cache line; the durable writes are
// then walked in the order they became durable. Buffered strict persistence requires:
//   (a) epochs per thread: a write of epoch e of thread t is durable only after every write of
//       t's earlier epochs;
//   (b) no conflict reordered: writes of one line become durable in their volatile order, whoever
//       wrote them (inter-thread persist-persist dependencies).
// Then every prefix of the durable order (every crash image) is a state buffered strict
// persistence allows. RAW (epoch-persist through a load) dependencies are enforced by the model
// but not checked here.
//
// persim crash (CheckCtx::sel) chooses images: every distinct run image (the default), N at random
// (--points N, --seed), the one at an instant (--at); or images the model allows (--images model):
// for each write B, at the instant it enters its persist buffer, the run's durable image plus B and
// what the model orders before B: its thread's in-flight writes of earlier barrier epochs and of
// B's line (the BROI controller's barrier sets and per-line order), and, transitively, the other
// threads' entries the persist-buffer core recorded as B's dependencies (cores/persist_buf: none
// in its ignore_deps mode). A targeted image exists when an older write of B's line or of an
// earlier epoch of its thread is then not durable (the model does not order it before B); then
// random samples (an instant, each in-flight write with a random probability, closed downwards).
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>
#include "mem_proto.h"
#include "persist_path.h"
#include "stats.h"

namespace persim {

class BspCheck : public DurableSink {
public:
    // entry: the persist buffer's request ID; deps: (thread, entry ID) the core recorded for it;
    // t: when it entered the buffer.
    void path_write(uint64_t wid, uint32_t thread, uint64_t epoch, uint64_t line, uint64_t vorder, uint64_t entry,
                    std::vector<std::pair<uint32_t, uint64_t>> deps, uint64_t t);
    void on_durable(uint64_t, uint64_t, const uint8_t *, const uint64_t *, uint32_t, int) override {}
    void on_durable_ids(uint64_t at, uint64_t addr, const uint8_t *data, const uint64_t mask[2], uint32_t lb,
                        int requester, const uint32_t *writers) override;
    void finish(const CheckCtx &c);
    void report(StatsWriter &w) const;
    uint64_t violations() const { return epoch_viol_ + line_viol_; }

private:
    struct Wr {
        uint32_t thread;
        uint64_t epoch, line, vorder, entry;
        std::vector<std::pair<uint32_t, uint64_t>> deps;
        uint64_t perform_ps;
        bool durable;
    };
    // The writes `seeds` plus what the model orders before them among the in-flight writes.
    std::vector<uint64_t> closure(const std::vector<uint64_t> &seeds) const;
    // The run's durable image plus `add`: does it break buffered strict persistence? *missing: a
    // write it needs that is not in it.
    bool image_bad(const std::vector<uint64_t> &add, uint64_t *missing) const;
    void update(uint32_t thread, uint64_t line);   // bad_ after a change of this thread / line
    std::unordered_map<uint64_t, Wr> writes_;
    std::vector<std::pair<uint64_t, uint64_t>> durable_;   // (time, write id)
    std::vector<std::pair<uint64_t, uint64_t>> performed_; // (time, write id) in creation order
    uint64_t checked_ = 0, epoch_viol_ = 0, line_viol_ = 0, first_ps_ = 0;
    bool first_set_ = false;
    // the walk's state: writes not yet durable per thread (epoch -> count) and per line (volatile
    // order), the latest durable epoch / volatile order, the threads and lines whose durable writes
    // break the order (key: thread, or line | 1 << 63), the in-flight writes per thread (entry -> id)
    std::map<uint32_t, std::map<uint64_t, uint64_t>> pending_epochs_;
    std::unordered_map<uint64_t, std::set<uint64_t>> pending_line_;
    std::unordered_map<uint32_t, uint64_t> max_epoch_;
    std::unordered_map<uint64_t, uint64_t> max_vorder_;
    std::set<uint64_t> bad_;
    std::map<uint32_t, std::map<uint64_t, uint64_t>> inflight_;
    std::unordered_map<uint64_t, uint64_t> vorder_wid_;
    // persim crash's choice
    bool selected_ = false;
    uint64_t tgt_ = 0;
    SelFigs sel_;      // its figures and first failing image
};

} // namespace persim
