#include "persist_model.h"

namespace persim {
namespace {

bool wide(const persim_op &op) { return op.scope >= SCOPE_DEVICE; }

// A persist barrier of a scope wider than the warp (trace format: persists before it by any warp
// of the scope are ordered before persists after it by any warp of the scope) with a per-warp or
// per-SM barrier primitive `bar`: every warp of the scope first reaches it (execution barrier),
// runs `bar`, and waits for the whole scope again before it goes on.
int lower_pbarrier(const persim_op &op, Prim out[4], Prim bar)
{
    int n = 0;
    if (op.scope <= SCOPE_WARP) {
        out[n++] = bar;
        return n;
    }
    out[n++] = Prim::SYNC;
    out[n++] = bar;
    out[n++] = Prim::SYNC;
    return n;
}

// Epoch persistency (SBRP paper sections 4 and 7, "Epoch"): every ordering point is an epoch
// barrier that only affects PM writes.
int lower_epoch_like(const persim_op &op, Prim out[4], Prim bar)
{
    int n = 0;
    switch (op.kind) {
    case OPK_ORDER:
    case OPK_DURABLE:
        out[n++] = bar;
        break;
    case OPK_PBARRIER:
        return lower_pbarrier(op, out, bar);
    case OPK_RELEASE:
        out[n++] = bar;
        if (wide(op) && bar != Prim::SYS_FENCE) out[n++] = Prim::VOL_FLUSH;
        out[n++] = Prim::FLAG_STORE;
        break;
    case OPK_ACQUIRE:
        out[n++] = Prim::FLAG_WAIT;
        out[n++] = bar;
        if (wide(op) && bar != Prim::SYS_FENCE) out[n++] = Prim::L1_INV;
        break;
    case OPK_SYNC:
        out[n++] = Prim::SYNC;
        break;
    default:
        break;
    }
    return n;
}

int lower_epoch(const persim_op &op, Prim out[4]) { return lower_epoch_like(op, out, Prim::EPOCH_BAR); }
// GPM: the barrier is __threadfence_system, which also drains volatile writes (section 7).
int lower_gpm(const persim_op &op, Prim out[4]) { return lower_epoch_like(op, out, Prim::SYS_FENCE); }

// SBRP (section 5, Box 2; section 6.1).
int lower_sbrp(const persim_op &op, Prim out[4])
{
    int n = 0;
    switch (op.kind) {
    case OPK_ORDER:
        out[n++] = Prim::OFENCE;
        break;
    case OPK_DURABLE:
        out[n++] = Prim::DFENCE;
        break;
    case OPK_PBARRIER:
        return lower_pbarrier(op, out, Prim::DFENCE);
    case OPK_RELEASE:
        if (wide(op)) {
            out[n++] = Prim::PREL_DEV;
            out[n++] = Prim::VOL_FLUSH;
        } else {
            out[n++] = Prim::PREL_BLK;
        }
        out[n++] = Prim::FLAG_STORE;
        break;
    case OPK_ACQUIRE:
        out[n++] = Prim::FLAG_WAIT;
        if (wide(op)) {
            out[n++] = Prim::PACQ_DEV;
            out[n++] = Prim::L1_INV;
        } else {
            out[n++] = Prim::PACQ_BLK;
        }
        break;
    case OPK_SYNC:
        out[n++] = Prim::SYNC;
        break;
    default:
        break;
    }
    return n;
}

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
        if (wide(op)) {
            out[n++] = Prim::NVW_ALL;
            out[n++] = Prim::VOL_FLUSH;
        } else {
            out[n++] = Prim::NVW_WI;
        }
        out[n++] = Prim::FLAG_STORE;
        break;
    case OPK_ACQUIRE:
        out[n++] = Prim::FLAG_WAIT;
        if (wide(op)) out[n++] = Prim::L1_INV;
        break;
    case OPK_SYNC:
        out[n++] = Prim::SYNC;
        break;
    default:
        break;
    }
    return n;
}

const PersistModel kEpoch{"epoch", "epoch persistency: PM-only epoch barrier at every ordering point (flush, wait, invalidate PM lines)", false, lower_epoch};
const PersistModel kGpm{"gpm", "GPM: epoch persistency with __threadfence_system barriers that also drain volatile writes", false, lower_gpm};
const PersistModel kSbrp{"sbrp", "scoped buffered release persistency: per-SM persist buffer, oFence/dFence/pAcq/pRel", true, lower_sbrp};
const PersistModel kNvw{"nvwfifo", "scoped persist barriers (p_barrier_wi/wg/kr) with NVW-FIFOs beside the L1s and the L2", false, lower_nvw, true};

} // namespace

const std::vector<const PersistModel *> &all_models()
{
    static const std::vector<const PersistModel *> v = {&kEpoch, &kGpm, &kSbrp, &kNvw};
    return v;
}

const PersistModel *find_model(const std::string &name)
{
    for (auto *m : all_models())
        if (name == m->name) return m;
    return nullptr;
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
                              "nvw_wi", "nvw_wg", "nvw_kr", "nvw_all"};
    return n[(int)p];
}

} // namespace persim
