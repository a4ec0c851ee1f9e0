// persim statistics: every figure has a value, a unit and a description, grouped by the SystemC
// instance name of the module that owns it (e.g. "top.gpu.sm03.l1"). Modules keep plain
// counters and report them once at the end of a run; derived figures (bandwidth, utilisation)
// are reported directly so nobody has to parse stdout.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>
#include <nlohmann/json.hpp>

namespace persim {

class StatsWriter {
public:
    void add(const std::string &group, const std::string &name, double value,
             const std::string &unit, const std::string &desc);
    void add_hist(const std::string &group, const std::string &name, const std::vector<double> &bins,
                  const std::vector<std::string> &labels, const std::string &unit, const std::string &desc);
    // Sum of `name` over every group whose name starts with `prefix` (e.g. all SMs' L1s).
    double sum(const std::string &group_prefix, const std::string &group_suffix, const std::string &name) const;
    double get(const std::string &group, const std::string &name, double dflt = 0) const;
    nlohmann::json to_json() const { return j_; }

private:
    nlohmann::json j_ = nlohmann::json::object();
};

// Time-weighted occupancy histogram (e.g. persist-buffer entries in use).
struct OccupancyHist {
    std::vector<double> bins;   // ps spent in each bin
    uint32_t capacity = 1, nbins = 10, cur = 0;
    uint64_t last_ps = 0;
    uint32_t peak = 0;
    double weighted = 0;        // sum(occupancy * ps)
    void init(uint32_t cap, uint32_t n = 10) { capacity = cap ? cap : 1; nbins = n; bins.assign(n, 0.0); }
    void update(uint64_t now_ps, uint32_t occ)
    {
        if (now_ps > last_ps) {
            uint32_t b = (uint32_t)((uint64_t)cur * nbins / (capacity + 1));
            if (b >= nbins) b = nbins - 1;
            bins[b] += (double)(now_ps - last_ps);
            weighted += (double)cur * (double)(now_ps - last_ps);
            last_ps = now_ps;
        }
        cur = occ;
        if (occ > peak) peak = occ;
    }
};

} // namespace persim
