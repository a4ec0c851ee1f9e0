#include "bsp_check.h"
#include "crash_points.h"
#include <algorithm>
#include <random>
#include <unordered_set>
#include "config.h"

namespace persim {

namespace {
constexpr uint64_t kThreadKey = 1ull << 63;     // bad_: a thread (else a line)
}

void BspCheck::path_write(uint64_t wid, uint32_t thread, uint64_t epoch, uint64_t line, uint64_t vorder, uint64_t entry,
                          std::vector<std::pair<uint32_t, uint64_t>> deps, uint64_t t)
{
    writes_.emplace(wid, Wr{thread, epoch, line, vorder, entry, std::move(deps), t, false});
    performed_.push_back({t, wid});
}

void BspCheck::on_durable_ids(uint64_t at, uint64_t, const uint8_t *, const uint64_t *, uint32_t, int,
                              const uint32_t *writers)
{
    if (writers) durable_.push_back({at, writers[0]});
}

void BspCheck::update(uint32_t thread, uint64_t line)
{
    const auto &pe = pending_epochs_[thread];
    const uint64_t me = max_epoch_[thread];
    if (!pe.empty() && pe.begin()->first + 1 < me) bad_.insert(kThreadKey | thread);
    else bad_.erase(kThreadKey | thread);
    const auto &pl = pending_line_[line];
    const uint64_t mv = max_vorder_[line];
    if (!pl.empty() && *pl.begin() + 1 < mv) bad_.insert(line);
    else bad_.erase(line);
}

std::vector<uint64_t> BspCheck::closure(const std::vector<uint64_t> &seeds) const
{
    std::unordered_set<uint64_t> in;
    std::vector<uint64_t> work = seeds;
    while (!work.empty()) {
        const uint64_t wid = work.back();
        work.pop_back();
        const Wr &w = writes_.at(wid);
        if (w.durable || !in.insert(wid).second) continue;
        auto f = inflight_.find(w.thread);
        if (f != inflight_.end())
            for (auto &kv : f->second) {        // the BROI controller's barrier sets and per-line order
                if (kv.first >= w.entry) break;
                const Wr &y = writes_.at(kv.second);
                if (y.epoch < w.epoch || y.line == w.line) work.push_back(kv.second);
            }
        for (auto &d : w.deps) {                // the persist buffer's recorded dependencies
            auto u = inflight_.find(d.first);
            if (u == inflight_.end()) continue;
            for (auto &kv : u->second) {
                if (kv.first > d.second) break;
                work.push_back(kv.second);
            }
        }
    }
    std::vector<uint64_t> out(in.begin(), in.end());
    std::sort(out.begin(), out.end());
    return out;
}

bool BspCheck::image_bad(const std::vector<uint64_t> &add, uint64_t *missing) const
{
    std::map<uint32_t, std::map<uint64_t, uint64_t>> ae;      // added: thread -> epoch -> writes
    std::map<uint64_t, std::set<uint64_t>> av;                // added: line -> volatile orders
    for (uint64_t wid : add) {
        const Wr &w = writes_.at(wid);
        if (w.durable) continue;
        ++ae[w.thread][w.epoch];
        av[w.line].insert(w.vorder);
    }
    *missing = 0;
    for (auto &t : ae) {
        uint64_t me = 0;
        auto m = max_epoch_.find(t.first);
        if (m != max_epoch_.end()) me = m->second;
        me = std::max(me, t.second.rbegin()->first + 1);
        auto pe = pending_epochs_.find(t.first);
        if (pe == pending_epochs_.end()) continue;
        for (auto &e : pe->second) {
            auto a = t.second.find(e.first);
            if (e.second > (a == t.second.end() ? 0 : a->second)) {
                if (e.first + 1 < me) {
                    auto f = inflight_.find(t.first);
                    if (f != inflight_.end())
                        for (auto &kv : f->second) {
                            const Wr &y = writes_.at(kv.second);
                            if (y.epoch == e.first && !std::binary_search(add.begin(), add.end(), kv.second)) {
                                *missing = kv.second;
                                break;
                            }
                        }
                    return true;
                }
                break;
            }
        }
    }
    for (auto &l : av) {
        uint64_t mv = 0;
        auto m = max_vorder_.find(l.first);
        if (m != max_vorder_.end()) mv = m->second;
        mv = std::max(mv, *l.second.rbegin() + 1);
        auto pl = pending_line_.find(l.first);
        if (pl == pending_line_.end()) continue;
        for (uint64_t v : pl->second) {
            if (l.second.count(v)) continue;
            if (v + 1 < mv) {
                auto x = vorder_wid_.find(v);
                if (x != vorder_wid_.end()) *missing = x->second;
                return true;
            }
            break;
        }
    }
    return false;
}

void BspCheck::finish(const CheckCtx &c)
{
    const CrashSelect *sel = c.sel;
    selected_ = sel != nullptr;
    const bool model = sel && sel->model_images;
    if (sel) sel_.seed = sel->seed;
    std::stable_sort(durable_.begin(), durable_.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    for (auto &kv : writes_) {
        ++pending_epochs_[kv.second.thread][kv.second.epoch];
        pending_line_[kv.second.line].insert(kv.second.vorder);
        vorder_wid_[kv.second.vorder] = kv.first;
    }
    // the run images: every prefix of the durable order (as the check has always walked it)
    std::vector<uint64_t> inst(durable_.size());
    for (size_t k = 0; k < inst.size(); ++k) inst[k] = k;
    sel_.run_images = inst.size();
    const bool at = sel && !model && sel->at_ps >= 0;
    check_crash_at(at ? sel : nullptr, c.end_ps);
    const bool all_run = !sel || (!model && !at && sel->all);
    const std::unordered_set<uint64_t> pick =
        sel && !model && !at && !sel->all ? pick_crash_points(*sel, inst) : std::unordered_set<uint64_t>{};
    const std::vector<CrashSample> smp = model ? crash_samples(*sel, c.end_ps) : std::vector<CrashSample>{};
    size_t i = 0, pi = 0, si = 0;
    bool at_done = !at;
    for (;;) {
        uint64_t t = UINT64_MAX;
        if (i < durable_.size()) t = std::min(t, durable_[i].first);
        if (model && pi < performed_.size()) t = std::min(t, performed_[pi].first);
        if (si < smp.size()) t = std::min(t, smp[si].t);
        if (!at_done) t = std::min(t, (uint64_t)sel->at_ps);
        if (t == UINT64_MAX) break;
        for (; i < durable_.size() && durable_[i].first == t; ++i) {
            auto it = writes_.find(durable_[i].second);
            if (it == writes_.end() || it->second.durable) {
                if (sel && (all_run || pick.count(i) || (at && t == (uint64_t)sel->at_ps))) ++sel_.checked_run;   // the same image again
                continue;
            }
            Wr &w = it->second;
            w.durable = true;
            ++checked_;
            auto &eps = pending_epochs_[w.thread];
            bool bad = false;
            if (!eps.empty() && eps.begin()->first < w.epoch) {
                ++epoch_viol_;
                bad = true;
            }
            auto &ln = pending_line_[w.line];
            if (!ln.empty() && *ln.begin() < w.vorder) {
                ++line_viol_;
                bad = true;
            }
            if (bad && !first_set_) {
                first_set_ = true;
                first_ps_ = t;
            }
            if (--eps[w.epoch] == 0) eps.erase(w.epoch);
            ln.erase(w.vorder);
            uint64_t &me = max_epoch_[w.thread];
            me = std::max(me, w.epoch + 1);
            uint64_t &mv = max_vorder_[w.line];
            mv = std::max(mv, w.vorder + 1);
            auto f = inflight_.find(w.thread);
            if (f != inflight_.end()) f->second.erase(w.entry);
            if (!sel) continue;
            update(w.thread, w.line);
            if (all_run || pick.count(i) || (at && t == (uint64_t)sel->at_ps)) {    // the prefix up to this write
                at_done = at_done || (at && t == (uint64_t)sel->at_ps);     // --at: the prefixes ending then
                ++sel_.checked_run;
                if (!bad_.empty()) {
                    ++sel_.failed_run;
                    sel_.fail(t, 0, -1, 0, 0, 0);
                }
            }
        }
        if (!at_done && t == (uint64_t)sel->at_ps) {    // --at between durable instants: every write durable by then
            at_done = true;
            ++sel_.checked_run;
            if (!bad_.empty()) {
                ++sel_.failed_run;
                sel_.fail(t, 0, -1, 0, 0, 0);
            }
        }
        for (; model && pi < performed_.size() && performed_[pi].first == t; ++pi) {
            const uint64_t b = performed_[pi].second;
            const Wr &wb = writes_.at(b);
            if (wb.durable) continue;
            inflight_[wb.thread][wb.entry] = b;
            if (sel->sample >= 0) continue;                    // --sample K: that sample alone
            uint64_t miss = 0;
            if (!image_bad(closure({b}), &miss)) continue;     // every older write is ordered before B
            const uint64_t k = tgt_++;
            if (sel->target >= 0 && (int64_t)k != sel->target) continue;
            ++sel_.targeted;
            ++sel_.targeted_failed;                                        // an older write not durable, B durable
            sel_.fail(t, 1, (int64_t)k, 0, miss, b);
        }
        for (; si < smp.size() && smp[si].t == t; ++si) {
            std::mt19937_64 rng(smp[si].rng);
            std::bernoulli_distribution coin(smp[si].p);
            std::vector<uint64_t> chosen;
            for (auto &th : inflight_)
                for (auto &kv : th.second)
                    if (coin(rng)) chosen.push_back(kv.second);
            const std::vector<uint64_t> add = closure(chosen);
            uint64_t miss = 0;
            ++sel_.samples;
            std::unordered_set<uint64_t> touched;
            const bool bad = image_bad(add, &miss) || [&] {
                for (uint64_t wid : add) {
                    touched.insert(kThreadKey | writes_.at(wid).thread);
                    touched.insert(writes_.at(wid).line);
                }
                for (uint64_t k : bad_)
                    if (!touched.count(k)) return true;
                return false;
            }();
            if (bad) {
                ++sel_.samples_failed;
                sel_.fail(t, 2, (int64_t)smp[si].j, 0, miss, chosen.empty() ? 0 : chosen.back());
            }
        }
    }
    if (sel && sel->target >= 0 && (uint64_t)sel->target >= tgt_)
        throw ConfigError("crash: --target " + std::to_string(sel->target) + ": this run has " + std::to_string(tgt_) +
                          " targeted image(s)");
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
    if (selected_)
        sel_.report(w, g);
    // the pair of the first failing model image: the write made durable, an older one not
    for (auto [id, what] : {std::pair<uint64_t, const char *>{sel_.first_b, "durable"}, {sel_.first_a, "missing"}}) {
        auto it = writes_.find(id);
        if (!selected_ || !id || it == writes_.end()) continue;
        const std::string k = std::string("first_failed_") + what;
        w.add(g, k + "_thread", it->second.thread, "-", std::string("the ") + what + " write's thread");
        w.add(g, k + "_epoch", it->second.epoch, "epochs", std::string("the ") + what + " write's barrier epoch");
        w.add(g, k + "_line", (double)it->second.line, "-", std::string("the ") + what + " write's cache line (index)");
    }
}

} // namespace persim
