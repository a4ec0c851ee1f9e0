#include "region_check.h"
#include "crash_points.h"
#include <algorithm>
#include <cstring>
#include <random>
#include <set>
#include "config.h"
#include <sstream>

namespace persim {

void RegionCheck::path_write(uint64_t wid, uint32_t region, uint64_t word, uint64_t mask, const uint8_t data[8], uint32_t thread,
                             uint32_t ctrl, uint64_t t)
{
    Wr w{region, word, mask, {0}, false, thread, ctrl, t};
    std::memcpy(w.data, data, 8);
    writes_.emplace(wid, w);
    by_region_[region].push_back(wid);
    performed_.push_back({t, wid});
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

bool RegionCheck::image_differs(const std::vector<uint64_t> &add, Regions::iterator r, uint64_t *missing, uint32_t *incomplete,
                                uint64_t *addr)
{
    std::unordered_map<uint64_t, Word> tmp;           // the touched words of the image
    std::unordered_map<uint32_t, uint64_t> added;     // region -> writes added
    std::unordered_set<uint64_t> in(add.begin(), add.end());
    auto touch = [&](uint64_t w) -> Word & {
        auto it = tmp.find(w);
        return it != tmp.end() ? it->second : tmp.emplace(w, word(w)).first->second;
    };
    for (uint64_t wid : add) {                        // ascending ids: the latest value of a word last
        const Wr &w = writes_.at(wid);
        if (w.applied) continue;
        ++added[w.region];
        Word &x = touch(w.word);
        if (wid < x.pm_wid) continue;
        for (int b = 0; b < 8; ++b)
            if (w.mask >> b & 1) x.pm[b] = w.data[b];
        x.pm_wid = wid;
    }
    for (; r != by_region_.end() && left_[r->first] == added[r->first]; ++r)   // regions the added writes complete
        for (uint64_t wid : r->second) {
            const Wr &w = writes_.at(wid);
            Word &x = touch(w.word);
            for (int b = 0; b < 8; ++b)
                if (w.mask >> b & 1) x.exp[b] = w.data[b];
        }
    *missing = 0;
    *incomplete = UINT32_MAX;
    if (r != by_region_.end()) {
        *incomplete = r->first;
        for (uint64_t wid : r->second)
            if (!writes_.at(wid).applied && !in.count(wid)) {
                *missing = wid;
                break;
            }
    }
    bool bad = false;
    *addr = UINT64_MAX;
    for (auto &kv : tmp)
        if (std::memcmp(kv.second.pm, kv.second.exp, 8)) {
            bad = true;
            *addr = std::min(*addr, kv.first * 8);
        }
    for (uint64_t w : diff_)
        if (!tmp.count(w)) {
            bad = true;
            *addr = std::min(*addr, w * 8);
        }
    return bad;
}

void RegionCheck::finish(const CheckCtx &c)
{
    const CrashSelect *sel = c.sel;
    selected_ = sel != nullptr;
    model_ = sel && sel->model_images;
    if (sel) sel_.seed = sel->seed;
    regions_ = by_region_.size();
    durable_writes_ = durable_.size();
    auto by_time = [](const auto &a, const auto &b) { return a.first < b.first; };
    std::stable_sort(durable_.begin(), durable_.end(), by_time);
    std::stable_sort(persisted_.begin(), persisted_.end(), by_time);
    while (!persisted_.empty() && persisted_.back().first > pf_ps_) persisted_.pop_back();
    // the distinct run images: every instant a write becomes durable or a region persisted
    std::vector<uint64_t> inst;
    for (auto &d : durable_) inst.push_back(d.first);
    for (auto &p : persisted_) inst.push_back(p.first);
    std::sort(inst.begin(), inst.end());
    inst.erase(std::unique(inst.begin(), inst.end()), inst.end());
    sel_.run_images = inst.size();
    // which run images are checked: all (no choice, --points all), N at random, or the one at --at
    const bool at = sel && !model_ && sel->at_ps >= 0;
    check_crash_at(at ? sel : nullptr, c.end_ps);
    const bool all_run = !sel || (!model_ && !at && sel->all);
    // chosen instants (run images, --points N)
    const std::unordered_set<uint64_t> pick =
        sel && !model_ && !at && !sel->all ? pick_crash_points(*sel, inst) : std::unordered_set<uint64_t>{};
    // model images: targeted ones at each write's perform instant (writes durable on entry only),
    // then random samples (instant, probability), none with --target; --sample K: that one alone
    const bool track = model_ && c.acks_on_entry;           // follow the in-flight writes
    const bool targeted = track && sel->sample < 0;        // --sample K: that sample alone
    const std::vector<CrashSample> smp = model_ ? crash_samples(*sel, c.end_ps) : std::vector<CrashSample>{};
    for (auto &r : by_region_) left_[r.first] = r.second.size();
    std::unordered_set<uint32_t> is_persisted;
    std::set<uint64_t> inflight;                      // performed, not in PM (model images)
    auto closing = by_region_.begin();                // next region of the persisted prefix
    auto next_region = by_region_.begin();            // next region to replay (ID order)
    auto apply = [&](uint64_t wid, Wr &w, bool pm) {
        if (pm) {
            if (w.applied) return;
            w.applied = true;
            --left_[w.region];
            inflight.erase(wid);
        }
        Word &x = word(w.word);
        for (int b = 0; b < 8; ++b)
            if (w.mask >> b & 1) (pm ? x.pm : x.exp)[b] = w.data[b];
        if (pm) x.pm_wid = std::max(x.pm_wid, wid);
        set_diff(w.word);
    };
    // the in-flight writes of B's path to B's controller up to B (the queue keeps their order)
    auto ancestors = [&](const std::vector<uint64_t> &chosen) {
        std::map<std::pair<uint32_t, uint32_t>, uint64_t> upto;
        for (uint64_t wid : chosen) {
            const Wr &w = writes_.at(wid);
            uint64_t &u = upto[{w.thread, w.ctrl}];
            u = std::max(u, wid);
        }
        std::vector<uint64_t> out;
        for (uint64_t wid : inflight) {
            const Wr &w = writes_.at(wid);
            auto it = upto.find({w.thread, w.ctrl});
            if (it != upto.end() && wid <= it->second) out.push_back(wid);
        }
        return out;
    };
    size_t i = 0, j = 0, pi = 0, si = 0;
    bool at_done = !at;
    for (;;) {
        uint64_t t = UINT64_MAX;
        if (i < durable_.size()) t = std::min(t, durable_[i].first);
        if (j < persisted_.size()) t = std::min(t, persisted_[j].first);
        if (track && pi < performed_.size()) t = std::min(t, performed_[pi].first);
        if (!smp.empty() && si < smp.size()) t = std::min(t, smp[si].t);
        if (!at_done) t = std::min(t, (uint64_t)sel->at_ps);
        if (t == UINT64_MAX) break;
        bool run_instant = false;
        for (; i < durable_.size() && durable_[i].first == t; ++i) {
            run_instant = true;
            auto it = writes_.find(durable_[i].second);
            if (it != writes_.end()) apply(it->first, it->second, true);
        }
        for (; j < persisted_.size() && persisted_[j].first == t; ++j) {
            run_instant = true;
            is_persisted.insert(persisted_[j].second);
        }
        // the persisted prefix commits on battery power (in-flight ACKs arrive, IV-F)
        while (closing != by_region_.end() && is_persisted.count(closing->first)) {
            for (uint64_t wid : closing->second) apply(wid, writes_.at(wid), true);
            ++closing;
        }
        // the reference: every region whose writes are all in the image, in ID order
        while (next_region != by_region_.end() && left_[next_region->first] == 0) {
            for (uint64_t wid : next_region->second) apply(wid, writes_.at(wid), false);
            ++next_region;
            ++committed_;
        }
        const bool check_run = (run_instant && (all_run || pick.count(t))) || (!at_done && t == (uint64_t)sel->at_ps);
        if (!at_done && t == (uint64_t)sel->at_ps) at_done = true;
        if (check_run) {
            ++images_;
            if (!diff_.empty()) {
                ++violations_;
                const uint64_t w = *std::min_element(diff_.begin(), diff_.end());
                if (first_.empty()) {
                    const Word &x = word(w);
                    uint64_t pm = 0, ex = 0;
                    std::memcpy(&pm, x.pm, 8);
                    std::memcpy(&ex, x.exp, 8);
                    std::ostringstream o;
                    o << "crash image at " << t / 1000.0 << " ns: PM word 0x" << std::hex << w * 8 << " = 0x" << pm
                      << ", but the committed prefix (" << std::dec << committed_ << " regions) gives 0x" << std::hex << ex
                      << std::dec << " (" << diff_.size() << " words differ): a store of an uncommitted region reached PM";
                    first_ = o.str();
                }
                sel_.fail(t, 0, -1, w * 8, 0, 0);
            }
        }
        // targeted model images: B durable the moment it enters its path (with what its queue
        // orders before it), at a moment an older write (a region <= B's) is not durable
        for (; track && pi < performed_.size() && performed_[pi].first == t; ++pi) {
            const uint64_t b = performed_[pi].second;
            const Wr &wb = writes_.at(b);
            if (wb.applied) continue;
            inflight.insert(b);
            if (!targeted) continue;
            const std::vector<uint64_t> add = ancestors({b});
            uint64_t miss = 0, addr = 0;
            uint32_t inc = 0;
            const bool bad = image_differs(add, next_region, &miss, &inc, &addr);
            if (inc > wb.region) continue;            // every older write is durable: no pair
            const uint64_t k = tgt_++;
            if (sel->target >= 0 && (int64_t)k != sel->target) continue;
            ++sel_.targeted;
            if (bad) {
                ++sel_.targeted_failed;
                sel_.fail(t, 1, (int64_t)k, addr, miss, b);
            }
        }
        for (; si < smp.size() && smp[si].t == t; ++si) {
            // random model image: each in-flight write durable with probability p, closed downwards
            std::mt19937_64 rng(smp[si].rng);
            std::bernoulli_distribution coin(smp[si].p);
            std::vector<uint64_t> chosen;
            if (c.acks_on_entry)
                for (uint64_t wid : inflight)
                    if (coin(rng)) chosen.push_back(wid);
            const std::vector<uint64_t> add = ancestors(chosen);
            uint64_t miss = 0, addr = 0;
            uint32_t inc = 0;
            ++sel_.samples;
            ++tested_;
            if (image_differs(add, next_region, &miss, &inc, &addr)) {
                ++sel_.samples_failed;
                sel_.fail(t, 2, (int64_t)smp[si].j, addr, miss, chosen.empty() ? 0 : chosen.back());
            }
        }
    }
    if (sel && sel->target >= 0 && (uint64_t)sel->target >= tgt_)
        throw ConfigError("crash: --target " + std::to_string(sel->target) + ": this run has " + std::to_string(tgt_) +
                          " targeted image(s)");
    for (auto &r : left_) pending_ += r.second;
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
        w.add(g, "first_violation_ns", sel_.first_ps / 1000.0, "ns", "time of the first crash image that fails");
        w.add(g, "first_violation_addr", (double)sel_.first_addr, "B", "lowest PM word address that differs in it");
    }
    if (selected_) {
        SelFigs f = sel_;      // the run images checked and failed are the check's own figures
        f.checked_run = images_;
        f.failed_run = violations_;
        f.report(w, g);
    }
    // the pair of the first failing model image: the write made durable, an older one not
    for (auto [id, what] : {std::pair<uint64_t, const char *>{sel_.first_b, "durable"}, {sel_.first_a, "missing"}}) {
        auto it = writes_.find(id);
        if (!selected_ || !id || it == writes_.end()) continue;
        const std::string k = std::string("first_failed_") + what;
        w.add(g, k + "_thread", it->second.thread, "-", std::string("the ") + what + " write's thread (persist path)");
        w.add(g, k + "_region", it->second.region, "region", std::string("the ") + what + " write's region");
        w.add(g, k + "_addr", (double)(it->second.word * 8), "B", std::string("the ") + what + " write's word address");
    }
}

} // namespace persim
