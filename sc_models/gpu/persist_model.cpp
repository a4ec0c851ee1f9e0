// What the GPU persistency models share (persist_model.h). Each model registers itself in its file
// under persist/ (PERSIM_REGISTER(PersistModel, ...), registry.h).
#include "persist_model.h"

namespace persim {

PersistHw *no_persist_hw()
{
    static PersistHw none;
    return &none;
}

int lower_intent(const IntentPrims &m, const persim_op &op, Prim out[4])
{
    int n = 0;
    auto put = [&](Prim p) {
        if (p != kNoPrim) out[n++] = p;
    };
    const bool wide = op.scope >= SCOPE_DEVICE;
    switch (op.kind) {
    case OPK_ORDER:
        put(m.order);
        break;
    case OPK_DURABLE:
        put(m.durable);
        break;
    case OPK_PBARRIER: {
        const Prim p = op.scope <= SCOPE_WARP ? m.pbar_warp : op.scope == SCOPE_BLOCK ? m.pbar_block : m.pbar_device;
        const bool sync = m.pbar_sync && op.scope > SCOPE_WARP;
        if (sync) put(Prim::SYNC);
        put(p);
        if (sync) put(Prim::SYNC);
        break;
    }
    case OPK_RELEASE:
        put(wide ? m.rel_device : m.rel_block);
        if (wide && m.vol_flush) put(Prim::VOL_FLUSH);
        put(Prim::FLAG_STORE);
        break;
    case OPK_ACQUIRE:
        put(Prim::FLAG_WAIT);
        put(wide ? m.acq_device : m.acq_block);
        if (wide && m.vol_flush) put(Prim::L1_INV);
        break;
    case OPK_SYNC:
        put(Prim::SYNC);
        break;
    default:
        break;
    }
    return n;
}

uint64_t promote_block_scope(persim_prog *p)
{
    uint64_t n = 0;
    for (uint64_t i = 0; i < p->nops; ++i) {
        persim_op &op = p->ops[i];
        if ((op.kind == OPK_RELEASE || op.kind == OPK_ACQUIRE) && op.scope <= SCOPE_BLOCK) {
            op.scope = SCOPE_DEVICE;
            ++n;
        }
    }
    return n;
}

const char *prim_name(Prim p)
{
    static const char *n[] = {"ofence", "dfence", "pacq_blk", "prel_blk", "pacq_dev", "prel_dev", "epoch_bar",
                              "sys_fence", "vol_flush", "l1_inv", "flag_store", "flag_wait", "sync",
                              "nvw_wi", "nvw_wg", "nvw_kr", "nvw_all", "pm_flush"};
    return n[(int)p];
}

} // namespace persim
