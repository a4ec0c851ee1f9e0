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
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>
#include "mem_proto.h"
#include "stats.h"

namespace persim {

class BspCheck : public DurableSink {
public:
    void path_write(uint64_t wid, uint32_t thread, uint64_t epoch, uint64_t line, uint64_t vorder);
    void on_durable(uint64_t, uint64_t, const uint8_t *, const uint64_t *, uint32_t, int) override {}
    void on_durable_ids(uint64_t at, uint64_t addr, const uint8_t *data, const uint64_t mask[2], uint32_t lb,
                        int requester, const uint32_t *writers) override;
    void finish();
    void report(StatsWriter &w) const;
    uint64_t violations() const { return epoch_viol_ + line_viol_; }

private:
    struct Wr {
        uint32_t thread;
        uint64_t epoch, line, vorder;
    };
    std::unordered_map<uint64_t, Wr> writes_;
    std::vector<std::pair<uint64_t, uint64_t>> durable_;   // (time, write id)
    uint64_t checked_ = 0, epoch_viol_ = 0, line_viol_ = 0, first_ps_ = 0;
    bool first_set_ = false;
};

} // namespace persim
