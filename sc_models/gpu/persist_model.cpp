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

int order_acts(const PersistModel &m, const persim_op &op, OrderAct out[kMaxOrderActs])
{
    Prim prims[4];
    const int n = m.lower(op, prims);
    int k = 0;
    for (int i = 0; i < n; ++i) {
        switch (prims[i]) {
        case Prim::OFENCE: out[k++] = OrderAct::FENCE; break;
        case Prim::DFENCE:
        case Prim::EPOCH_BAR:
        case Prim::SYS_FENCE: out[k++] = OrderAct::DURABLE; break;
        // NVW-FIFO persist barriers (nvwfifo): the warp waits until its marker is acknowledged,
        // i.e. its earlier persists are durable. (The block/kernel rendezvous of
        // p_barrier_wg/kr is not modelled here: the order is the warp's own, a subset.)
        case Prim::NVW_WI:
        case Prim::NVW_WG:
        case Prim::NVW_KR:
        case Prim::NVW_ALL: out[k++] = OrderAct::DURABLE; break;
        // Two-data-path models (AGPM family): clwb + fence over every PM write of the SM, a
        // durability point (Themis may elide it at run time: the check then judges the run).
        case Prim::PM_FLUSH: out[k++] = OrderAct::DURABLE; break;
        case Prim::PREL_BLK: out[k++] = OrderAct::RELEASE_BLOCK; break;
        // A device-scope pRel makes the flag visible only after the warp's earlier persists are
        // durable (SBRP section 5 "Inter-thread PMO", 6.1: the warp waits in the ODM/EDM until
        // ACTR is zero): a durability point as well as a release.
        case Prim::PREL_DEV: out[k++] = OrderAct::RELEASE_DEVICE; break;
        case Prim::PACQ_BLK: out[k++] = OrderAct::ACQUIRE_BLOCK; break;
        case Prim::PACQ_DEV: out[k++] = OrderAct::ACQUIRE_DEVICE; break;
        case Prim::FLAG_STORE: out[k++] = OrderAct::FLAG_STORE; break;
        case Prim::FLAG_WAIT: out[k++] = OrderAct::FLAG_WAIT; break;
        case Prim::SYNC: out[k++] = OrderAct::SYNC; break;
        case Prim::VOL_FLUSH:
        case Prim::L1_INV: break;
        }
    }
    return k;
}

} // namespace persim
