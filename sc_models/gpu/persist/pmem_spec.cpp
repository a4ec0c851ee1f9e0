// Model `pmem-spec` (Jeong and Jung ASPLOS'21 as described by the AGPM paper, section V-B): "PM
// loads go to the temporal data path while PM stores through the non-temporal data path". Every
// PM store (log, data and flag writes of the program) bypasses the L1 and L2. Release flags
// (Prim::FLAG_STORE) stay temporal: they are the release protocol's, not the program's stores.
// The speculation hardware of PMEM-spec (misspeculation detection) is not modelled.
#include "gpu.h"
#include "persist/data_path.h"

namespace persim {

namespace {
StorePath policy(const PmStoreQuery &) { return StorePath::NT; }
std::unique_ptr<PersistHw> make_hw(const Config &, Gpu &gpu) { return std::make_unique<FixedPathHw>("pmem_spec", gpu, policy); }
} // namespace

const PersistModel kPmemSpecModel{"pmem-spec", "PMEM-spec: PM loads temporal, every PM store non-temporal (AGPM paper V-B)", lower_data_path, nullptr, make_hw};
PERSIM_REGISTER(PersistModel, "pmem-spec", kPmemSpecModel, 80);

} // namespace persim
