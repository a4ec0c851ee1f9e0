// Which crash images a cpu checker looks at (persim crash on the cpu system; docs/checking.md):
// the choices every checker makes the same way from CrashSelect (region_check.cpp, bsp_check.cpp).
#pragma once
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>
#include "config.h"
#include "system.h"

namespace persim {

// --at PS past the end of the run is an error.
inline void check_crash_at(const CrashSelect *sel, uint64_t end_ps)
{
    if (sel && sel->at_ps >= 0 && (uint64_t)sel->at_ps > end_ps)
        throw ConfigError("crash: --at " + std::to_string(sel->at_ps) + " ps is beyond the end of the run (" +
                          std::to_string(end_ps) + " ps)");
}

// --points N: N distinct candidates chosen with --seed (partial Fisher-Yates over `v`).
inline std::unordered_set<uint64_t> pick_crash_points(const CrashSelect &sel, std::vector<uint64_t> v)
{
    std::unordered_set<uint64_t> pick;
    std::mt19937_64 rng(sel.seed);
    const size_t n = std::min<size_t>(sel.points, v.size());
    for (size_t k = 0; k < n; ++k) {
        std::uniform_int_distribution<size_t> u(k, v.size() - 1);
        std::swap(v[k], v[u(rng)]);
        pick.insert(v[k]);
    }
    return pick;
}

// A random model image: at instant t, each in-flight write durable with probability p (drawn with
// a generator seeded by rng); j is its --sample index.
struct CrashSample {
    uint64_t t;
    double p;
    uint64_t j, rng;
};
// The random model images of --images model (--points of them, or --sample K alone; none with
// --target), in time order; the same for a given --seed on every checker.
inline std::vector<CrashSample> crash_samples(const CrashSelect &sel, uint64_t end_ps)
{
    std::vector<CrashSample> smp;
    if (sel.target >= 0) return smp;
    const uint64_t j0 = sel.sample >= 0 ? (uint64_t)sel.sample : 0, j1 = sel.sample >= 0 ? j0 + 1 : sel.points;
    for (uint64_t j = j0; j < j1; ++j) {
        std::mt19937_64 rng(sel.seed * 0x9E3779B97F4A7C15ull + j);
        const uint64_t t = std::uniform_int_distribution<uint64_t>(0, end_ps)(rng);
        const double p = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
        smp.push_back(CrashSample{t, p, j, rng()});
    }
    std::stable_sort(smp.begin(), smp.end(), [](const CrashSample &a, const CrashSample &b) { return a.t < b.t; });
    return smp;
}

} // namespace persim
