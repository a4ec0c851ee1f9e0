// The crash check of the cpu system (sim.crash_check; `persim crash` on system.kind=cpu;
// docs/checking.md). LightWSP's promise (III-A, IV-F): whenever power fails, PM holds exactly the
// stores of a prefix of the regions in region-ID order (the order the controllers commit), so each
// thread resumes from its last committed region and threads agree at synchronisation (a region
// that acquired a lock is younger than the region that released it).
//
// The check follows every persist-path write (region, word, bytes), every durable write (the
// persistence domain's arrival order) and the instant each region is persisted (its boundary has
// reached every controller). A power failure at t (IV-F) leaves in PM the writes durable by t plus,
// since in-flight boundary and flush ACKs still arrive on battery power, every region of the
// longest prefix of regions persisted by t. At every distinct such instant, i.e. every distinct
// crash image, the check compares that image with the replay of regions 0..k-1, where k is the
// number of regions all of whose writes are in the image: both must agree on every byte. Bytes are compared incrementally (a set of differing words), so a run of millions of
// writes is checked in one pass.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>
#include "mem_proto.h"
#include "stats.h"
extern "C" {
#include "mem_image.h"
}

namespace persim {

class RegionCheck : public DurableSink {
public:
    explicit RegionCheck(const mem_image *initial) : init_(initial) {}
    // A write put on the persist path (ids increase in path order per core).
    void path_write(uint64_t wid, uint32_t region, uint64_t word, uint64_t mask, const uint8_t data[8]);
    // Region `region` is persisted at `ps`: its boundary has reached every controller.
    void persisted(uint32_t region, uint64_t ps) { persisted_.push_back({ps, region}); }
    // Power failed at t: a boundary still on the (volatile) persist path then is lost.
    void power_fail(uint64_t t) { pf_ps_ = t; }
    // DurableSink: persist-path writes carry their write id in writers[0].
    void on_durable(uint64_t at, uint64_t addr, const uint8_t *data, const uint64_t mask[2], uint32_t lb,
                    int requester) override;
    void on_durable_ids(uint64_t at, uint64_t addr, const uint8_t *data, const uint64_t mask[2], uint32_t lb,
                        int requester, const uint32_t *writers) override;
    // Runs the check over everything recorded (call once, at the end of the run).
    void finish();
    void report(StatsWriter &w) const;
    uint64_t violations() const { return violations_; }
    const std::string &first_violation() const { return first_; }

private:
    struct Wr {
        uint32_t region;
        uint64_t word, mask;
        uint8_t data[8];
        bool applied;
    };
    struct Word {
        uint8_t pm[8], exp[8];
    };
    Word &word(uint64_t w);
    void set_diff(uint64_t w);
    const mem_image *init_;
    std::unordered_map<uint64_t, Wr> writes_;
    std::map<uint32_t, std::vector<uint64_t>> by_region_;     // region -> its writes in path order
    std::vector<std::pair<uint64_t, uint64_t>> durable_;      // (time, write id) in arrival order
    std::vector<std::pair<uint64_t, uint32_t>> persisted_;    // (time, region)
    std::unordered_map<uint64_t, Word> words_;
    std::unordered_set<uint64_t> diff_;
    uint64_t images_ = 0, violations_ = 0, regions_ = 0, committed_ = 0, durable_writes_ = 0, pending_ = 0;
    std::string first_;
    uint64_t pf_ps_ = UINT64_MAX;
    uint64_t first_ps_ = 0, first_addr_ = 0;
};

} // namespace persim
