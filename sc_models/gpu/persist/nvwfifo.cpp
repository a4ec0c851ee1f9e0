// Model `nvwfifo`: scoped persist barriers with NVW-FIFOs (scoped-persist-barriers-nvw-fifo.txt;
// docs/models/nvwfifo.md): the lowering of ordering intent and the registration. Its hardware is
// NvwSystem (persist/nvw_fifo_hw.{h,cpp}, wrapping cores/nvw_fifo.{h,c}).
#include "persist_model.h"
#include "gpu.h"
#include "persist/nvw_fifo_hw.h"

namespace persim {

namespace {

// Scoped persist barriers with NVW-FIFOs (scoped-persist-barriers-nvw-fifo.txt, sections 5, 6.1;
// docs/models/nvwfifo.md). Persist barriers map to their scope; the other intents of the SBRP
// workloads map to the barrier that gives their ordering without an execution wait that flag-based
// code could deadlock on: order/durable = p_barrier_wi (the implementation persists at the
// barrier, so it is a durability point too); a release first persists (block scope: marker into
// the CU's L1 FIFO, which holds every NV write of the block; device scope: the kernel-scope persist
// action, markers into every L1 FIFO) and then is a plain scoped release (the S-FIFO baseline of
// section 3); an acquire is a plain scoped acquire (what it acquires is durable already).
const IntentPrims kPrims{Prim::NVW_WI, Prim::NVW_WI, Prim::NVW_WI, Prim::NVW_WG, Prim::NVW_KR, false,
                         Prim::NVW_WI, Prim::NVW_ALL, kNoPrim, kNoPrim, true};
int lower_nvw(const persim_op &op, Prim out[4]) { return lower_intent(kPrims, op, out); }

std::unique_ptr<PersistHw> make_hw(const Config &c, Gpu &gpu)
{
    return std::make_unique<NvwSystem>("nvw", c, &gpu);
}

} // namespace

const PersistModel kNvwModel{"nvwfifo", "scoped persist barriers (p_barrier_wi/wg/kr) with NVW-FIFOs beside the L1s and the L2",
                             lower_nvw, nullptr, make_hw};
PERSIM_REGISTER(PersistModel, "nvwfifo", kNvwModel, 40);

} // namespace persim
