// Model `static-t` (AGPM paper section III, Figure 3 / Figure 7 "T"): every PM store, log writes
// included, takes the temporal path: stored into the L1, written back through the L2 to the NVM
// controller by the clwb of the next fence (Prim::PM_FLUSH).
#include "gpu.h"
#include "persist/data_path.h"

namespace persim {

namespace {
StorePath policy(const PmStoreQuery &) { return StorePath::T; }
std::unique_ptr<PersistHw> make_hw(const Config &, Gpu &gpu) { return std::make_unique<FixedPathHw>("static_t", gpu, policy); }
} // namespace

const PersistModel kStaticTModel{"static-t", "static temporal path: every log write is stored into the L1 and written back by clwb at the fence (AGPM paper Figure 3/7, T)", lower_data_path, nullptr, make_hw};
PERSIM_REGISTER(PersistModel, "static-t", kStaticTModel, 60);

} // namespace persim
