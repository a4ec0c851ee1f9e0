#include "bsp_check.h"
#include <algorithm>

namespace persim {

void BspCheck::path_write(uint64_t wid, uint32_t thread, uint64_t epoch, uint64_t line, uint64_t vorder)
{
    writes_.emplace(wid, Wr{thread, epoch, line, vorder});
}

void BspCheck::on_durable_ids(uint64_t at, uint64_t, const uint8_t *, const uint64_t *, uint32_t, int,
                              const uint32_t *writers)
{
    if (writers) durable_.push_back({at, writers[0]});
}

void BspCheck::finish()
{
    std::stable_sort(durable_.begin(), durable_.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    // writes not yet durable: per thread, per epoch (count); per line, by volatile order
    std::map<uint32_t, std::map<uint64_t, uint64_t>> pending_epochs;
    std::unordered_map<uint64_t, std::set<uint64_t>> pending_line;
    for (auto &kv : writes_) {
        ++pending_epochs[kv.second.thread][kv.second.epoch];
        pending_line[kv.second.line].insert(kv.second.vorder);
    }
    for (auto &d : durable_) {
        auto it = writes_.find(d.second);
        if (it == writes_.end()) continue;
        const Wr &w = it->second;
        ++checked_;
        auto &eps = pending_epochs[w.thread];
        bool bad = false;
        if (!eps.empty() && eps.begin()->first < w.epoch) {
            ++epoch_viol_;
            bad = true;
        }
        auto &ln = pending_line[w.line];
        if (!ln.empty() && *ln.begin() < w.vorder) {
            ++line_viol_;
            bad = true;
        }
        if (bad && !first_set_) {
            first_set_ = true;
            first_ps_ = d.first;
        }
        if (--eps[w.epoch] == 0) eps.erase(w.epoch);
        ln.erase(w.vorder);
    }
}

void BspCheck::report(StatsWriter &w) const
{
    const std::string g = "bsp_check";
    w.add(g, "durable_writes", checked_, "writes", "persist-path writes checked in durable order");
    w.add(g, "epoch_violations", epoch_viol_, "writes", "writes durable before an earlier barrier epoch of their thread");
    w.add(g, "conflict_violations", line_viol_, "writes",
          "writes durable before an earlier write (volatile order) of the same line: a reordered conflict");
    w.add(g, "violations", epoch_viol_ + line_viol_, "writes", "all violations of buffered strict persistence");
    if (first_set_) w.add(g, "first_violation_ns", first_ps_ / 1000.0, "ns", "when the first violating write became durable");
}

} // namespace persim
