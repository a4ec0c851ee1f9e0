// Model `static-nt` (AGPM paper section III, Figure 3 / Figure 7 "NT"): every log write takes the
// non-temporal path (around the L1 and L2 into the NVM controller's write queue); data updates
// and flags are temporal (store, clwb at the next fence). The conventional choice for undo logs
// (section I).
#include "gpu.h"
#include "persist/data_path.h"

namespace persim {

namespace {
StorePath policy(const PmStoreQuery &q) { return q.log ? StorePath::NT : StorePath::T; }
std::unique_ptr<PersistHw> make_hw(const Config &, Gpu &gpu) { return std::make_unique<FixedPathHw>("static_nt", gpu, policy); }
} // namespace

const PersistModel kStaticNtModel{"static-nt", "static non-temporal path: every log write bypasses the L1 and L2 into the NVM controller (AGPM paper Figure 3/7, NT)", lower_data_path, nullptr, make_hw};
PERSIM_REGISTER(PersistModel, "static-nt", kStaticNtModel, 50);

} // namespace persim
