#include "region_check.h"
#include <algorithm>
#include <cstring>
#include <sstream>

namespace persim {

void RegionCheck::path_write(uint64_t wid, uint32_t region, uint64_t word, uint64_t mask, const uint8_t data[8])
{
    Wr w{region, word, mask, {0}, false};
    std::memcpy(w.data, data, 8);
    writes_.emplace(wid, w);
    by_region_[region].push_back(wid);
}

void RegionCheck::on_durable(uint64_t, uint64_t, const uint8_t *, const uint64_t *, uint32_t, int) {}

void RegionCheck::on_durable_ids(uint64_t at, uint64_t, const uint8_t *, const uint64_t *, uint32_t lb, int,
                                 const uint32_t *writers)
{
    if (lb != 8 || !writers) return;       // not a persist-path write (cache write-backs are not checked)
    durable_.push_back({at, writers[0]});
}

RegionCheck::Word &RegionCheck::word(uint64_t w)
{
    auto it = words_.find(w);
    if (it != words_.end()) return it->second;
    Word x;
    mem_read(init_, w * 8, x.pm, 8);
    std::memcpy(x.exp, x.pm, 8);
    return words_.emplace(w, x).first->second;
}

void RegionCheck::set_diff(uint64_t w)
{
    const Word &x = word(w);
    if (std::memcmp(x.pm, x.exp, 8)) diff_.insert(w);
    else diff_.erase(w);
}

void RegionCheck::finish()
{
    regions_ = by_region_.size();
    durable_writes_ = durable_.size();
    auto by_time = [](const auto &a, const auto &b) { return a.first < b.first; };
    std::stable_sort(durable_.begin(), durable_.end(), by_time);
    std::stable_sort(persisted_.begin(), persisted_.end(), by_time);
    while (!persisted_.empty() && persisted_.back().first > pf_ps_) persisted_.pop_back();
    std::unordered_map<uint32_t, uint64_t> left;      // region -> writes not yet in the image
    for (auto &r : by_region_) left[r.first] = r.second.size();
    std::unordered_set<uint32_t> is_persisted;
    auto closing = by_region_.begin();                // next region of the persisted prefix
    auto next_region = by_region_.begin();            // next region to replay (ID order)
    auto apply = [&](Wr &w, bool pm) {
        if (pm) {
            if (w.applied) return;
            w.applied = true;
            --left[w.region];
        }
        Word &x = word(w.word);
        for (int b = 0; b < 8; ++b)
            if (w.mask >> b & 1) (pm ? x.pm : x.exp)[b] = w.data[b];
        set_diff(w.word);
    };
    size_t i = 0, j = 0;
    while (i < durable_.size() || j < persisted_.size()) {
        const uint64_t t = std::min(i < durable_.size() ? durable_[i].first : UINT64_MAX,
                                    j < persisted_.size() ? persisted_[j].first : UINT64_MAX);
        for (; i < durable_.size() && durable_[i].first == t; ++i) {
            auto it = writes_.find(durable_[i].second);
            if (it != writes_.end()) apply(it->second, true);
        }
        for (; j < persisted_.size() && persisted_[j].first == t; ++j) is_persisted.insert(persisted_[j].second);
        // the persisted prefix commits on battery power (in-flight ACKs arrive, IV-F)
        while (closing != by_region_.end() && is_persisted.count(closing->first)) {
            for (uint64_t wid : closing->second) apply(writes_.at(wid), true);
            ++closing;
        }
        // the reference: every region whose writes are all in the image, in ID order
        while (next_region != by_region_.end() && left[next_region->first] == 0) {
            for (uint64_t wid : next_region->second) apply(writes_.at(wid), false);
            ++next_region;
            ++committed_;
        }
        ++images_;
        if (!diff_.empty()) {
            ++violations_;
            if (first_.empty()) {
                const uint64_t w = *std::min_element(diff_.begin(), diff_.end());
                const Word &x = word(w);
                uint64_t pm = 0, ex = 0;
                std::memcpy(&pm, x.pm, 8);
                std::memcpy(&ex, x.exp, 8);
                first_ps_ = t;
                first_addr_ = w * 8;
                std::ostringstream o;
                o << "crash image at " << t / 1000.0 << " ns: PM word 0x" << std::hex << w * 8 << " = 0x" << pm
                  << ", but the committed prefix (" << std::dec << committed_ << " regions) gives 0x" << std::hex << ex
                  << std::dec << " (" << diff_.size() << " words differ): a store of an uncommitted region reached PM";
                first_ = o.str();
            }
        }
    }
    for (auto &r : left) pending_ += r.second;
}

void RegionCheck::report(StatsWriter &w) const
{
    const std::string g = "region_check";
    w.add(g, "crash_images", images_, "images", "distinct crash images (durable instants) checked");
    w.add(g, "regions", regions_, "regions", "regions that put writes on the persist path");
    w.add(g, "committed_regions", committed_, "regions", "regions whose writes all became durable");
    w.add(g, "durable_writes", durable_writes_, "writes", "persist-path writes that became durable");
    w.add(g, "never_durable_writes", pending_, "writes", "persist-path writes not durable at the end of the run");
    w.add(g, "violations", violations_, "images", "crash images that are not the replay of a committed region prefix");
    if (violations_) {
        w.add(g, "first_violation_ns", first_ps_ / 1000.0, "ns", "time of the first crash image that fails");
        w.add(g, "first_violation_addr", (double)first_addr_, "B", "lowest PM word address that differs in it");
    }
}

} // namespace persim
