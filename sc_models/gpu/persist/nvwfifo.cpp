// Model `nvwfifo`: scoped persist barriers with NVW-FIFOs (scoped-persist-barriers-nvw-fifo.txt;
// docs/models/nvwfifo.md): the lowering of ordering intent and the registration. Its hardware is
// NvwSystem (persist/nvw_fifo_hw.{h,cpp}, wrapping cores/nvw_fifo.{h,c}).
#include "persist/nvwfifo.h"
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
int lower_nvw(const persim_op &op, Prim out[4])
{
    int n = 0;
    switch (op.kind) {
    case OPK_ORDER:
    case OPK_DURABLE:
        out[n++] = Prim::NVW_WI;
        break;
    case OPK_PBARRIER:
        out[n++] = op.scope <= SCOPE_WARP ? Prim::NVW_WI : op.scope == SCOPE_BLOCK ? Prim::NVW_WG : Prim::NVW_KR;
        break;
    case OPK_RELEASE:
        if (lower_wide(op)) {
            out[n++] = Prim::NVW_ALL;
            out[n++] = Prim::VOL_FLUSH;
        } else {
            out[n++] = Prim::NVW_WI;
        }
        out[n++] = Prim::FLAG_STORE;
        break;
    case OPK_ACQUIRE:
        out[n++] = Prim::FLAG_WAIT;
        if (lower_wide(op)) out[n++] = Prim::L1_INV;
        break;
    case OPK_SYNC:
        out[n++] = Prim::SYNC;
        break;
    default:
        break;
    }
    return n;
}


std::unique_ptr<PersistHw> make_hw(const Config &c, Gpu &gpu)
{
    return std::make_unique<NvwSystem>("nvw", c, &gpu);
}

} // namespace

const PersistModel kNvwModel{"nvwfifo", "scoped persist barriers (p_barrier_wi/wg/kr) with NVW-FIFOs beside the L1s and the L2",
                             lower_nvw, nullptr, make_hw};

} // namespace persim
