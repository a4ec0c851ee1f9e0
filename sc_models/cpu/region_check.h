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
//
// persim crash (CheckCtx::sel) chooses which images: every distinct run image (the default), N of
// them at random (--points N, --seed), the one at an instant (--at); or images the model allows
// (--images model): a targeted image per write B that the controllers' cores make durable as soon
// as they take it (WriteQueue::acks_on_entry; LightWSP's gate does not, it holds a write until its
// region is persisted): at the instant B enters its persist path, the run's durable image plus B and
// the writes the model orders before it (the earlier in-flight writes of its path to the same
// controller: the queue keeps their order); one exists when an older write (a region <= B's) is then
// not durable. Then random samples: a random instant, each in-flight write that is durable on entry
// with a random probability, closed downwards. Each image is compared with its committed prefix.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>
#include "mem_proto.h"
#include "stats.h"
#include "persist_path.h"
extern "C" {
#include "mem_image.h"
}

namespace persim {

class RegionCheck : public DurableSink {
public:
    explicit RegionCheck(const mem_image *initial) : init_(initial) {}
    // A write put on the persist path (ids increase in path order per core).
    // thread: the path (requester) id; ctrl: the controller it goes to; t: when it entered the path.
    void path_write(uint64_t wid, uint32_t region, uint64_t word, uint64_t mask, const uint8_t data[8], uint32_t thread,
                    uint32_t ctrl, uint64_t t);
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
    void finish(const CheckCtx &c);
    void report(StatsWriter &w) const;
    uint64_t violations() const { return violations_; }
    const std::string &first_violation() const { return first_; }

private:
    struct Wr {
        uint32_t region;
        uint64_t word, mask;
        uint8_t data[8];
        bool applied;
        uint32_t thread, ctrl;
        uint64_t perform_ps;
    };
    struct Word {
        uint8_t pm[8], exp[8];
        uint64_t pm_wid = 0;      // the latest write (id) in pm
    };
    Word &word(uint64_t w);
    void set_diff(uint64_t w);
    // The image "PM now plus the writes `add`" (ids, ascending) against its committed prefix: true if
    // it differs; *missing = the first write of the first incomplete region (0: none), *addr = the
    // lowest differing word's address. Changes nothing.
    using Regions = std::map<uint32_t, std::vector<uint64_t>>;
    bool image_differs(const std::vector<uint64_t> &add, Regions::iterator next_region, uint64_t *missing,
                       uint32_t *first_incomplete, uint64_t *addr);
    const mem_image *init_;
    std::unordered_map<uint64_t, Wr> writes_;
    Regions by_region_;                                       // region -> its writes in path order
    std::unordered_map<uint32_t, uint64_t> left_;             // region -> writes not yet in the image
    std::vector<std::pair<uint64_t, uint64_t>> durable_;      // (time, write id) in arrival order
    std::vector<std::pair<uint64_t, uint32_t>> persisted_;    // (time, region)
    std::unordered_map<uint64_t, Word> words_;
    std::unordered_set<uint64_t> diff_;
    uint64_t images_ = 0, violations_ = 0, regions_ = 0, committed_ = 0, durable_writes_ = 0, pending_ = 0;
    std::string first_;
    uint64_t pf_ps_ = UINT64_MAX;
    std::vector<std::pair<uint64_t, uint64_t>> performed_;   // (time, write id) in path order
    // persim crash's choice (CheckCtx::sel): figures reported only then
    bool selected_ = false, model_ = false;
    uint64_t tested_ = 0, tgt_ = 0;
    SelFigs sel_;      // its figures; the first failing image (also the first violation's time and word)
};

} // namespace persim
