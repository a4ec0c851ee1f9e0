// Model `themis` (Shahri et al. MICRO'20 as described by the AGPM paper, section V-B): "Themis
// uses a non-temporal store path as a fast store path to PM, while temporal stores use a slow data
// path. Due to paths' latency difference, Themis can eliminate almost all persist-barriers."
// persim: log writes NT, other PM stores T; a fence (PM_FLUSH) with no dirty PM line in the SM's
// L1, i.e. only non-temporal stores outstanding, is elided: the fast path is trusted to order them
// before the temporal stores that follow (which reach the controller only at a later, not elided,
// fence). Simplification: no check that the latency difference really holds (docs/models/agpm.md).
#include "gpu.h"
#include "persist/data_path.h"

namespace persim {

namespace {
StorePath policy(const PmStoreQuery &q) { return q.log ? StorePath::NT : StorePath::T; }
std::unique_ptr<PersistHw> make_hw(const Config &, Gpu &gpu) { return std::make_unique<FixedPathHw>("themis", gpu, policy, true); }
} // namespace

const PersistModel kThemisModel{"themis", "Themis: non-temporal fast path for log writes with fence elision (AGPM paper V-B)", lower_data_path, nullptr, make_hw};
PERSIM_REGISTER(PersistModel, "themis", kThemisModel, 70);

} // namespace persim
