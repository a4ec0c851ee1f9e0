// Model `bucl` (Zhao et al. ICPADS'16, "Selectively GPU cache bypassing for un-coalesced loads", as
// used by the AGPM paper, section V-B): "If the number of un-coalesced memory access is bigger than
// the threshold of coalescing degree, the non-temporal data path will be selected. Otherwise, the
// temporal data path will be used", and "BUCL sends a memory request to the cache bypassing logic
// when there is a reservation fail after this request accesses the volatile caches".
// persim: a log write line goes NT when its warp op touches more than persist.bucl.coalesce_lines
// lines (the coalescing degree: 1 = fully coalesced), or when it misses the L1 and the victim line
// of its set still waits for its fill (persim's L1 has no MSHR limit: a line whose fill is in flight
// is the "reserved" line GPGPU-Sim would fail on). Other PM stores are temporal.
#include "config_table.h"
#include "gpu.h"
#include "persist/data_path.h"

namespace persim {

namespace {
// persist.bucl.* keys.
struct BuclCfg {
    uint32_t coalesce_lines;
};

const ConfigTable<BuclCfg> &bucl_table()
{
    using K = BuclCfg;
    static const ConfigTable<K> t =
        ConfigTable<K>("bucl", "sc_models/gpu/persist/bucl.cpp")
            .num("persist.bucl.coalesce_lines", PERSIM_FIELD(K, coalesce_lines), 1, "lines", 1, 64,
                 "bucl: a log write whose warp op touches more lines than this is un-coalesced and bypasses the caches "
                 "(threshold not given by the AGPM paper: persim, 1 = anything not fully coalesced)");
    return t;
}
PERSIM_CONFIG_TABLE(bucl_table, 430);

BuclCfg bucl_cfg(const Config &c)
{
    BuclCfg b{};
    bucl_table().fill(c, b);
    return b;
}

class Hw : public DataPathHw {
public:
    Hw(const Config &c, Gpu &g) : DataPathHw("bucl", g), thr_(bucl_cfg(c).coalesce_lines) {}

protected:
    StorePath choose(const PmStoreQuery &q) override
    {
        if (!q.log) return StorePath::T;
        if (q.nseg > thr_) {
            ++uncoalesced_;
            return StorePath::NT;
        }
        if (q.resv_fail) {
            ++resv_fail_;
            return StorePath::NT;
        }
        return StorePath::T;
    }
    void report_more(StatsWriter &w, const std::string &g) override
    {
        w.add(g, "coalesce_threshold", thr_, "lines", "un-coalesced above this many lines per warp op (persist.bucl.coalesce_lines)");
        w.add(g, "bypass_uncoalesced", uncoalesced_, "line accesses", "log-write lines bypassed for being un-coalesced");
        w.add(g, "bypass_resv_fail", resv_fail_, "line accesses", "log-write lines bypassed on a reservation failure");
    }

private:
    uint32_t thr_;
    uint64_t uncoalesced_ = 0, resv_fail_ = 0;
};
std::unique_ptr<PersistHw> make_hw(const Config &c, Gpu &gpu) { return std::make_unique<Hw>(c, gpu); }
} // namespace

const PersistModel kBuclModel{"bucl", "BUCL: log writes bypass the caches when un-coalesced or on a reservation failure (AGPM paper V-B)",
                              lower_data_path, nullptr, make_hw};
PERSIM_REGISTER(PersistModel, "bucl", kBuclModel, 90);

} // namespace persim
