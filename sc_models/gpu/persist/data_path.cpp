// Shared base of the two-data-path persistency models (persist/data_path.h; docs/models/agpm.md).
#include "persist/data_path.h"
#include "gpu.h"

namespace persim {

namespace {
// Every ordering point persists with clwb + fence (PM_FLUSH). Block-wide persist barriers wait for
// the block around it (SYNC, PM_FLUSH, SYNC); a device-scope release also writes back volatile lines
// and an acquire at device scope invalidates the L1 (vol_flush), like epoch.
constexpr Prim F = Prim::PM_FLUSH;
const IntentPrims kPrims{F, F, F, F, F, true, F, F, kNoPrim, kNoPrim, true};
} // namespace

int lower_data_path(const persim_op &op, Prim out[4]) { return lower_intent(kPrims, op, out); }

DataPathHw::DataPathHw(const char *model, Gpu &gpu) : group_(std::string("top.gpu.") + model), gpu_(gpu) {}

StorePath DataPathHw::pm_store_path(const PmStoreQuery &q)
{
    const StorePath p = choose(q);
    uint64_t *c = q.log ? (p == StorePath::NT ? &st_.log_nt : p == StorePath::T ? &st_.log_t : &st_.log_twb)
                        : (p == StorePath::NT ? &st_.data_nt : p == StorePath::T ? &st_.data_t : &st_.data_twb);
    ++*c;
    return p;
}

bool DataPathHw::elide_pm_flush(int, uint32_t dirty_pm_lines)
{
    ++st_.flushes;
    if (elide_ && dirty_pm_lines == 0) {
        ++st_.elided;
        return true;
    }
    return false;
}

void DataPathHw::report(StatsWriter &w, uint64_t)
{
    const std::string &g = group_;
    w.add(g, "log_nt_lines", st_.log_nt, "line accesses", "log-write lines sent over the non-temporal path");
    w.add(g, "log_t_lines", st_.log_t, "line accesses", "log-write lines sent over the temporal path (clwb at the fence)");
    w.add(g, "log_t_wb_lines", st_.log_twb, "line accesses",
          "log-write lines sent temporally with a write-back added right after the store (NT -> T)");
    w.add(g, "data_nt_lines", st_.data_nt, "line accesses", "other PM store lines sent non-temporally");
    w.add(g, "data_t_lines", st_.data_t + st_.data_twb, "line accesses", "other PM store lines sent temporally");
    w.add(g, "pm_flushes", st_.flushes, "fences", "clwb + fence points (Prim pm_flush) issued");
    w.add(g, "elided_fences", st_.elided, "fences", "fences elided (Themis: only non-temporal stores outstanding)");
    report_more(w, g);
}

} // namespace persim
